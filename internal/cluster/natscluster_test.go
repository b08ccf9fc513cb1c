package cluster

import (
	"context"
	"fmt"
	"net"
	"net/url"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"

	"github.com/racetrack-sim/racetrack/core/catalog"
	"github.com/racetrack-sim/racetrack/core/check"
	"github.com/racetrack-sim/racetrack/core/check/checktest"
)

// freePorts returns n TCP ports free on 127.0.0.1 a moment ago.
func freePorts(t *testing.T, n int) []int {
	t.Helper()
	var ports []int
	var ls []net.Listener
	for i := 0; i < n; i++ {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		ls = append(ls, l)
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	for _, l := range ls {
		l.Close()
	}
	return ports
}

// natsCluster starts the topology deploy/compose.yaml and
// deploy/kubernetes.yaml describe: three NATS servers with JetStream,
// routed into one cluster, on 127.0.0.1. It returns the servers and the
// client URL list (as -nats takes it).
func natsCluster(t *testing.T) ([]*server.Server, string) {
	t.Helper()
	ports := freePorts(t, 6) // a client and a route port each
	var routes []*url.URL
	for i := 0; i < 3; i++ {
		routes = append(routes, &url.URL{Scheme: "nats", Host: fmt.Sprintf("127.0.0.1:%d", ports[3+i])})
	}
	var servers []*server.Server
	var clients []string
	for i := 0; i < 3; i++ {
		so := &server.Options{
			ServerName: fmt.Sprintf("nats-%d", i+1),
			Host:       "127.0.0.1",
			Port:       ports[i],
			JetStream:  true,
			StoreDir:   filepath.Join(t.TempDir(), fmt.Sprint(i)),
			NoSigs:     true,
			Cluster:    server.ClusterOpts{Name: "racetrack", Host: "127.0.0.1", Port: ports[3+i]},
			Routes:     routes,
		}
		s, err := server.NewServer(so)
		if err != nil {
			t.Fatal(err)
		}
		go s.Start()
		t.Cleanup(s.Shutdown)
		servers = append(servers, s)
		clients = append(clients, fmt.Sprintf("nats://127.0.0.1:%d", ports[i]))
	}
	for _, s := range servers {
		if !s.ReadyForConnections(20 * time.Second) {
			t.Fatalf("NATS server %s not ready", s.Name())
		}
	}
	// JetStream needs a meta leader before streams can be made.
	deadline := time.Now().Add(30 * time.Second)
	for {
		leader := false
		for _, s := range servers {
			leader = leader || s.JetStreamIsLeader()
		}
		if leader {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("no JetStream meta leader after 30s")
		}
		time.Sleep(100 * time.Millisecond)
	}
	return servers, strings.Join(clients, ",")
}

// The deployment files' topology, run here without docker: a NATS
// cluster of three with JetStream and streams replicated three times
// (-nats-replicas 3), a coordinator and workers connected with the URL
// list, give the local answers; with one NATS server shut down
// mid-search (a pod or container lost), the search still ends with
// them.
func TestThreeNodeNATSCluster(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a cluster of three NATS servers")
	}
	servers, urls := natsCluster(t)
	reg := catalog.New()
	opts := testOptions
	opts.Replicas = 3
	opts.LostAfter = 20 * time.Second
	nc, err := Dial(urls, "coordinator", ClientAuth{})
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	coord, err := NewCoordinator(nc, reg, opts)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 2; i++ {
		wc, err := Dial(urls, fmt.Sprintf("worker-%d", i), ClientAuth{})
		if err != nil {
			t.Fatal(err)
		}
		defer wc.Close()
		w, err := StartWorker(wc, reg, fmt.Sprintf("worker-%d", i), opts)
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
	cfgs = append(cfgs, swarmConfigs(reg, 24)[0])
	for i, cfg := range cfgs {
		name := fmt.Sprintf("%s %s/%s/%s", cfg.Strategy, cfg.Scenario, cfg.Preset, cfg.Variant)
		local := localSearch(t, reg, cfg)
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		done := make(chan struct{})
		var r check.Result
		var err error
		go func() {
			defer close(done)
			r, err = coord.Search(ctx, cfg, nil)
		}()
		if i == len(cfgs)/2 {
			// Lose one NATS server (not the one the coordinator is on,
			// whichever that is: the client reconnects to another).
			time.Sleep(20 * time.Millisecond)
			servers[2].Shutdown()
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
	t.Logf("%d searches on a NATS cluster of three, streams replicated three times", len(cfgs))
}
