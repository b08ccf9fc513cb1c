package cluster

import (
	"context"
	"errors"
	"net"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/racetrack-sim/racetrack/core/catalog"
	"github.com/racetrack-sim/racetrack/core/check"
)

// tcpCluster is an embedded NATS server on a TCP port with a coordinator
// and workers connected over TCP, so that they outlive the server: a
// restarted server on the same port and store directory takes them back.
type tcpCluster struct {
	t       *testing.T
	dir     string
	addr    string
	emb     atomic.Pointer[Embedded]
	auth    EmbeddedAuth
	coord   *Coordinator
	workers []*Worker
}

func startTCPCluster(t *testing.T, workers int, opts Options) *tcpCluster {
	t.Helper()
	c := &tcpCluster{t: t, dir: t.TempDir()}
	emb, err := StartEmbedded(EmbeddedOptions{Dir: c.dir, Listen: "127.0.0.1:0"})
	if err != nil {
		t.Fatal(err)
	}
	c.emb.Store(emb)
	c.auth = emb.Auth()
	c.addr = strings.TrimPrefix(emb.ClientURL(), "nats://")
	url := emb.ClientURL()
	reg := catalog.New()
	nc, err := Dial(url, "coordinator", emb.CoordinatorAuth())
	if err != nil {
		t.Fatal(err)
	}
	if c.coord, err = NewCoordinator(nc, reg, opts); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < workers; i++ {
		wc, err := Dial(url, "worker", emb.WorkerAuth())
		if err != nil {
			t.Fatal(err)
		}
		w, err := StartWorker(wc, reg, "worker", opts)
		if err != nil {
			t.Fatal(err)
		}
		c.workers = append(c.workers, w)
	}
	t.Cleanup(func() {
		for _, w := range c.workers {
			w.Stop()
		}
		nc.Close()
		if e := c.emb.Load(); e != nil {
			e.Shutdown()
		}
	})
	return c
}

// restart stops the server and starts a new one on the same port and
// store directory after down.
func (c *tcpCluster) restart(down time.Duration) error {
	c.emb.Swap(nil).Shutdown()
	time.Sleep(down)
	var err error
	for try := 0; try < 20; try++ { // the port may linger a moment
		var emb *Embedded
		if emb, err = StartEmbedded(EmbeddedOptions{Dir: c.dir, Listen: c.addr, Auth: c.auth}); err == nil {
			c.emb.Store(emb)
			return nil
		}
		var op *net.OpError
		if !errors.As(err, &op) && !strings.Contains(err.Error(), "address already in use") {
			return err
		}
		time.Sleep(100 * time.Millisecond)
	}
	return err
}

// A NATS server that restarts during a search (on the same port and
// JetStream directory) loses nothing: the connections come back, the
// streams, the queue and its unacknowledged tasks are on disk, a task
// cut off is redelivered, and the search gives the local answer.
func TestSearchSurvivesANATSRestart(t *testing.T) {
	if testing.Short() {
		t.Skip("restarts a NATS server")
	}
	opts := Options{AckWait: time.Second, RangeRuns: 8, LostAfter: 20 * time.Second}
	c := startTCPCluster(t, 2, opts)
	reg := catalog.New()
	const down = 300 * time.Millisecond
	for _, cfg := range []check.Config{
		{Scenario: "vitess-messager", Preset: "lock-level", Variant: "fixed", Params: map[string]any{"clients": 2, "iterations": 1},
			Strategy: check.BFS, Storage: check.StorageExact, Reductions: check.DefaultReductions(check.BFS)},
		{Scenario: "vitess-messager", Preset: "churn", Variant: "fixed", Strategy: check.Random, Seed: 1, Budget: check.Budget{Runs: 300}},
	} {
		local := localSearch(t, reg, cfg)
		var once atomic.Bool
		restarted := make(chan error, 1)
		dist, err := c.coord.Search(context.Background(), cfg, func(p check.Progress) {
			if (p.States > 1 || p.Runs > 0) && once.CompareAndSwap(false, true) {
				go func() { restarted <- c.restart(down) }()
			}
		})
		if !once.Load() {
			t.Fatalf("%s: the search ended before the restart", cfg.Strategy)
		}
		select {
		case rerr := <-restarted:
			if rerr != nil {
				t.Fatal(rerr)
			}
		default:
			t.Fatalf("%s: the search ended before the server was back", cfg.Strategy)
		}
		if err != nil {
			t.Fatalf("%s: %v", cfg.Strategy, err)
		}
		t.Logf("%s: %d states, %d runs after a restart", cfg.Strategy, dist.States, dist.Runs)
		if cfg.Strategy == check.BFS {
			sameBFSAnswer(t, cfg, local, dist)
		} else {
			sameResult(t, cfg, local, dist)
		}
	}
}

