package check_test

import (
	"testing"

	"github.com/racetrack-sim/racetrack/core/catalog"
	"github.com/racetrack-sim/racetrack/core/check"
)

// TestDFSWorkersShareThePhase: the workers of a parallel dfs share a
// phase's quota, so a task that runs while another is not running
// expands all of it (no worker idles at the phase's end while another
// still works through a quota of its own), and the next phase's quota
// is there again once the phase ends.
func TestDFSWorkersShareThePhase(t *testing.T) {
	cfg := check.Config{Scenario: "vitess-messager", Preset: "lock-level", Variant: "fixed", Strategy: check.DFS,
		Params: map[string]any{"clients": 3, "iterations": 1}, Reductions: check.DefaultReductions(check.DFS), NoShrink: true}
	x, err := check.New(catalog.New(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	x.PlanWorkers(2, nil)
	if n := x.Tasks(); n != 2 {
		t.Fatalf("%d tasks after PlanWorkers(2), want 2", n)
	}
	want := 2 * check.DFSShortQuota
	if n0, n1 := check.RunDFSTask(x, 0), check.RunDFSTask(x, 1); n0 != want || n1 != 0 {
		t.Errorf("first phase: task 0 expanded %d states and task 1 %d, want %d and 0", n0, n1, want)
	}
	if p := x.EndPhase(); p.Done {
		t.Fatalf("the search ended after one phase: %+v", p)
	}
	if n1 := check.RunDFSTask(x, 1); n1 == 0 {
		t.Errorf("second phase: task 1 expanded nothing")
	}
}
