package cluster_test

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/racetrack-sim/racetrack/core/catalog"
	"github.com/racetrack-sim/racetrack/core/check"
	"github.com/racetrack-sim/racetrack/core/check/checktest"
	"github.com/racetrack-sim/racetrack/internal/cluster"
	"github.com/racetrack-sim/racetrack/internal/cluster/clustertest"
)

// deploy/nats.conf holds the account the code makes: the same users,
// permissions and limits (its passwords read from the environment).
func TestDeployConfigHoldsTheAccount(t *testing.T) {
	conf, err := os.ReadFile(clustertest.ConfigPath())
	if err != nil {
		t.Fatal(err)
	}
	want := cluster.AccountConfig("$RT_NATS_COORDINATOR_PASSWORD", "$RT_NATS_WORKER_PASSWORD", cluster.JetStreamLimits{})
	if !strings.Contains(string(conf), want) {
		t.Fatalf("deploy/nats.conf does not hold cluster.AccountConfig's account; regenerate it:\n%s", want)
	}
}

// The deployment files' topology, run here without docker: three NATS
// servers configured by deploy/nats.conf (TLS, the account's users),
// streams replicated three times (-nats-replicas 3), a coordinator and
// workers connected as the deploy files connect them. A client without
// the password, or without trusting the CA, is refused; the searches
// give the local answers, also with one NATS server shut down
// mid-search (a pod or container lost).
func TestDeployedNATSCluster(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a cluster of three NATS servers")
	}
	d := clustertest.Start(t)
	first := strings.Split(d.URLs, ",")[0]
	if nc, err := nats.Connect(first, nats.MaxReconnects(0), nats.RootCAs(d.Certs.CAFile)); err == nil {
		nc.Close()
		t.Fatal("a client without a password connected")
	}
	if nc, err := nats.Connect(first, nats.MaxReconnects(0), nats.UserInfo(cluster.WorkerUser, d.WorkerPwd)); err == nil {
		nc.Close()
		t.Fatal("a client that does not trust the CA connected")
	}
	reg := catalog.New()
	opts := cluster.Options{AckWait: time.Second, RangeRuns: 8, LostAfter: 20 * time.Second, Replicas: 3}
	nc, err := cluster.Dial(d.URLs, "coordinator", d.CoordinatorAuth)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	coord, err := cluster.NewCoordinator(nc, reg, opts)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 2; i++ {
		wc, err := cluster.Dial(d.URLs, fmt.Sprintf("worker-%d", i), d.WorkerAuth)
		if err != nil {
			t.Fatal(err)
		}
		w, err := cluster.StartWorker(wc, reg, fmt.Sprintf("worker-%d", i), opts)
		if err != nil {
			t.Fatal(err)
		}
		defer w.Stop()
	}
	var cfgs []check.Config
	for i, cfg := range checktest.BFSConfigs(reg) {
		if i%6 == 0 {
			cfgs = append(cfgs, cfg)
		}
	}
	cfgs = append(cfgs, check.Config{Scenario: "dining-philosophers", Preset: "lock-level", Variant: "buggy", Strategy: check.Random, Seed: 3, Budget: check.Budget{Runs: 24}})
	for i, cfg := range cfgs {
		name := fmt.Sprintf("%s %s/%s/%s", cfg.Strategy, cfg.Scenario, cfg.Preset, cfg.Variant)
		x, err := check.New(reg, cfg)
		if err != nil {
			t.Fatal(err)
		}
		local := x.Run()
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		done := make(chan struct{})
		var r check.Result
		go func() {
			defer close(done)
			r, err = coord.Search(ctx, cfg, nil)
		}()
		if i == len(cfgs)/2 {
			time.Sleep(20 * time.Millisecond)
			d.Servers[2].Shutdown()
			t.Logf("%s: NATS server nats-3 shut down mid-search", name)
		}
		<-done
		cancel()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if r.Verdict != local.Verdict || r.States != local.States || r.Length != local.Length || r.Found != local.Found {
			t.Errorf("%s: distributed %q %d states length %d; local %q %d states length %d", name,
				r.Verdict, r.States, r.Length, local.Verdict, local.States, local.Length)
		}
	}
	t.Logf("%d searches on a NATS cluster of three with TLS and passwords, streams replicated three times", len(cfgs))
}
