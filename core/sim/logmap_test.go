package sim_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/racetrack-sim/racetrack/core/sim"
)

// A rule matches by every criterion it sets, and the first matching rule
// of a mapping decides.
func TestLogRuleMatches(t *testing.T) {
	lm := sim.LogMap[*ticker]{Name: "t", Events: []sim.LogRule[*ticker]{
		{Kind: sim.StepLock, Object: "mu", Skip: true},
		{Sends: true, Label: "wake", Skip: true},
		{Message: "batch", Skip: true},
		{Kind: sim.StepLocal, Skip: true},
	}}
	for _, c := range []struct {
		e    sim.Logged
		want int // rule index, -1: none
	}{
		{sim.Logged{Kind: sim.StepLock, Object: "mu"}, 0},
		{sim.Logged{Kind: sim.StepLock, Object: "streamMu"}, -1},
		{sim.Logged{Kind: sim.StepLocal, Sends: true, Label: "wake runSend"}, 1},
		{sim.Logged{Kind: sim.StepLocal, Label: "wake runSend"}, 3},
		{sim.Logged{Kind: sim.StepReceive, Label: "recv", Message: "batch of 10"}, 2},
		{sim.Logged{Kind: sim.StepReceive, Label: "recv", Message: "ack"}, -1},
		{sim.Logged{Kind: sim.StepUnlock, Object: "mu"}, -1},
	} {
		r := lm.Rule(c.e)
		got := -1
		for i := range lm.Events {
			if r == &lm.Events[i] {
				got = i
			}
		}
		if got != c.want {
			t.Errorf("%+v: rule %d, want %d", c.e, got, c.want)
		}
	}
}

// Check refuses what the search could not use, naming the rule or
// field; Capabilities.Check refuses two mappings of one name.
func TestLogMapCheck(t *testing.T) {
	lane := func(*ticker, *sim.World, string, string) (sim.ProcID, bool) { return sim.None, true }
	value := func(*ticker, *sim.World, sim.ProcID) string { return "" }
	for _, c := range []struct {
		lm   sim.LogMap[*ticker]
		want string
	}{
		{sim.LogMap[*ticker]{Lane: lane}, "no Name"},
		{sim.LogMap[*ticker]{Name: "t"}, "has no Lane"},
		{sim.LogMap[*ticker]{Name: "t", Lane: lane, Events: []sim.LogRule[*ticker]{{Kind: sim.StepLock}}}, "Events[0] must be exactly one"},
		{sim.LogMap[*ticker]{Name: "t", Lane: lane, Events: []sim.LogRule[*ticker]{{Skip: true, Step: &sim.ModelStep[*ticker]{}}}}, "Events[0] must be exactly one"},
		{sim.LogMap[*ticker]{Name: "t", Lane: lane, Events: []sim.LogRule[*ticker]{{Skip: true, Optional: true}}}, "Events[0] is Optional without a Step"},
		{sim.LogMap[*ticker]{Name: "t", Lane: lane, Fields: []sim.LogField[*ticker]{{Name: "n"}}}, "Fields[0] needs a Name and a Value"},
		{sim.LogMap[*ticker]{Name: "t", Lane: lane, Fields: []sim.LogField[*ticker]{{Name: "n", Value: value}, {Name: "n", Value: value}}}, `field "n" named twice`},
	} {
		if err := c.lm.Check(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want %q", c.lm, err, c.want)
		}
	}
	ok := sim.LogMap[*ticker]{Name: "t", Lane: lane, Events: []sim.LogRule[*ticker]{{Skip: true}}}
	caps := sim.Capabilities[*ticker]{Logs: []sim.LogMap[*ticker]{ok}}
	if err := caps.Check(); err != nil {
		t.Fatal(err)
	}
	if got := caps.Offered(); !slices.Equal(got, []string{"Logs"}) {
		t.Errorf("offers %v, want [Logs]", got)
	}
	caps.Logs = append(caps.Logs, ok)
	if err := caps.Check(); err == nil || !strings.Contains(err.Error(), `log mapping "t" declared twice`) {
		t.Errorf("two mappings of one name: %v", err)
	}
}

// Erase keeps every rule and field, and its functions call the typed
// ones with the model.
func TestLogMapErase(t *testing.T) {
	var seen *ticker
	lm := sim.LogMap[*ticker]{Name: "t", Help: "h",
		Lane: func(m *ticker, _ *sim.World, _, name string) (sim.ProcID, bool) { seen = m; return 3, name == "a" },
		Events: []sim.LogRule[*ticker]{
			{Kind: sim.StepLock, Step: &sim.ModelStep[*ticker]{Kind: sim.StepLock, Mutex: "mu",
				When: func(m *ticker, _ *sim.World, ev *sim.Event) bool { return ev.Proc == 2 }}, FieldsAfterNext: true, Says: "s"},
			{Holds: func(*ticker, *sim.World, sim.ProcID) bool { return true }},
		},
		Fields: []sim.LogField[*ticker]{{Name: "n", Value: func(_ *ticker, _ *sim.World, p sim.ProcID) string { return string(rune('0' + p)) }}},
	}
	e := lm.Erase()
	m := &ticker{}
	if p, ok := e.Lane(m, nil, "", "a"); p != 3 || !ok || seen != m {
		t.Fatalf("lane: %d %v", p, ok)
	}
	r := e.Events[0]
	if e.Name != "t" || e.Help != "h" || r.Kind != sim.StepLock || r.Step.Mutex != "mu" || !r.FieldsAfterNext || r.Says != "s" ||
		!r.Step.When(m, nil, &sim.Event{Proc: 2}) || r.Step.When(m, nil, &sim.Event{Proc: 1}) {
		t.Fatalf("rule 0 erased to %+v", r)
	}
	if !e.Events[1].Holds(m, nil, 0) || e.Fields[0].Value(m, nil, 4) != "4" {
		t.Fatal("holds or field lost")
	}
	if err := e.Check(); err != nil {
		t.Fatal(err)
	}
}
