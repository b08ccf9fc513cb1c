package cluster

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/racetrack-sim/racetrack/core/catalog"
	"github.com/racetrack-sim/racetrack/core/check"
	"github.com/racetrack-sim/racetrack/core/scenario"
)

// testCluster is an embedded NATS server, workers on their own
// connections and a coordinator on another.
type testCluster struct {
	t       *testing.T
	emb     *Embedded
	reg     *scenario.Registry
	opts    Options
	workers []*Worker
	coord   *Coordinator
}

// testOptions keep redelivery quick so the chaos tests stay short.
var testOptions = Options{AckWait: time.Second, RangeRuns: 8, LostAfter: 2 * time.Second}

func startCluster(t *testing.T, workers int) *testCluster {
	t.Helper()
	return startClusterWith(t, workers, testOptions)
}

func startClusterWith(t *testing.T, workers int, opts Options) *testCluster {
	t.Helper()
	emb, err := StartEmbedded(EmbeddedOptions{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	c := &testCluster{t: t, emb: emb, reg: catalog.New(), opts: opts}
	t.Cleanup(c.stop)
	for i := 0; i < workers; i++ {
		c.addWorker()
	}
	nc, err := emb.Connect("coordinator")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	if c.coord, err = NewCoordinator(nc, c.reg, c.opts); err != nil {
		t.Fatal(err)
	}
	return c
}

func (c *testCluster) addWorker() *Worker {
	c.t.Helper()
	nc, err := c.emb.Connect(fmt.Sprintf("worker-%d", len(c.workers)))
	if err != nil {
		c.t.Fatal(err)
	}
	w, err := StartWorker(nc, c.reg, fmt.Sprintf("worker-%d", len(c.workers)), c.opts)
	if err != nil {
		c.t.Fatal(err)
	}
	c.workers = append(c.workers, w)
	return w
}

func (c *testCluster) stop() {
	for _, w := range c.workers {
		if !w.killed.Load() {
			w.Stop()
		}
	}
	c.emb.Shutdown()
}

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

func localSearch(t *testing.T, reg *scenario.Registry, cfg check.Config) check.Result {
	t.Helper()
	x, err := check.New(reg, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return x.Run()
}

// swarmConfigs are a random and a pct search of every preset of every
// scenario (its first variant, the buggy one) at a small budget. Only the
// philosophers' counterexamples are shrunk (on the coordinator, as
// locally): shrinking the others would double the test's time and test
// nothing the philosophers do not.
func swarmConfigs(reg *scenario.Registry, runs int) []check.Config {
	var out []check.Config
	for _, sc := range reg.List() {
		for _, p := range sc.Presets {
			for _, strategy := range []string{check.Random, check.PCT} {
				out = append(out, check.Config{Scenario: sc.ID, Preset: p.ID, Variant: sc.DefaultVariant(),
					Strategy: strategy, Seed: 3, Budget: check.Budget{Runs: runs}, NoShrink: sc.ID != "dining-philosophers"})
			}
		}
	}
	return out
}

func sameResult(t *testing.T, cfg check.Config, local, dist check.Result) {
	t.Helper()
	if !reflect.DeepEqual(local, dist) {
		l, _ := json.Marshal(local)
		d, _ := json.Marshal(dist)
		t.Fatalf("%s %s/%s: the cluster's result differs from the local one\nlocal: %s\nnats:  %s", cfg.Strategy, cfg.Scenario, cfg.Preset, l, d)
	}
}

// Every random and pct search gives on three workers the result it gives
// on one machine, field for field.
func TestSwarmGivesTheLocalResult(t *testing.T) {
	c := startCluster(t, 3)
	found := 0
	for _, cfg := range swarmConfigs(c.reg, 40) {
		local := localSearch(t, c.reg, cfg)
		dist, err := c.coord.Search(context.Background(), cfg, nil)
		if err != nil {
			t.Fatalf("%s %s/%s: %v", cfg.Strategy, cfg.Scenario, cfg.Preset, err)
		}
		sameResult(t, cfg, local, dist)
		if dist.Found {
			found++
		}
	}
	if found == 0 {
		t.Fatal("no search found a violation: the comparison covered only empty answers")
	}
}

// A worker killed at a random moment of each search (its connection
// dropped, its range never acknowledged) changes no answer: the range is
// redelivered to a surviving worker.
func TestSwarmSurvivesAKilledWorker(t *testing.T) {
	rng := rand.New(rand.NewPCG(14, 0))
	var victim atomic.Value // the name of the worker to kill
	victim.Store("")
	holding := make(chan struct{}, 1)
	testOpts := testOptions
	testOpts.AckWait = 500 * time.Millisecond
	testOpts.onTask = func(w *Worker) {
		if w.name == victim.Load() {
			select {
			case holding <- struct{}{}:
			default:
			}
			// The victim is slow on its task, so the kill (within
			// 40ms of taking it) hits it mid-range.
			time.Sleep(50 * time.Millisecond)
		}
	}
	c := startClusterWith(t, 2, testOpts)
	for i, cfg := range swarmConfigs(c.reg, 40) {
		if i%3 != 0 {
			continue // a third of the searches keeps the test short
		}
		local := localSearch(t, c.reg, cfg)
		victim.Store(fmt.Sprintf("worker-%d", len(c.workers)))
		v := c.addWorker()
		killed := make(chan struct{})
		go func(v *Worker, d time.Duration) {
			defer close(killed)
			select {
			case <-holding:
			case <-time.After(2 * time.Second):
			}
			time.Sleep(d)
			v.Kill()
		}(v, time.Duration(rng.IntN(40_000))*time.Microsecond)
		dist, err := c.coord.Search(context.Background(), cfg, nil)
		<-killed
		if err != nil {
			t.Fatalf("%s %s/%s: %v", cfg.Strategy, cfg.Scenario, cfg.Preset, err)
		}
		sameResult(t, cfg, local, dist)
	}
	var redelivered int64
	for _, w := range c.workers {
		redelivered += w.redelivered.Load()
	}
	if redelivered == 0 {
		t.Fatal("no task was redelivered: no kill hit a worker holding a range")
	}
	t.Logf("%d ranges redelivered after a kill", redelivered)
}

// A search that finds nothing for long: the fixed churn preset.
var longSearch = check.Config{Scenario: "vitess-messager", Preset: "churn", Variant: "fixed", Strategy: check.Random, Seed: 1, Budget: check.Budget{Runs: 10_000}}

// Cancelling a search returns at once with the runs done so far, and its
// queued ranges leave the work queue.
func TestSwarmCancel(t *testing.T) {
	c := startCluster(t, 2)
	ctx, cancel := context.WithCancel(context.Background())
	var once atomic.Bool
	r, err := c.coord.Search(ctx, longSearch, func(p check.Progress) {
		if p.Runs > 0 && once.CompareAndSwap(false, true) {
			cancel()
		}
	})
	if err != context.Canceled {
		t.Fatalf("cancelled search: error %v, want context.Canceled", err)
	}
	if r.Runs == 0 || r.Runs >= longSearch.Budget.Runs || r.Found {
		t.Fatalf("cancelled search: %d runs (of %d), found %v", r.Runs, longSearch.Budget.Runs, r.Found)
	}
	st, err := c.coord.js.Stream(context.Background(), workStream)
	if err != nil {
		t.Fatal(err)
	}
	info, err := st.Info(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if info.State.Msgs != 0 {
		t.Fatalf("%d tasks of the cancelled search are still queued", info.State.Msgs)
	}
}

// A search whose NATS server goes away ends as failed, with the reason,
// once the connection stayed lost for LostAfter.
func TestSwarmFailsWhenTheClusterVanishes(t *testing.T) {
	c := startCluster(t, 1)
	var once atomic.Bool
	r, err := c.coord.Search(context.Background(), longSearch, func(p check.Progress) {
		if once.CompareAndSwap(false, true) {
			go c.emb.Shutdown()
		}
	})
	if !errors.Is(err, ErrLost) {
		t.Fatalf("search on a vanished cluster: error %v, want ErrLost", err)
	}
	if !strings.Contains(r.Error, "unreachable") {
		t.Fatalf("result error %q does not say the cluster was unreachable", r.Error)
	}
}