// A publish by the coordinator while the server is down (longer than one
// attempt waits) is retried until the server is back, and JetStream
// keeps one copy of a message that a retry sent twice.
func TestCoordinatorRetriesPublishAcrossARestart(t *testing.T) {
	if testing.Short() {
		t.Skip("restarts a NATS server")
	}
	c := startTCPCluster(t, 0, Options{AckWait: time.Second, LostAfter: 20 * time.Second})
	restarted := make(chan error, 1)
	go func() { restarted <- c.restart(publishWait + time.Second) }()
	time.Sleep(100 * time.Millisecond) // the server is going down
	for i := 0; i < 2; i++ {
		if _, err := c.coord.publish(context.Background(), bfsSubject+"retry.x", []byte("data"), "retry#0"); err != nil {
			t.Fatalf("publish %d across a restart: %v", i, err)
		}
	}
	if err := <-restarted; err != nil {
		t.Fatal(err)
	}
	st, err := c.coord.js.Stream(context.Background(), bfsStream)
	if err != nil {
		t.Fatal(err)
	}
	info, err := st.Info(context.Background(), jetstream.WithSubjectFilter(bfsSubject+"retry.x"))
	if err != nil {
		t.Fatal(err)
	}
	if n := info.State.Subjects[bfsSubject+"retry.x"]; n != 1 {
		t.Fatalf("%d copies of a message published twice with one id", n)
	}
}

// A bfs whose NATS server goes away for good ends as failed with the
// reason once the connection stayed lost for LostAfter (here 1s), not
// later than LostAfter and one publish attempt.
func TestBFSFailsWhenTheClusterVanishes(t *testing.T) {
	opts := testOptions
	opts.LostAfter = time.Second
	c := startClusterWith(t, 1, opts)
	cfg := check.Config{Scenario: "vitess-messager", Preset: "lock-level", Variant: "fixed", Params: map[string]any{"clients": 2, "iterations": 1},
		Strategy: check.BFS, Reductions: check.DefaultReductions(check.BFS)}
	var once atomic.Bool
	var gone atomic.Int64
	r, err := c.coord.Search(context.Background(), cfg, func(p check.Progress) {
		if p.Depth >= 2 && once.CompareAndSwap(false, true) {
			go func() { c.emb.Shutdown(); gone.Store(time.Now().UnixNano()) }()
		}
	})
	took := time.Since(time.Unix(0, gone.Load()))
	if !errors.Is(err, ErrLost) {
		t.Fatalf("bfs on a vanished cluster: error %v, want ErrLost", err)
	}
	if !strings.Contains(r.Error, "unreachable") && !strings.Contains(r.Error, "publishing") {
		t.Fatalf("result error %q does not say the cluster was lost", r.Error)
	}
	if r.Verdict != check.VerdictNone || r.Exhaustive {
		t.Fatalf("a lost bfs reports verdict %q, exhaustive %v", r.Verdict, r.Exhaustive)
	}
	if bound := opts.LostAfter + publishWait + 2*time.Second; gone.Load() != 0 && took > bound {
		t.Fatalf("the search ended %v after the server went away (bound %v)", took, bound)
	}
}

// A search on a cluster with no worker (the NATS server is up, nobody
// takes tasks) fails with the reason once LostAfter has passed, for a
// swarm and for a bfs, instead of waiting for ever.
func TestSearchFailsWithoutWorkers(t *testing.T) {
	opts := testOptions
	opts.LostAfter = time.Second
	c := startClusterWith(t, 0, opts)
	for _, cfg := range []check.Config{longSearch,
		{Scenario: "dining-philosophers", Preset: "lock-level", Variant: "buggy", Params: map[string]any{"philosophers": 3}, Strategy: check.BFS}} {
		r, err := c.coord.Search(context.Background(), cfg, nil)
		if !errors.Is(err, ErrLost) || !strings.Contains(err.Error(), "no worker") {
			t.Fatalf("%s without workers: error %v, want ErrLost saying no worker", cfg.Strategy, err)
		}
		if !strings.Contains(r.Error, "no worker") || r.Found || r.Verdict != check.VerdictNone {
			t.Fatalf("%s without workers: result error %q, found %v, verdict %q", cfg.Strategy, r.Error, r.Found, r.Verdict)
		}
	}
}
