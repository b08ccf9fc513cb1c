package tarantool_test

import (
	"testing"

	"github.com/racetrack-sim/racetrack/core/catalog"
	"github.com/racetrack-sim/racetrack/core/check"
	"github.com/racetrack-sim/racetrack/core/scenario"
	"github.com/racetrack-sim/racetrack/core/tarantool"
)

// TestRandomSearchFindsLostLeaderMessage: "find the bug" on the seed's
// preset finds followers-learn-leader with drop, and the shrunk
// counterexample replays to the same violation.
func TestRandomSearchFindsLostLeaderMessage(t *testing.T) {
	reg := catalog.New()
	x, err := check.New(reg, check.Config{Scenario: tarantool.ScenarioID, Preset: "subscribe-during-election", Variant: "drop",
		Property: tarantool.PropLearnLeader, Strategy: check.Random, Seed: 1, Budget: check.Budget{Runs: 200}})
	if err != nil {
		t.Fatal(err)
	}
	r := x.Run()
	if err := x.Err(); err != nil {
		t.Fatal(err)
	}
	t.Logf("found %v after %d runs; schedule %d choices (shrunk %v from %d): %s", r.Found, r.Runs, r.Length, r.Shrunk, r.OriginalLength, r.Violation)
	if !r.Found || r.Counterexample == nil {
		t.Fatalf("random search did not find %s: %+v", tarantool.PropLearnLeader, r)
	}
	run, err := reg.Execute(*r.Counterexample, scenario.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range run.World.Violations() {
		if v.Property == r.Property && v.Step == r.Step && v.Message == r.Violation {
			return
		}
	}
	t.Errorf("the counterexample does not replay to step %d: %v", r.Step, run.World.Violations())
}
