package check_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/racetrack-sim/racetrack/core/catalog"
	"github.com/racetrack-sim/racetrack/core/check"
	"github.com/racetrack-sim/racetrack/core/scenario"
	"github.com/racetrack-sim/racetrack/core/sim"
)

func search(t *testing.T, reg *scenario.Registry, cfg check.Config) check.Result {
	t.Helper()
	x, err := check.New(reg, cfg)
	if err != nil {
		t.Fatalf("check.New(%+v): %v", cfg, err)
	}
	r := x.Run()
	if err := x.Err(); err != nil {
		t.Fatalf("search %s on %s/%s/%s: %v", cfg.Strategy, cfg.Scenario, cfg.Preset, cfg.Variant, err)
	}
	return r
}

// replays checks that a counterexample replays to the violation reported.
func replays(t *testing.T, reg *scenario.Registry, r check.Result) {
	t.Helper()
	if r.Counterexample == nil {
		t.Fatalf("no counterexample in %+v", r)
	}
	run, err := reg.Execute(*r.Counterexample, scenario.Options{})
	if err != nil {
		t.Fatalf("replay: %v", err)
	}
	for _, v := range run.World.Violations() {
		if v.Property == r.Property {
			if v.Message != r.Violation || v.Step != r.Step {
				t.Fatalf("replay violates %s at step %d (%s); search reported step %d (%s)", v.Property, v.Step, v.Message, r.Step, r.Violation)
			}
			return
		}
	}
	t.Fatalf("replay of %v does not violate %s", r.Counterexample.Schedule, r.Property)
}

// With think times of up to 20 ms at 1 ms resolution, the five
// philosophers of the timed preset are almost never hungry at the same
// instant (no deadlock in 20000 seeds); a swarm over think times below the
// resolution makes them all hungry at once, and the deadlock appears.
func TestRandomSwarmFindsTimedPhilosophersDeadlock(t *testing.T) {
	reg := catalog.New()
	r := search(t, reg, check.Config{Scenario: "dining-philosophers", Preset: "table", Variant: "buggy",
		Property: sim.NoDeadlockName, Strategy: check.Random, Seed: 1,
		ParamRanges: map[string]check.ParamRange{"thinkTime": {Min: 0, Max: 2}}})
	if !r.Found || r.Verdict != check.VerdictViolation {
		t.Fatalf("random found nothing in %d runs: %+v", r.Runs, r)
	}
	t.Logf("random: found after %d runs (incl. shrinking), seed %d, schedule %d (from %d): %s",
		r.Runs, r.Counterexample.Seed, r.Length, r.OriginalLength, r.Violation)
	replays(t, reg, r)
}

func TestRandomFindsUntimedPhilosophersDeadlock(t *testing.T) {
	reg := catalog.New()
	r := search(t, reg, check.Config{Scenario: "dining-philosophers", Preset: "lock-level", Variant: "buggy",
		Property: sim.NoDeadlockName, Strategy: check.Random, Seed: 1})
	if !r.Found {
		t.Fatalf("random found nothing in %d runs", r.Runs)
	}
	t.Logf("random lock-level: %d runs, schedule %d (from %d): %s", r.Runs, r.Length, r.OriginalLength, r.Violation)
	replays(t, reg, r)
}

func TestRandomFindsNothingOnFixedPhilosophers(t *testing.T) {
	runs := 300
	if testing.Short() {
		runs = 50
	}
	r := search(t, catalog.New(), check.Config{Scenario: "dining-philosophers", Preset: "table", Variant: "fixed",
		Strategy: check.Random, Seed: 1, Budget: check.Budget{Runs: runs}})
	if r.Found || r.Verdict != check.VerdictNone || r.Runs != runs {
		t.Fatalf("fixed philosophers: %+v", r)
	}
}

func TestConfigErrorsNameTheField(t *testing.T) {
	reg := catalog.New()
	for _, tc := range []struct {
		cfg   check.Config
		field string
	}{
		{check.Config{Scenario: "dining-philosophers", Strategy: "bogo"}, "strategy"},
		{check.Config{Scenario: "nope", Strategy: check.Random}, "scenario"},
		{check.Config{Scenario: "dining-philosophers", Strategy: check.Random, Property: "liveness"}, "property"},
		{check.Config{Scenario: "dining-philosophers", Strategy: check.Random, Budget: check.Budget{Runs: -1}}, "budget.runs"},
		{check.Config{Scenario: "dining-philosophers", Strategy: check.Random, ParamRanges: map[string]check.ParamRange{"forks": {Min: 1, Max: 2}}}, "paramRanges.forks"},
		{check.Config{Scenario: "dining-philosophers", Strategy: check.Random, ParamRanges: map[string]check.ParamRange{"philosophers": {Values: []any{int64(99)}}}}, "paramRanges.philosophers"},
	} {
		_, err := check.New(reg, tc.cfg)
		var fe *scenario.FieldError
		if !errors.As(err, &fe) || fe.Field != tc.field {
			t.Errorf("New(%+v) = %v; want an error naming %s", tc.cfg, err, tc.field)
		}
	}
}

// TestConfigReportsEveryRejectedField: several bad fields, one error each,
// in the order they are checked.
func TestConfigReportsEveryRejectedField(t *testing.T) {
	_, err := check.New(catalog.New(), check.Config{Scenario: "dining-philosophers", Preset: "x", Strategy: "bogo", Property: "liveness",
		Budget: check.Budget{States: -2, Runs: -1}, Params: map[string]any{"philosophers": 99}})
	var got []string
	for _, fe := range scenario.AllFieldErrors(err) {
		got = append(got, fe.Field)
	}
	want := "strategy budget.states budget.runs preset params.philosophers property"
	if strings.Join(got, " ") != want {
		t.Fatalf("fields %q, want %q (%v)", got, want, err)
	}
}
