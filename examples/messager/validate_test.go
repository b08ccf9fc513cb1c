package messager

import (
	"bytes"
	"testing"

	"github.com/racetrack-sim/racetrack/core/conform"
	"github.com/racetrack-sim/racetrack/core/ingest"
	"github.com/racetrack-sim/racetrack/core/scenario"
	"github.com/racetrack-sim/racetrack/core/sim"
	"github.com/racetrack-sim/racetrack/core/vitess"
)

// modelFor is the configuration of the Vitess model a run of cfg is
// validated against: the untimed preset without delivery, as many
// clients, iterations enough for every goroutine's loop, and Go's
// mutexes (the program's are sync.Mutex).
func modelFor(t testing.TB, cfg Config) scenario.Normal {
	t.Helper()
	variant := "fixed"
	if cfg.Version == V13 {
		variant = "buggy"
	}
	n, err := scenario.NewRegistry(vitess.Scenario()).Check(scenario.RunSpec{Scenario: vitess.ID, Preset: vitess.PresetLockLevel,
		Variant: variant, Params: map[string]any{"clients": cfg.Clients, "iterations": max(cfg.Cycles, cfg.Ticks, cfg.RowEvents), "goMutex": true}})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func validate(t testing.TB, cfg Config, trace []byte) *conform.Verdict {
	t.Helper()
	l, err := ingest.NDJSON(trace, ingest.Options{})
	if err != nil {
		t.Fatalf("the trace does not import: %v", err)
	}
	v, err := conform.Validate(modelFor(t, cfg), l.Executions[0], conform.Options{Format: ingest.FormatNDJSON})
	if err != nil {
		t.Fatalf("validate: %v", err)
	}
	return v
}

// TestAlignmentReplays: a fixed trace's verdict replays in the model (its
// schedule), and every model step it aligns with a logged event is that
// event in the model's words: the lane's process, the logged kind
// (a lock, an unlock, a block), the mutex of the logged name.
func TestAlignmentReplays(t *testing.T) {
	var buf bytes.Buffer
	cfg := config(Fixed, 7, &buf)
	if res := Run(cfg); res.Deadlocked {
		t.Fatalf("the fixed version stuck: %v", res.Blocked)
	}
	x := importTrace(t, buf.Bytes())
	v := validate(t, cfg, buf.Bytes())
	if !v.Conforms {
		t.Fatalf("leaves the model at %+v", v.At)
	}
	w, err := modelFor(t, cfg).WorldWith(&sim.ScriptChooser{Schedule: v.Schedule}, scenario.Options{})
	if err != nil {
		t.Fatal(err)
	}
	lm, _ := w.Capabilities().Log("")
	matched := 0
	for k, i := range v.StepEvents {
		if !w.Step() {
			t.Fatalf("the schedule does not replay at step %d: %v", k, w.Err())
		}
		if i < 0 {
			continue
		}
		st, e := w.LastStep(), x.Steps[i]
		lane := x.Procs[e.Proc].Name
		p, _ := lm.Lane(w.Model(), w, "tablet", lane)
		if st.Proc != p {
			t.Fatalf("model step %d is %s's, the event %d it matched is %s's", k, w.ProcName(st.Proc), i, lane)
		}
		if e.Kind == sim.StepLock || e.Kind == sim.StepUnlock || e.Kind == sim.StepBlock {
			if st.Kind != e.Kind || w.Mutex(sim.MutexID(st.Obj)).Name != x.Mutexes[e.Obj].Name {
				t.Fatalf("model step %d (%v %s) matched event %d (%v %s)", k, st.Kind, w.Mutex(sim.MutexID(st.Obj)).Name, i, e.Kind, x.Mutexes[e.Obj].Name)
			}
		}
		if v.Reached[i] != int32(k+1) {
			t.Fatalf("event %d reached after %d steps, matched by step %d", i, v.Reached[i], k)
		}
		matched++
	}
	if matched == 0 {
		t.Fatal("no event aligned with a model step")
	}
}
