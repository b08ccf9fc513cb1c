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
	x, err := check.New(catalog.New(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	r := parallel.Run(x, workers)
	if err := x.Err(); err != nil {
		t.Fatalf("%+v: %v", cfg, err)
	}
	return r
}

// The verdict, the states stored (exact storage), the transitions and
// the counterexample itself are the same for 1, 2 and 7 workers, and the
// same as stepping the explorer on one goroutine.
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
			got := search(t, cfg, w)
			if got.Verdict != want.Verdict || got.States != want.States || got.Transitions != want.Transitions || got.Length != want.Length {
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
