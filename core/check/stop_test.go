package check_test

import (
	"testing"

	"github.com/racetrack-sim/racetrack/core/catalog"
	"github.com/racetrack-sim/racetrack/core/check"
	"github.com/racetrack-sim/racetrack/core/scenario"
)

// Every way a search ends names its reason, and a limit its value and
// the field that raises it.
func TestResultNamesItsStopReason(t *testing.T) {
	reg := catalog.New()
	cases := []struct {
		name  string
		cfg   check.Config
		want  check.Stop
		found bool
	}{
		{"states budget", check.Config{Scenario: "vitess-messager", Preset: "lock-level", Variant: "fixed", Strategy: check.BFS, Budget: check.Budget{States: 200}},
			check.Stop{Reason: check.StopStates, Limit: 200, Raise: "budget.states", Message: "stopped at 200 states: raise budget.states"}, false},
		{"runs budget", check.Config{Scenario: "dining-philosophers", Variant: "fixed", Strategy: check.Random, Budget: check.Budget{Runs: 1500}},
			check.Stop{Reason: check.StopRuns, Limit: 1500, Raise: "budget.runs", Message: "stopped after 1,500 runs: raise budget.runs"}, false},
		{"covered", check.Config{Scenario: "dining-philosophers", Preset: "lock-level", Variant: "fixed", Strategy: check.DFS},
			check.Stop{Reason: check.StopCovered, Message: "covered every schedule within its bounds"}, false},
		{"depth", check.Config{Scenario: "dining-philosophers", Preset: "lock-level", Variant: "fixed", Strategy: check.BFS, Budget: check.Budget{Depth: 3}},
			check.Stop{Reason: check.StopDepth, Limit: 3, Raise: "budget.depth", Message: "cut at depth 3 on some schedules: raise budget.depth"}, false},
		{"found", check.Config{Scenario: "vitess-messager", Preset: "lock-level", Strategy: check.BFS, NoShrink: true},
			check.Stop{Reason: check.StopFound, Message: "stopped at the first counterexample"}, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			x, err := check.New(reg, c.cfg)
			if err != nil {
				t.Fatal(err)
			}
			if got := x.Result().Stop; got != (check.Stop{}) {
				t.Fatalf("before the search ran: stop %+v, want none", got)
			}
			r := x.Run()
			if r.Found != c.found || r.Stop != c.want {
				t.Fatalf("found %v, stop %+v (verdict %q); want found %v, stop %+v", r.Found, r.Stop, r.Verdict, c.found, c.want)
			}
			if got := check.FinalStop(check.Result{Strategy: r.Strategy, Bounds: r.Bounds, Verdict: r.Verdict, Found: r.Found, Exhaustive: r.Exhaustive}); got != c.want {
				t.Fatalf("FinalStop of the result without its stop: %+v, want %+v", got, c.want)
			}
		})
	}
}

func TestLimitStopSaysTheLimitAndTheField(t *testing.T) {
	if got := check.LimitStop(check.StopStates, 2_000_000).Message; got != "stopped at 2,000,000 states: raise budget.states" {
		t.Fatalf("states: %q", got)
	}
	if got := check.LimitStop(check.StopSeconds, 30).Message; got != "stopped at 30s: raise budget.seconds" {
		t.Fatalf("seconds: %q", got)
	}
	if got := check.LimitStop(check.StopCancel, 0); got.Reason != check.StopCancel || got.Raise != "" {
		t.Fatalf("cancel: %+v", got)
	}
	for n, want := range map[int64]string{0: "0", 999: "999", 1000: "1,000", -1234567: "-1,234,567"} {
		if got := check.Thousands(n); got != want {
			t.Fatalf("Thousands(%d) = %q, want %q", n, got, want)
		}
	}
}

// A lowered states budget is the one the search stops at; a search that
// has expanded a state, or another strategy, keeps its budget.
func TestLowerStatesIsTheBudgetTheSearchStopsAt(t *testing.T) {
	reg := catalog.New()
	x, err := check.New(reg, check.Config{Scenario: "vitess-messager", Preset: "lock-level", Variant: "fixed", Strategy: check.BFS})
	if err != nil {
		t.Fatal(err)
	}
	if err := x.LowerStates(x.Config().Budget.States + 1); err == nil {
		t.Fatal("raising the budget was accepted")
	}
	if err := x.LowerStates(250); err != nil {
		t.Fatal(err)
	}
	r := x.Run()
	if r.Bounds.States != 250 || r.Stop.Limit != 250 || r.Stop.Reason != check.StopStates {
		t.Fatalf("bounds %+v, stop %+v, %d states; want the lowered budget of 250", r.Bounds, r.Stop, r.States)
	}
	if err := x.LowerStates(100); err == nil {
		t.Fatal("a finished search's budget was lowered")
	}
	rnd, err := check.New(reg, check.Config{Scenario: "vitess-messager", Strategy: check.Random, Budget: check.Budget{Runs: 3}})
	if err != nil {
		t.Fatal(err)
	}
	if err := rnd.LowerStates(10); err == nil {
		t.Fatal("random took a states budget")
	}
}

// A seed above the largest a spec holds is refused, naming the field,
// not wrapped into another seed.
func TestConfigRefusesASeedTooLarge(t *testing.T) {
	_, err := check.New(catalog.New(), check.Config{Scenario: "dining-philosophers", Strategy: check.Random, Seed: scenario.MaxSeed + 1})
	fes := scenario.AllFieldErrors(err)
	if len(fes) != 1 || fes[0].Field != "seed" {
		t.Fatalf("seed MaxSeed+1: %v, want one error naming seed", err)
	}
}
