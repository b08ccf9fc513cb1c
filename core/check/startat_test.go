package check_test

import (
	"errors"
	"testing"

	"github.com/racetrack-sim/racetrack/core/catalog"
	"github.com/racetrack-sim/racetrack/core/check"
	"github.com/racetrack-sim/racetrack/core/scenario"
)

// A search split into seed ranges [lo, hi) (Budget.Runs = hi, StartAt(lo))
// finds its first violation at the run the whole search finds it at, with
// the same counterexample, for random and for pct (whose calibration must
// not move with the range).
func TestStartAtSplitsRunsWithTheSameFirstViolation(t *testing.T) {
	reg := catalog.New()
	for _, strategy := range []string{check.Random, check.PCT} {
		cfg := check.Config{Scenario: "vitess-messager", Preset: "churn", Variant: "buggy", Strategy: strategy, Seed: 5, NoShrink: true, Budget: check.Budget{Runs: 400}}
		whole := search(t, reg, cfg)
		if !whole.Found {
			t.Fatalf("%s: the whole search finds nothing in %d runs", strategy, whole.Runs)
		}
		first := whole.Runs - 1
		const size = 7
		var got *check.Result
		for lo := 0; lo < cfg.Budget.Runs && got == nil; lo += size {
			part := cfg
			part.Budget.Runs = min(lo+size, cfg.Budget.Runs)
			x, err := check.New(reg, part)
			if err != nil {
				t.Fatal(err)
			}
			if err := x.StartAt(lo); err != nil {
				t.Fatal(err)
			}
			if r := x.Run(); r.Found {
				got = &r
			}
		}
		if got == nil {
			t.Fatalf("%s: no range finds the violation of run %d", strategy, first)
		}
		if got.Runs-1 != first || got.Counterexample.Seed != whole.Counterexample.Seed || got.Length != whole.Length || got.Violation != whole.Violation {
			t.Fatalf("%s: ranges find run %d (seed %d, length %d, %q); the whole search run %d (seed %d, length %d, %q)", strategy,
				got.Runs-1, got.Counterexample.Seed, got.Length, got.Violation, first, whole.Counterexample.Seed, whole.Length, whole.Violation)
		}
		// A range that starts after the first violation skips it.
		after := cfg
		after.Budget.Runs = first + 1 + size
		x, err := check.New(reg, after)
		if err != nil {
			t.Fatal(err)
		}
		if err := x.StartAt(first + 1); err != nil {
			t.Fatal(err)
		}
		if r := x.Run(); r.Found && r.Runs-1 <= first {
			t.Fatalf("%s: range [%d, %d) reports run %d", strategy, first+1, after.Budget.Runs, r.Runs-1)
		}
	}
}

func TestStartAtRejectsBadUse(t *testing.T) {
	reg := catalog.New()
	x, err := check.New(reg, check.Config{Scenario: "dining-philosophers", Preset: "lock-level", Strategy: check.BFS})
	if err != nil {
		t.Fatal(err)
	}
	if err := x.StartAt(0); !errors.Is(err, check.ErrUnsupported) {
		t.Fatalf("StartAt on bfs: %v, want ErrUnsupported", err)
	}
	x, err = check.New(reg, check.Config{Scenario: "dining-philosophers", Preset: "lock-level", Strategy: check.Random, Budget: check.Budget{Runs: 10}})
	if err != nil {
		t.Fatal(err)
	}
	var fe *scenario.FieldError
	if err := x.StartAt(11); !errors.As(err, &fe) || fe.Field != "budget.runs" {
		t.Fatalf("StartAt(11) of 10 runs: %v, want a budget.runs field error", err)
	}
	x.Step(1)
	if err := x.StartAt(1); err == nil {
		t.Fatal("StartAt after Step: no error")
	}
}
