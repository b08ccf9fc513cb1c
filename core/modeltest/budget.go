package modeltest

import (
	"testing"

	"github.com/racetrack-sim/racetrack/core/check"
	"github.com/racetrack-sim/racetrack/core/scenario"
)

// SearchWith runs the search cfg asks for (its strategy, budget,
// reductions: check.Config as a command's -config or a REST body gives
// it) and returns its result, whose Stop names the limit it reached. A
// config the checker rejects, or a search that stops on an error, fails
// t.
func SearchWith(t testing.TB, reg *scenario.Registry, cfg check.Config) check.Result {
	t.Helper()
	x, err := check.New(reg, cfg)
	if err != nil {
		t.Fatalf("%s search of %s/%s/%s: %v", cfg.Strategy, cfg.Scenario, cfg.Preset, cfg.Variant, err)
	}
	r := x.Run()
	if r.Error != "" {
		t.Fatalf("%s search of %s/%s/%s stopped: %s", cfg.Strategy, cfg.Scenario, cfg.Preset, cfg.Variant, r.Error)
	}
	return r
}

// VerifyWith runs SearchWith and fails t with the counterexample's
// replayable spec when it finds a violation. A search that ends without
// covering every schedule is logged with its verdict and the limit it
// reached ("stopped at 2,000,000 states: raise budget.states"); Exhaustive
// and Stop say so in the result.
func VerifyWith(t testing.TB, reg *scenario.Registry, cfg check.Config) check.Result {
	t.Helper()
	r := SearchWith(t, reg, cfg)
	if r.Found {
		t.Errorf("%s search of %s/%s/%s: %s violated at step %d: %s\n  %s", cfg.Strategy, cfg.Scenario, cfg.Preset, cfg.Variant,
			r.Property, r.Step, r.Violation, describe(*r.Counterexample, r.Step))
	} else if !r.Exhaustive {
		t.Logf("%s search of %s/%s/%s: %s (%s)", cfg.Strategy, cfg.Scenario, cfg.Preset, cfg.Variant, r.Verdict, r.Stop.Message)
	}
	return r
}
