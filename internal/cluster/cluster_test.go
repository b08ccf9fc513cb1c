package cluster

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"reflect"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/racetrack-sim/racetrack/core/catalog"
	"github.com/racetrack-sim/racetrack/core/check"
	"github.com/racetrack-sim/racetrack/core/check/checktest"
	"github.com/racetrack-sim/racetrack/core/scenario"
)

// testCluster is an embedded NATS server, workers on their own
// connections and a coordinator on another.
type testCluster struct {
	t       testing.TB
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

func startClusterWith(t testing.TB, workers int, opts Options) *testCluster {
	t.Helper()
	emb, err := StartEmbedded(EmbeddedOptions{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	c := &testCluster{t: t, emb: emb, reg: catalog.New(), opts: opts}
	t.Cleanup(c.stop)
	nc, err := emb.Connect("coordinator")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	if c.coord, err = NewCoordinator(nc, c.reg, c.opts); err != nil { // makes the streams the workers wait for
		t.Fatal(err)
	}
	for i := 0; i < workers; i++ {
		c.addWorker()
	}
	return c
}

func (c *testCluster) addWorker() *Worker {
	c.t.Helper()
	nc, err := c.emb.ConnectWorker(fmt.Sprintf("worker-%d", len(c.workers)))
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
	if url := os.Getenv(workerProcessEnv); url != "" {
		os.Exit(workerProcess(url)) // a worker process of TestKilledWorkerProcesses
	}
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

// killer kills one fresh worker per search at a random moment while it
// holds a task: the worker is slowed on its tasks (50ms) and killed
// within 40ms of taking one, so the kill lands mid-task.
type killer struct {
	c       *testCluster
	rng     *rand.Rand
	victim  atomic.Value // the name of the worker to kill
	holding chan struct{}
}

func newKiller(t *testing.T, workers int, opts Options) *killer {
	k := &killer{rng: rand.New(rand.NewPCG(14, 0)), holding: make(chan struct{}, 1)}
	k.victim.Store("")
	opts.AckWait = 500 * time.Millisecond
	opts.onTask = func(w *Worker, _ bool) {
		if w.name == k.victim.Load() {
			select {
			case k.holding <- struct{}{}:
			default:
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	k.c = startClusterWith(t, workers, opts)
	return k
}

// during runs search with a new worker that is killed meanwhile.
func (k *killer) during(search func()) {
	k.victim.Store(fmt.Sprintf("worker-%d", len(k.c.workers)))
	v := k.c.addWorker()
	killed := make(chan struct{})
	go func(d time.Duration) {
		defer close(killed)
		select {
		case <-k.holding:
		case <-time.After(2 * time.Second):
		}
		time.Sleep(d)
		v.Kill()
	}(time.Duration(k.rng.IntN(40_000)) * time.Microsecond)
	search()
	<-killed
	select {
	case <-k.holding: // a token the victim left after the kill was decided
	default:
	}
}

func (k *killer) redelivered() int64 {
	var n int64
	for _, w := range k.c.workers {
		n += w.redelivered.Load()
	}
	return n
}

// searchBoth runs cfg locally, then on the cluster while a worker is
// killed, and returns both results.
func (k *killer) searchBoth(t *testing.T, cfg check.Config) (local, dist check.Result) {
	t.Helper()
	local = localSearch(t, k.c.reg, cfg)
	var err error
	k.during(func() { dist, err = k.c.coord.Search(context.Background(), cfg, nil) })
	if err != nil {
		t.Fatalf("%s %s/%s/%s: %v", cfg.Strategy, cfg.Scenario, cfg.Preset, cfg.Variant, err)
	}
	return local, dist
}

// requireRedelivered fails unless some kill hit a worker holding work
// (what, a range or a task), which was then redone elsewhere.
func (k *killer) requireRedelivered(t *testing.T, what string) {
	t.Helper()
	if k.redelivered() == 0 {
		t.Fatalf("no %s was redelivered: no kill hit a worker holding one", what)
	}
	t.Logf("%d %ss redelivered after a kill", k.redelivered(), what)
}

// A worker killed at a random moment of each search (its connection
// dropped, its range never acknowledged) changes no answer: the range is
// redelivered to a surviving worker.
func TestSwarmSurvivesAKilledWorker(t *testing.T) {
	k := newKiller(t, 2, testOptions)
	for i, cfg := range swarmConfigs(k.c.reg, 40) {
		if i%3 != 0 {
			continue // a third of the searches keeps the test short
		}
		local, dist := k.searchBoth(t, cfg)
		sameResult(t, cfg, local, dist)
	}
	k.requireRedelivered(t, "range")
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

// sameBFSAnswer compares what a distributed bfs must share with the
// local one: the verdict, the states stored (also at a violation), the
// counterexample and its length.
func sameBFSAnswer(t *testing.T, cfg check.Config, local, dist check.Result) {
	t.Helper()
	name := fmt.Sprintf("%s/%s/%s %+v %s", cfg.Scenario, cfg.Preset, cfg.Variant, cfg.Reductions, cfg.Storage)
	if dist.Verdict != local.Verdict || dist.Found != local.Found || dist.Exhaustive != local.Exhaustive || dist.Length != local.Length || dist.Error != "" {
		t.Fatalf("%s: cluster %q length %d (error %q); local %q length %d", name, dist.Verdict, dist.Length, dist.Error, local.Verdict, local.Length)
	}
	if dist.States != local.States || dist.OmissionProbability != local.OmissionProbability {
		t.Fatalf("%s: cluster %d states (omission %g); local %d (%g)", name, dist.States, dist.OmissionProbability, local.States, local.OmissionProbability)
	}
	if local.Found && !reflect.DeepEqual(dist.Counterexample, local.Counterexample) {
		t.Fatalf("%s: cluster counterexample %+v; local %+v", name, dist.Counterexample, local.Counterexample)
	}
	// The split bfs is the local one: the rest of the result is equal too.
	if !reflect.DeepEqual(dist, local) {
		t.Fatalf("%s:\ncluster %+v\n  local %+v", name, dist, local)
	}
}

// A bfs partitioned by fingerprint over three workers finds what the
// local bfs finds.
func TestBFSGivesTheLocalAnswer(t *testing.T) {
	c := startCluster(t, 3)
	for _, cfg := range checktest.BFSConfigs(c.reg) {
		local := localSearch(t, c.reg, cfg)
		dist, err := c.coord.Search(context.Background(), cfg, nil)
		if err != nil {
			t.Fatalf("%s/%s/%s: %v", cfg.Scenario, cfg.Preset, cfg.Variant, err)
		}
		sameBFSAnswer(t, cfg, local, dist)
	}
}

// A bfs the state budget stops (the next level's expansions are queued
// before the coordinator has checked the level, on the merges' counts)
// stops where the local one does.
func TestBFSStopsAtTheStateBudget(t *testing.T) {
	c := startCluster(t, 2)
	for _, states := range []int{1, 400, 5000} {
		cfg := check.Config{Scenario: "vitess-messager", Preset: "lock-level", Variant: "fixed", Params: map[string]any{"clients": 3, "iterations": 1},
			Strategy: check.BFS, Reductions: check.DefaultReductions(check.BFS), Budget: check.Budget{States: states}}
		local := localSearch(t, c.reg, cfg)
		if local.Exhaustive {
			t.Fatalf("budget %d: the local search is exhaustive: the case tests nothing", states)
		}
		dist, err := c.coord.Search(context.Background(), cfg, nil)
		if err != nil {
			t.Fatalf("budget %d: %v", states, err)
		}
		sameBFSAnswer(t, cfg, local, dist)
	}
}

// Workers of one process share one replica of a search (RunWorkers,
// StartNode): they expand and merge on it concurrently and advance it
// once, and give the local answer (under -race, make test-full, this is
// where a write to the shared replica outside Advance shows).
func TestBFSOnWorkersSharingAReplica(t *testing.T) {
	c := startClusterWith(t, 0, Options{replicas: newReplicas()})
	for range 3 {
		c.addWorker()
	}
	cfgs := checktest.BFSConfigs(c.reg)
	for i, cfg := range cfgs {
		if i%3 != 0 && !(cfg.Scenario == "vitess-messager" && cfg.Variant == "fixed") {
			continue
		}
		local := localSearch(t, c.reg, cfg)
		dist, err := c.coord.Search(context.Background(), cfg, nil)
		if err != nil {
			t.Fatalf("%s/%s/%s: %v", cfg.Scenario, cfg.Preset, cfg.Variant, err)
		}
		sameBFSAnswer(t, cfg, local, dist)
	}
}

// Workers that join mid-search make their replicas from the stored
// levels, whose partitions changed as workers were heard from (the
// first levels have one, later ones more), and the answer is still the
// local one.
func TestBFSWorkersJoiningMidSearch(t *testing.T) {
	var mu sync.Mutex
	tasks := map[*Worker]int{}
	opts := testOptions
	opts.onTask = func(w *Worker, _ bool) {
		mu.Lock()
		tasks[w]++
		mu.Unlock()
	}
	c := startClusterWith(t, 1, opts)
	cfg := check.Config{Scenario: "vitess-messager", Preset: "lock-level", Variant: "fixed", Params: map[string]any{"clients": 3, "iterations": 1},
		Strategy: check.BFS, Reductions: check.DefaultReductions(check.BFS)}
	local := localSearch(t, c.reg, cfg)
	depth := make(chan int, 1024)
	type answer struct {
		r   check.Result
		err error
	}
	done := make(chan answer, 1)
	go func() {
		r, err := c.coord.Search(context.Background(), cfg, func(p check.Progress) {
			select {
			case depth <- p.Depth:
			default:
			}
		})
		done <- answer{r, err}
	}()
	joined := map[int]*Worker{}
	var a answer
wait:
	for {
		select {
		case d := <-depth:
			if d >= 4 && len(joined) == 0 {
				joined[4] = c.addWorker()
				c.addWorker()
			}
			if d >= 12 && joined[12] == nil {
				joined[12] = c.addWorker()
			}
		case a = <-done:
			break wait
		}
	}
	if a.err != nil {
		t.Fatal(a.err)
	}
	sameBFSAnswer(t, cfg, local, a.r)
	mu.Lock()
	defer mu.Unlock()
	for at, w := range joined {
		if tasks[w] == 0 {
			t.Fatalf("the worker that joined at depth %d took no task: the test tests nothing", at)
		}
	}
	// Four workers: the partitions grew from one, to at most four.
	if p := c.coord.lastParts.Load(); p < 2 || p > 4 {
		t.Fatalf("the last level had %d partitions with %d workers", p, len(c.workers))
	}
	t.Logf("tasks by worker %v; the last level in %d partitions", slices.Collect(maps.Values(tasks)), c.coord.lastParts.Load())
}

// Under symmetry an instance carries its renaming, so its owner compares
// sleep masks in the canonical state's names as the local bfs does and
// expands a state reached again for the steps asleep the first time
// only. Expanding it again in full instead (what an instance without
// its renaming allows) took 365,868 transitions here for the local
// 172,231; the split bfs takes the local count exactly.
func TestBFSUnderSymmetryKeepsItsSleepSets(t *testing.T) {
	c := startCluster(t, 3)
	cfg := check.Config{Scenario: "vitess-messager", Preset: "lock-level", Variant: "fixed", Params: map[string]any{"clients": 3, "iterations": 1},
		Strategy: check.BFS, Reductions: check.DefaultReductions(check.BFS)}
	local := localSearch(t, c.reg, cfg)
	dist, err := c.coord.Search(context.Background(), cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	sameBFSAnswer(t, cfg, local, dist)
	if !dist.Reductions.Symmetry || !dist.Reductions.Sleep {
		t.Fatalf("reductions applied %+v, want sleep sets and symmetry", dist.Reductions)
	}
	t.Logf("%d states; transitions: cluster %d, local %d", dist.States, dist.Transitions, local.Transitions)
	if dist.Transitions != local.Transitions {
		t.Fatalf("the cluster took %d transitions, the local bfs %d", dist.Transitions, local.Transitions)
	}
}

// With exact storage (each owner keeps the canonical encodings of its
// states) a distributed bfs stores exactly the states the local exact
// bfs stores, and omits none.
func TestBFSExactGivesTheLocalAnswer(t *testing.T) {
	c := startCluster(t, 3)
	for _, cfg := range checktest.BFSConfigs(c.reg) {
		cfg.Storage = check.StorageExact
		local := localSearch(t, c.reg, cfg)
		dist, err := c.coord.Search(context.Background(), cfg, nil)
		if err != nil {
			t.Fatalf("%s/%s/%s: %v", cfg.Scenario, cfg.Preset, cfg.Variant, err)
		}
		sameBFSAnswer(t, cfg, local, dist)
		if dist.Storage != check.StorageExact || dist.OmissionProbability != 0 {
			t.Fatalf("%s/%s/%s: storage %q, omission %g", cfg.Scenario, cfg.Preset, cfg.Variant, dist.Storage, dist.OmissionProbability)
		}
	}
}

// A worker killed at a random moment of each bfs costs the task it held
// (redone from the level's data in JetStream), never the answer.
func TestBFSSurvivesAKilledWorker(t *testing.T) {
	k := newKiller(t, 2, testOptions)
	for _, cfg := range checktest.BFSConfigs(k.c.reg) {
		local, dist := k.searchBoth(t, cfg)
		sameBFSAnswer(t, cfg, local, dist)
	}
	k.requireRedelivered(t, "task")
}

// A distributed dfs, or bfs with persistent sets, is refused with an
// error naming the field.
func TestRefusalsNameTheField(t *testing.T) {
	c := startCluster(t, 0)
	base := check.Config{Scenario: "dining-philosophers", Preset: "lock-level", Variant: "buggy", Params: map[string]any{"philosophers": 3}}
	dfs := base
	dfs.Strategy = check.DFS
	por := base
	por.Strategy, por.Reductions = check.BFS, check.Reductions{POR: true, Sleep: true}
	for field, cfg := range map[string]check.Config{"strategy": dfs, "reductions.por": por} {
		_, err := c.coord.Search(context.Background(), cfg, nil)
		var fe *scenario.FieldError
		if !errors.As(err, &fe) || fe.Field != field {
			t.Errorf("%s search: error %v, want one naming %s", cfg.Strategy, err, field)
		}
	}
}

// A second process's workers join an embedded server that listens on a
// port (here: a node with no workers of its own and RunWorkers over TCP),
// and a search runs on them.
func TestNodeWithRemoteWorkers(t *testing.T) {
	reg := catalog.New()
	n, err := StartNode(reg, NodeOptions{Dir: t.TempDir(), Listen: "127.0.0.1:0", Workers: -1, Options: testOptions})
	if err != nil {
		t.Fatal(err)
	}
	defer n.Close()
	if n.ClientURL() == "" {
		t.Fatal("a listening node has no client URL")
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- RunWorkers(ctx, reg, n.ClientURL(), n.Embedded().WorkerAuth(), 2, testOptions) }()
	cfg := check.Config{Scenario: "dining-philosophers", Preset: "lock-level", Variant: "buggy", Strategy: check.Random, Seed: 1, Budget: check.Budget{Runs: 50}}
	dist, err := n.Search(context.Background(), cfg, nil)
	cancel()
	if werr := <-done; werr != nil {
		t.Fatal(werr)
	}
	if err != nil {
		t.Fatal(err)
	}
	sameResult(t, cfg, localSearch(t, reg, cfg), dist)
}
