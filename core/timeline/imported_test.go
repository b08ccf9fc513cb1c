package timeline_test

import (
	"errors"
	"testing"

	"github.com/racetrack-sim/racetrack/core/sim"
	"github.com/racetrack-sim/racetrack/core/timeline"
)

// importedPair is two threads of one node: a locks m and sends to b,
// which receives and then blocks on m.
func importedPair() *timeline.Timeline {
	tr := sim.NewTrace(2)
	tr.AddStep(sim.Step{Proc: 0, Kind: sim.StepLock, Parent: -1, Obj: 0, Time: 1000}, "lock m", []uint32{1, 0})
	tr.AddStep(sim.Step{Proc: 0, Kind: sim.StepLocal, Parent: -1, Obj: -1, Time: 2000}, "send", []uint32{2, 0})
	tr.AddStep(sim.Step{Proc: 1, Kind: sim.StepReceive, Msg: 1, Parent: 1, Obj: -1, Time: 3000}, "receive", []uint32{2, 1})
	tr.AddStep(sim.Step{Proc: 1, Kind: sim.StepBlock, Parent: -1, Obj: 0, Time: 4000}, "block m", []uint32{2, 2})
	tr.AddMessage(sim.Message{From: 0, To: 1, SentStep: 1, RecvStep: 2}, "hello")
	return timeline.Imported(timeline.ImportedRun{
		ID:      "log-1",
		Trace:   tr,
		Nodes:   []sim.Node{{ID: 0, Name: "n"}},
		Procs:   []sim.Proc{{ID: 0, Node: 0, Shard: -1, Name: "a", Kind: sim.Thread}, {ID: 1, Node: 0, Shard: -1, Name: "b", Kind: sim.Thread}},
		Mutexes: []sim.Mutex{{ID: 0, Name: "m", Holder: sim.None}},
		Fields:  [][]sim.Field{nil, {{Name: "sent", Value: "1"}}, nil, {{Name: "wants", Value: "m"}}},
	})
}

func TestImportedTimeline(t *testing.T) {
	tl := importedPair()
	if !tl.IsImported() || tl.ID() != "log-1" || tl.Len() != 4 || tl.Scenario() != nil || tl.Final() != nil || tl.Properties() != nil {
		t.Fatal("an imported timeline has its id and steps, and no scenario, world or properties")
	}
	if s := tl.Summary(); s.Steps != 4 || s.EndTime != 0.004 || len(s.Violations) != 0 {
		t.Fatalf("summary %+v", s)
	}
	if v := tl.StepView(2); v.Msg != 1 || v.Parent != 1 || v.ProcName != "b" || v.Label != "receive" {
		t.Fatalf("step view %+v", v)
	}
	if sends := tl.Sends(1); len(sends) != 1 || sends[0] != 1 {
		t.Fatalf("step 1 sends %v", sends)
	}
	spans := tl.Spans()
	if len(spans) != 2 || spans[0].Kind != timeline.SpanHold || spans[1].Kind != timeline.SpanWait || spans[1].End != -1 {
		t.Fatalf("spans %+v", spans)
	}
	if past := tl.CausalSlice(2); len(past) != 3 {
		t.Fatalf("causal slice of the receive %v", past)
	}
	sv, err := tl.StateAt(3)
	if err != nil {
		t.Fatal(err)
	}
	if len(sv.Groups) != 2 || sv.Groups[0].Title != "n / a" || sv.Groups[0].Fields[0].Changed || !sv.Groups[1].Fields[0].Changed {
		t.Fatalf("state at 3: %+v", sv.Groups)
	}
	if _, err := tl.Seek(1); !errors.Is(err, timeline.ErrNoModel) {
		t.Fatalf("Seek: %v", err)
	}
	if alts, err := tl.Alternatives(1); err != nil || len(alts) != 0 {
		t.Fatalf("Alternatives: %v %v, want none: a log records no choices", alts, err)
	}
	if _, err := tl.Fork(1, 0, 1); !errors.Is(err, timeline.ErrChoice) {
		t.Fatalf("Fork: %v", err)
	}
	if tl.Initial() != nil || tl.Bytes() <= 0 {
		t.Fatal("no initial world; a size all the same")
	}
}
