package parallel_test

import (
	"slices"
	"testing"

	"github.com/racetrack-sim/racetrack/core/catalog"
	"github.com/racetrack-sim/racetrack/core/check"
	"github.com/racetrack-sim/racetrack/core/sim"
	"github.com/racetrack-sim/racetrack/internal/parallel"
)

func search(t *testing.T, cfg check.Config, workers int) check.Result {
	t.Helper()
	r, _ := searchOn(t, cfg, workers)
	return r
}

// searchOn is search, also returning the goroutines the result was
// computed on (check.Explorer.Workers).
func searchOn(t *testing.T, cfg check.Config, workers int) (check.Result, int) {
	t.Helper()
	x, err := check.New(catalog.New(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	r := parallel.Run(x, workers)
	if err := x.Err(); err != nil {
		t.Fatalf("%+v: %v", cfg, err)
	}
	return r, x.Workers()
}

// The verdict, the states stored (exact storage), the transitions and
// the counterexample itself are the same for 1, 2 and 7 workers, and the
// same as stepping the explorer on one goroutine. The transitions of a
// dfs that verifies on several workers are the exception: which states
// are reached again with a smaller sleep set depends on the order.
func TestResultsDoNotDependOnWorkers(t *testing.T) {
	configs := []check.Config{
		{Scenario: "dining-philosophers", Preset: "lock-level", Variant: "buggy", Params: map[string]any{"philosophers": 4}},
		{Scenario: "dining-philosophers", Preset: "lock-level", Variant: "fixed", Params: map[string]any{"philosophers": 4},
			Reductions: check.Reductions{Sleep: true, POR: true}},
		{Scenario: "vitess-messager", Preset: "lock-level", Variant: "buggy", Params: map[string]any{"clients": 3, "iterations": 2},
			Reductions: check.Reductions{Symmetry: true}},
		{Scenario: "vitess-messager", Preset: "lock-level", Variant: "fixed", Params: map[string]any{"clients": 2, "iterations": 1},
			Reductions: check.DefaultReductions(check.BFS)},
	}
	var all []check.Config
	for _, cfg := range configs {
		cfg.Property, cfg.Storage, cfg.NoShrink = sim.NoDeadlockName, check.StorageExact, true
		for _, strategy := range []string{check.BFS, check.DFS} {
			cfg.Strategy = strategy
			all = append(all, cfg)
		}
	}
	// dfs with its default reductions (persistent sets consult the
	// visited set while expanding) and fingerprints.
	all = append(all, check.Config{Scenario: "vitess-messager", Preset: "lock-level", Variant: "fixed", Strategy: check.DFS,
		Params: map[string]any{"clients": 3, "iterations": 1}, Reductions: check.DefaultReductions(check.DFS), NoShrink: true})
	for _, cfg := range all {
		x, err := check.New(catalog.New(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		want := x.Run()
		t.Logf("%s %s %v: %s, %d states, length %d", cfg.Strategy, cfg.Scenario, cfg.Params, want.Verdict, want.States, want.Length)
		for _, w := range []int{1, 2, 7} {
			got, ran := searchOn(t, cfg, w)
			transitions := got.Transitions
			if cfg.Strategy == check.DFS && ran > 1 {
				transitions = want.Transitions
			}
			if got.Verdict != want.Verdict || got.States != want.States || transitions != want.Transitions || got.Length != want.Length {
				t.Errorf("%s %v, %d workers: %s, %d states, %d transitions, length %d; one goroutine: %s, %d, %d, %d",
					cfg.Scenario, cfg.Params, w, got.Verdict, got.States, got.Transitions, got.Length, want.Verdict, want.States, want.Transitions, want.Length)
			}
			if want.Found && !slices.Equal(got.Counterexample.Schedule, want.Counterexample.Schedule) {
				t.Errorf("%s, %d workers: counterexample %v, one goroutine %v", cfg.Scenario, w, got.Counterexample.Schedule, want.Counterexample.Schedule)
			}
		}
	}
}

func TestWorkersDefaultsToTheCPUs(t *testing.T) {
	if parallel.Workers(0) < 1 || parallel.Workers(3) != 3 {
		t.Errorf("Workers(0) = %d, Workers(3) = %d", parallel.Workers(0), parallel.Workers(3))
	}
}

// A dfs split among workers stores the states the one-worker dfs stores
// when it runs to its end, and says it ran on them; when a worker meets
// a violation, a state or depth bound, it starts over on one goroutine
// and the result is the one-worker result, transitions and
// counterexample included. Stepping it on the caller's goroutine after
// PlanWorkers runs the same phases.
func TestParallelDFS(t *testing.T) {
	vitess := func(variant string, clients, iterations int) check.Config {
		return check.Config{Scenario: "vitess-messager", Preset: "lock-level", Variant: variant, Strategy: check.DFS,
			Params: map[string]any{"clients": clients, "iterations": iterations}, Reductions: check.DefaultReductions(check.DFS), NoShrink: true}
	}
	philo := check.Config{Scenario: "dining-philosophers", Preset: "lock-level", Variant: "fixed", Strategy: check.DFS,
		Params: map[string]any{"philosophers": 5}, Reductions: check.Reductions{Sleep: true, Symmetry: true}, Storage: check.StorageExact}
	states, depth := vitess("fixed", 3, 1), vitess("fixed", 3, 1)
	states.Budget.States = 5000
	depth.Budget.Depth = 12
	// A timed preset, with values drawn while it is set up (several
	// initial states) and within steps.
	timed := check.Config{Scenario: "vitess-messager", Preset: "unsubscribe-vs-poller", Variant: "buggy", Strategy: check.DFS,
		ValueSamples: 3, Budget: check.Budget{States: 300_000}, Reductions: check.DefaultReductions(check.DFS), NoShrink: true}
	cases := []struct {
		name     string
		cfg      check.Config
		parallel bool // the result is the split search's own
	}{
		{"vitess fixed C=3 ITER=1", vitess("fixed", 3, 1), true},
		{"philosophers N=5, exact storage", philo, true},
		{"vitess buggy C=3 ITER=2 (violation)", vitess("buggy", 3, 2), false},
		{"state bound", states, false},
		{"depth bound", depth, false},
		{"timed vitess buggy, sampled values (violation)", timed, false},
	}
	for _, c := range cases {
		x, err := check.New(catalog.New(), c.cfg)
		if err != nil {
			t.Fatal(err)
		}
		want := x.Run()
		if x.Workers() != 1 {
			t.Fatalf("%s: Run on one goroutine says %d workers", c.name, x.Workers())
		}
		t.Logf("%s: %s, %d states, %d transitions, length %d", c.name, want.Verdict, want.States, want.Transitions, want.Length)
		for _, w := range []int{2, 3} {
			got, ran := searchOn(t, c.cfg, w)
			wantRan := 1
			if c.parallel {
				wantRan = w
			}
			if ran != wantRan {
				t.Errorf("%s, %d workers: ran on %d, want %d", c.name, w, ran, wantRan)
			}
			if got.Verdict != want.Verdict || got.States != want.States || got.Length != want.Length || got.Exhaustive != want.Exhaustive {
				t.Errorf("%s, %d workers: %s, %d states, length %d; one worker: %s, %d, %d", c.name, w, got.Verdict, got.States, got.Length, want.Verdict, want.States, want.Length)
			}
			if !c.parallel && got.Transitions != want.Transitions {
				t.Errorf("%s, %d workers: %d transitions after starting over, one worker %d", c.name, w, got.Transitions, want.Transitions)
			}
			if want.Found && !slices.Equal(got.Counterexample.Schedule, want.Counterexample.Schedule) {
				t.Errorf("%s, %d workers: counterexample %v, one worker %v", c.name, w, got.Counterexample.Schedule, want.Counterexample.Schedule)
			}
		}
		// The same phases on the caller's goroutine.
		x, err = check.New(catalog.New(), c.cfg)
		if err != nil {
			t.Fatal(err)
		}
		x.PlanWorkers(3, nil)
		if got := x.Run(); got.States != want.States || got.Verdict != want.Verdict || (c.parallel != (x.Workers() == 3)) {
			t.Errorf("%s, stepped after PlanWorkers(3): %s, %d states on %d workers; one worker: %s, %d", c.name, got.Verdict, got.States, x.Workers(), want.Verdict, want.States)
		}
		// Progress says when its counts are a rerun's (the page labels
		// them rather than show the bar falling back).
		if x.Progress().Rerun == c.parallel {
			t.Errorf("%s, after PlanWorkers(3): progress says rerun %v", c.name, x.Progress().Rerun)
		}
	}
}

// A dfs with partial-order reduction stays on one goroutine: its reduced
// state space depends on the order states are stored in.
func TestDFSWithPartialOrderReductionRunsOnOne(t *testing.T) {
	cfg := check.Config{Scenario: "dining-philosophers", Preset: "lock-level", Variant: "fixed", Strategy: check.DFS,
		Params: map[string]any{"philosophers": 5}, Reductions: check.DefaultReductions(check.DFS)}
	r, ran := searchOn(t, cfg, 2)
	if !r.Reductions.POR || ran != 1 {
		t.Errorf("dfs with %+v ran on %d workers, want 1 (partial-order reduction applied: %v)", r.Reductions, ran, r.Reductions.POR)
	}
}
