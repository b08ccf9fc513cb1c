package check_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/racetrack-sim/racetrack/core/catalog"
	"github.com/racetrack-sim/racetrack/core/check"
	"github.com/racetrack-sim/racetrack/core/sim"
	"github.com/racetrack-sim/racetrack/core/vitess"
)

func vitessLock(strategy, variant string, clients, iter int, red check.Reductions) check.Config {
	return check.Config{Scenario: "vitess-messager", Preset: "lock-level", Variant: variant, Strategy: strategy,
		Params: map[string]any{"clients": clients, "iterations": iter}, Property: sim.NoDeadlockName, Reductions: red, NoShrink: true}
}

// Exact storage and fingerprints store the same states (no collision at
// these sizes), with and without symmetry, and only fingerprints carry
// an omission probability.
func TestExactStorageMatchesFingerprints(t *testing.T) {
	reg := catalog.New()
	for _, cfg := range []check.Config{
		philo(check.BFS, "fixed", 3, check.Reductions{}),
		philo(check.DFS, "fixed", 3, check.Reductions{Sleep: true}),
		vitessLock(check.BFS, "fixed", 2, 1, check.Reductions{Symmetry: true}),
		vitessLock(check.DFS, "fixed", 2, 1, check.Reductions{}),
		vitessLock(check.BFS, "buggy", 2, 2, check.Reductions{Symmetry: true}),
	} {
		fp := search(t, reg, cfg)
		cfg.Storage = check.StorageExact
		ex := search(t, reg, cfg)
		if fp.States != ex.States || fp.Verdict != ex.Verdict || fp.Length != ex.Length {
			t.Errorf("%s %s %+v: fingerprints %d states %q length %d; exact %d states %q length %d",
				cfg.Scenario, cfg.Strategy, cfg.Reductions, fp.States, fp.Verdict, fp.Length, ex.States, ex.Verdict, ex.Length)
		}
		if fp.Storage != check.StorageFingerprint || fp.OmissionProbability <= 0 || fp.OmissionProbability > 1e-6 {
			t.Errorf("fingerprint storage %q, omission probability %g", fp.Storage, fp.OmissionProbability)
		}
		if ex.Storage != check.StorageExact || ex.OmissionProbability != 0 {
			t.Errorf("exact storage %q, omission probability %g", ex.Storage, ex.OmissionProbability)
		}
	}
}

func TestStorageIsValidated(t *testing.T) {
	cfg := philo(check.BFS, "fixed", 2, check.Reductions{})
	cfg.Storage = "bloom"
	if _, err := check.New(catalog.New(), cfg); err == nil || !strings.Contains(err.Error(), "storage") {
		t.Errorf("storage bloom: %v", err)
	}
	cfg.Storage, cfg.Workers = "", -1
	if _, err := check.New(catalog.New(), cfg); err == nil || !strings.Contains(err.Error(), "workers") {
		t.Errorf("workers -1: %v", err)
	}
}

// Under symmetry, hashing only the renamings that sort the processes'
// signatures least keeps the key canonical: the same states as the least
// hash over every renaming, and as exact storage (the least encoding),
// with the same verdicts and shortest counterexamples.
// The vitess model tells hash its clients' own state.
var _ check.ProcSignatures = (*vitess.Manager)(nil)

func TestSignaturePruningKeepsTheKeyCanonical(t *testing.T) {
	reg := catalog.New()
	sym := check.Reductions{Symmetry: true}
	cfgs := []check.Config{
		vitessLock(check.BFS, "buggy", 3, 2, sym),
		vitessLock(check.BFS, "buggy", 3, 2, check.Reductions{Sleep: true, Symmetry: true}),
		vitessLock(check.DFS, "buggy", 3, 2, sym),
		philo(check.BFS, "fixed", 4, sym),
		philo(check.BFS, "buggy", 4, sym),
	}
	if !testing.Short() {
		cfgs = append(cfgs, vitessLock(check.BFS, "fixed", 3, 1, sym))
	}
	for _, cfg := range cfgs {
		pruned := search(t, reg, cfg)
		restore := check.SetSignaturePruning(false)
		all := search(t, reg, cfg)
		restore()
		cfg.Storage = check.StorageExact
		exact := search(t, reg, cfg)
		t.Logf("%s %s %s %+v: %d states pruned, %d every renaming, %d exact", cfg.Scenario, cfg.Variant, cfg.Strategy, cfg.Reductions, pruned.States, all.States, exact.States)
		for _, o := range []struct {
			name string
			r    check.Result
		}{{"every renaming", all}, {"exact", exact}} {
			if pruned.States != o.r.States || pruned.Verdict != o.r.Verdict || pruned.Length != o.r.Length {
				t.Errorf("%s %s %s: pruned %d states %q length %d; %s %d states %q length %d", cfg.Scenario, cfg.Variant, cfg.Strategy,
					pruned.States, pruned.Verdict, pruned.Length, o.name, o.r.States, o.r.Verdict, o.r.Length)
			}
		}
	}
}

// Symmetric hashing computes and compares the signatures of the
// processes some renaming moves, and only those: the vitess clients (not
// the poller, the vstream, Close or the send goroutines), every
// philosopher of the buggy (symmetric) table. Too few would leave every
// renaming tied (each hashed: slower, and no test of the states would
// notice); too many would cost signatures of processes no renaming
// moves.
func TestSymmetricHashingComparesTheMovedProcesses(t *testing.T) {
	reg := catalog.New()
	sym := check.Reductions{Symmetry: true}
	for _, c := range []struct {
		cfg   check.Config
		moved int
	}{
		{vitessLock(check.DFS, "fixed", 3, 1, sym), 3},
		{vitessLock(check.DFS, "fixed", 4, 1, sym), 4},
		{philo(check.BFS, "buggy", 4, sym), 4},
	} {
		x, err := check.New(reg, c.cfg)
		if err != nil {
			t.Fatal(err)
		}
		moved := check.MovedProcs(x)
		if len(moved) != c.moved || !slices.IsSorted(moved) || len(slices.Compact(slices.Clone(moved))) != len(moved) {
			t.Errorf("%s %v: moved %v, want %d distinct processes in order", c.cfg.Scenario, c.cfg.Params, moved, c.moved)
		}
	}
}
