package modeltest_test

import (
	"testing"

	"github.com/racetrack-sim/racetrack/core/catalog"
	"github.com/racetrack-sim/racetrack/core/check"
	"github.com/racetrack-sim/racetrack/core/modeltest"
)

// The budget a test gives is the one the search runs with, and the
// result says that it stopped there.
func TestSearchWithHonoursTheBudget(t *testing.T) {
	r := modeltest.VerifyWith(t, catalog.New(), check.Config{Scenario: "vitess-messager", Preset: "lock-level", Variant: "fixed",
		Strategy: check.BFS, Budget: check.Budget{States: 300}, Reductions: check.DefaultReductions(check.BFS)})
	if r.Exhaustive || r.Bounds.States != 300 || r.Stop.Reason != check.StopStates || r.Stop.Message != "stopped at 300 states: raise budget.states" {
		t.Fatalf("exhaustive %v, bounds %+v, stop %+v; want the 300-state budget reached", r.Exhaustive, r.Bounds, r.Stop)
	}
	found := modeltest.SearchWith(t, catalog.New(), check.Config{Scenario: "vitess-messager", Preset: "lock-level", Strategy: check.BFS, Budget: check.Budget{States: 100_000}})
	if !found.Found || found.Property != "no-deadlock" || found.Stop.Reason != check.StopFound {
		t.Fatalf("buggy lock-level: found %v (%s), stop %+v; want no-deadlock found", found.Found, found.Property, found.Stop)
	}
}
