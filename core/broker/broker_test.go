package broker_test

import (
	"strings"
	"testing"

	"github.com/racetrack-sim/racetrack/core/broker"
	"github.com/racetrack-sim/racetrack/core/check"
	"github.com/racetrack-sim/racetrack/core/modeltest"
	"github.com/racetrack-sim/racetrack/core/scenario"
	"github.com/racetrack-sim/racetrack/core/sim"
)

var reg = scenario.NewRegistry(broker.Scenario())

func spec(preset, variant string) scenario.RunSpec {
	return scenario.RunSpec{Scenario: broker.Scenario().ID, Preset: preset, Variant: variant}
}

// TestTruncationLosesAnAcknowledgedWrite: bfs finds the shortest loss on
// both presets, nine steps in: b1 fetches record 1 (step 4), restarts and
// truncates it away (5), its fetch from before the crash reaches b0, which
// commits and acknowledges (6), b0 fails and b1 is elected with an empty
// log (7), and the producer takes the acknowledgement (8).
func TestTruncationLosesAnAcknowledgedWrite(t *testing.T) {
	for _, preset := range []string{"restart-then-failover", "lossy"} {
		r := modeltest.Search(t, reg, spec(preset, broker.VariantTruncate), check.BFS, broker.AckedKept)
		want := "record 1 was acknowledged at offset 0, but the leader b1's log ends at 0"
		if !r.Found || r.Property != broker.AckedKept || r.Step != 8 || r.Violation != want {
			t.Fatalf("%s: bfs found %v (%s) at step %d: %q", preset, r.Found, r.Property, r.Step, r.Violation)
		}
		run, err := reg.Execute(*r.Counterexample, scenario.Options{Trace: true})
		if err != nil || !run.World.Violated(broker.AckedKept) {
			t.Fatalf("%s: the counterexample does not replay: %v", preset, err)
		}
		tr := run.World.Trace()
		for step, label := range map[int]string{
			4: "FetchResponse: log end 1, high watermark 0",
			5: "b1 crashes and restarts",
			6: "Fetch: high watermark 1",
			7: "the controller elects b1 (epoch 1, log end 0)",
		} {
			if got := tr.StepLabel(step); !strings.Contains(got, label) {
				t.Errorf("%s: step %d is %q, want %q", preset, step, got, label)
			}
		}
	}
}

// TestRandomRunsRarelyLoseAWrite: random schedules lose the record on 19
// of seeds 1-500 (the first at seed 34) and never with the fix, which is
// why bfs is the tool here.
func TestRandomRunsRarelyLoseAWrite(t *testing.T) {
	modeltest.Sweep(t, reg, spec("restart-then-failover", broker.VariantTruncate), modeltest.Seeds(1, 500)).
		Expect(t, modeltest.Rate{K: 19, N: 500, First: 1}, broker.AckedKept)
	modeltest.Sweep(t, reg, spec("restart-then-failover", broker.VariantLeaderEpoch), modeltest.Seeds(1, 500)).Never(t)
}

// TestLeaderEpochKeepsAcknowledgedWrites: bfs covers every schedule of
// the fixed variant, with and without a lost message, and none loses an
// acknowledged record, though the follower does restart holding one above
// its high watermark (the property holds for the fix, not by accident).
func TestLeaderEpochKeepsAcknowledgedWrites(t *testing.T) {
	states := map[string]int{}
	for _, preset := range []string{"restart-then-failover", "lossy"} {
		r := modeltest.Verify(t, reg, spec(preset, broker.VariantLeaderEpoch), check.BFS)
		if !r.Exhaustive || r.Verdict != check.VerdictVerified {
			t.Fatalf("%s: bfs did not cover every schedule: %+v", preset, r)
		}
		states[preset] = r.States
		if r := modeltest.Search(t, reg, spec(preset, broker.VariantLeaderEpoch), check.BFS, broker.RestartedBehind); r.Verdict != check.VerdictReached {
			t.Fatalf("%s: the follower never restarts behind: %s", preset, r.Verdict)
		}
	}
	// The lossy preset's loss is a two-way choice bfs enumerates: it
	// adds states, it is not refused or sampled.
	if states["lossy"] <= states["restart-then-failover"] {
		t.Fatalf("states %v: the lossy preset explored no loss", states)
	}
}

// TestLossIsRecordedAsDropped: a schedule that loses b1's first fetch
// shows it as a lost message, and the follower's fetch timeout fetches
// again.
func TestLossIsRecordedAsDropped(t *testing.T) {
	s := spec("lossy", broker.VariantLeaderEpoch)
	s.Schedule = []int{0, 1} // b1 fetches first, and the network loses it
	run, err := reg.Execute(s, scenario.Options{Trace: true})
	if err != nil {
		t.Fatal(err)
	}
	tr := run.World.Trace()
	if m := tr.Message(1); !m.Dropped || m.DropReason != sim.DropLost || tr.Label(m.Label) != "Fetch" {
		t.Fatalf("first message %s: dropped %v (%s)", tr.Label(m.Label), m.Dropped, m.DropReason)
	}
	refetched := false
	for i := 1; i < tr.Len(); i++ {
		refetched = refetched || (run.World.ProcName(tr.Step(i).Proc) == "b1" && tr.StepLabel(i) == "fetches from the leader")
	}
	if !refetched {
		t.Fatal("b1 never fetched again after its fetch was lost")
	}
}

// TestConforms runs the conformance suite every Racetrack model passes.
func TestConforms(t *testing.T) {
	modeltest.Conform(t, reg, modeltest.DefaultOptions())
}
