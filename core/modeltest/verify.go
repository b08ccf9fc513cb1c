package modeltest

import (
	"testing"

	"github.com/racetrack-sim/racetrack/core/check"
	"github.com/racetrack-sim/racetrack/core/scenario"
)

// Search runs a search of strategy over spec's scenario, preset, variant
// and parameters for property ("" = any), with the strategy's default
// reductions and budget. A search that stops on an error fails t.
func Search(t testing.TB, reg *scenario.Registry, spec scenario.RunSpec, strategy, property string) check.Result {
	t.Helper()
	x, err := check.New(reg, check.Config{Scenario: spec.Scenario, Preset: spec.Preset, Variant: spec.Variant, Params: spec.Params,
		Property: property, Strategy: strategy, Seed: spec.Seed, Reductions: check.DefaultReductions(strategy)})
	if err != nil {
		t.Fatalf("%s search of %s: %v", strategy, Replay(spec), err)
	}
	r := x.Run()
	if r.Error != "" {
		t.Fatalf("%s search of %s stopped: %s", strategy, Replay(spec), r.Error)
	}
	return r
}

// Verify searches spec with strategy for a violation of any property and
// fails t with the counterexample's replayable spec and a link to its
// violating step when it finds one. It returns the result (for bfs and
// dfs, Exhaustive says whether every schedule was covered).
func Verify(t testing.TB, reg *scenario.Registry, spec scenario.RunSpec, strategy string) check.Result {
	t.Helper()
	r := Search(t, reg, spec, strategy, "")
	if r.Found {
		t.Errorf("%s search of %s/%s/%s: %s violated at step %d: %s\n  %s", strategy, spec.Scenario, spec.Preset, spec.Variant,
			r.Property, r.Step, r.Violation, describe(*r.Counterexample, r.Step))
	}
	return r
}
