package vitess_test

import (
	"fmt"
	"testing"

	"github.com/racetrack-sim/racetrack/core/check"
	"github.com/racetrack-sim/racetrack/core/sim"
	"github.com/racetrack-sim/racetrack/core/vitess"
)

// reductionCase is one search compared with the unreduced bfs of the
// same configuration.
type reductionCase struct {
	strategy string
	red      check.Reductions
	// sameStates: the reduction visits every state (sleep sets), so the
	// states stored must be the same too.
	sameStates bool
	// shortest: the search is a bfs whose reductions keep shortest
	// counterexamples.
	shortest bool
}

var reductionCases = []reductionCase{
	{check.BFS, check.Reductions{Sleep: true}, true, true},
	{check.BFS, check.Reductions{Sleep: true, Symmetry: true}, false, true},
	{check.BFS, check.Reductions{Sleep: true, POR: true}, false, false},
	{check.DFS, check.Reductions{Sleep: true}, true, false},
	{check.DFS, check.Reductions{Sleep: true, POR: true, Symmetry: true}, false, false},
	{check.DFS, check.Reductions{Sleep: true, DPOR: true}, false, false},
}

// dporBudget bounds the states DPOR visits (it stores none and revisits
// many): within it, it must find every deadlock the unreduced search
// finds, and find none where there is none.
const dporBudget = 100_000

type size struct{ clients, iterations int }

func reductionSizes() []size {
	if testing.Short() {
		return []size{{1, 2}, {2, 1}}
	}
	return []size{{1, 2}, {2, 1}, {3, 1}}
}

func lockLevel(strategy, variant string, s size, red check.Reductions) check.Config {
	return check.Config{Scenario: vitess.ID, Preset: vitess.PresetLockLevel, Variant: variant, Strategy: strategy,
		Params: map[string]any{"clients": s.clients, "iterations": s.iterations}, Property: sim.NoDeadlockName,
		Reductions: red, Storage: check.StorageExact, NoShrink: true}
}

func runSearch(cfg check.Config) (check.Result, error) {
	x, err := check.New(reg, cfg)
	if err != nil {
		return check.Result{}, err
	}
	r := x.Run()
	return r, x.Err()
}

// mismatches compares every reduction with the unreduced bfs on every
// variant and size, and describes each difference.
func mismatches(t *testing.T, stopAtFirst bool) []string {
	t.Helper()
	var out []string
	for _, variant := range []string{"buggy", "fixed"} {
		for _, s := range reductionSizes() {
			base := unreduced(t, variant, s)
			for _, c := range reductionCases {
				cfg := lockLevel(c.strategy, variant, s, c.red)
				if c.red.DPOR {
					cfg.Budget.States = dporBudget
				}
				r, err := runSearch(cfg)
				if err != nil {
					t.Fatal(err)
				}
				if !r.Reductions.Sleep {
					t.Fatalf("%s %+v: sleep sets not applied to vitess (%+v)", c.strategy, c.red, r.Reductions)
				}
				where := fmt.Sprintf("%s %v %s %+v", variant, s, c.strategy, c.red)
				switch {
				case r.Found != base.Found || (r.Exhaustive && !base.Exhaustive):
					out = append(out, fmt.Sprintf("%s: %q, unreduced bfs %q", where, r.Verdict, base.Verdict))
				case c.shortest && r.Length != base.Length:
					out = append(out, fmt.Sprintf("%s: counterexample of %d choices, unreduced bfs %d", where, r.Length, base.Length))
				case c.sameStates && r.Exhaustive && r.States != base.States:
					out = append(out, fmt.Sprintf("%s: %d states, unreduced bfs %d", where, r.States, base.States))
				}
				if stopAtFirst && len(out) > 0 {
					return out
				}
			}
		}
	}
	return out
}

// unreducedResults caches the unreduced searches, which use no
// declaration.
var unreducedResults = map[string]check.Result{}

func unreduced(t *testing.T, variant string, s size) check.Result {
	key := fmt.Sprint(variant, s)
	if r, ok := unreducedResults[key]; ok {
		return r
	}
	r, err := runSearch(lockLevel(check.BFS, variant, s, check.Reductions{}))
	if err != nil {
		t.Fatal(err)
	}
	unreducedResults[key] = r
	return r
}

// Each reduction, with the model's access declarations, finds the same
// verdict as the unreduced bfs on every variant at small sizes; bfs with
// sleep sets and symmetry finds the same shortest deadlock, and sleep sets
// visit every state.
func TestReductionsAgreeWithUnreducedSearch(t *testing.T) {
	for _, m := range mismatches(t, false) {
		t.Error(m)
	}
}

// Removing one declaration that orders two steps which can be enabled
// together makes some reduction disagree with the unreduced search.
func TestMutantDeclarationsAreCaught(t *testing.T) {
	for _, mu := range vitess.Mutants {
		restore := mu.Apply()
		found := mismatches(t, true)
		restore()
		if len(found) == 0 {
			t.Errorf("mutant %q: every reduction agrees with the unreduced search", mu.Name)
			continue
		}
		t.Logf("mutant %q caught: %s", mu.Name, found[0])
	}
}
