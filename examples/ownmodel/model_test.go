package ownmodel_test

import (
	"strings"
	"testing"

	"github.com/racetrack-sim/racetrack/core/check"
	"github.com/racetrack-sim/racetrack/core/modeltest"
	"github.com/racetrack-sim/racetrack/core/scenario"

	"github.com/racetrack-sim/racetrack/examples/ownmodel"
)

var reg = scenario.NewRegistry(ownmodel.Scenario())

func spec(variant ownmodel.Variant) scenario.RunSpec {
	return scenario.RunSpec{Scenario: ownmodel.Scenario().ID, Variant: string(variant)}
}

// TestUnfencedWriteClobbers: random schedules find the stale write at
// the rate measured over seeds 1-200, and breadth-first search finds the
// shortest one: client1 checks its lease, the lease expires, client2 is
// granted token 2 and writes, and client1, after its 3 steps of pause,
// writes with token 1 at the eighth step (index 7).
func TestUnfencedWriteClobbers(t *testing.T) {
	modeltest.Sweep(t, reg, spec(ownmodel.Unfenced), modeltest.Seeds(1, 200)).
		Expect(t, modeltest.Rate{K: 60, N: 200, First: 1}, ownmodel.NoStaleWrite)
	r := modeltest.Search(t, reg, spec(ownmodel.Unfenced), check.BFS, ownmodel.NoStaleWrite)
	if !r.Found || r.Step != 7 || !strings.Contains(r.Violation, "client1's write (token 1) overwrote client2's (token 2)") {
		t.Fatalf("bfs found %v at step %d: %q", r.Found, r.Step, r.Violation)
	}
	run, err := reg.Execute(*r.Counterexample, scenario.Options{})
	if err != nil || !run.World.Violated(ownmodel.NoStaleWrite) {
		t.Fatalf("the counterexample does not replay: %v", err)
	}
}

// TestFencingHolds: bfs covers every schedule of the fencing variant and
// none clobbers, though client2 does take the lease while client1 still
// believes it holds it.
func TestFencingHolds(t *testing.T) {
	r := modeltest.Verify(t, reg, spec(ownmodel.Fencing), check.BFS)
	if !r.Exhaustive {
		t.Fatalf("bfs of fencing did not cover every schedule: %+v", r)
	}
	modeltest.Sweep(t, reg, spec(ownmodel.Fencing), modeltest.Seeds(1, 100)).Never(t)
	if r := modeltest.Search(t, reg, spec(ownmodel.Fencing), check.BFS, ownmodel.StaleHolder); r.Verdict != check.VerdictReached {
		t.Fatalf("fencing never reaches a stale holder: %s", r.Verdict)
	}
}

// TestConforms runs the conformance suite every Racetrack model passes.
func TestConforms(t *testing.T) {
	modeltest.Conform(t, reg, modeltest.DefaultOptions())
}
