package ingest_test

import (
	"testing"

	"github.com/racetrack-sim/racetrack/core/catalog"
	"github.com/racetrack-sim/racetrack/core/export"
	"github.com/racetrack-sim/racetrack/core/ingest"
	"github.com/racetrack-sim/racetrack/core/scenario"
	"github.com/racetrack-sim/racetrack/core/sim"
	"github.com/racetrack-sim/racetrack/core/timeline"
)

// eachRun records one run of every preset and variant (its first 3000
// steps, 1000 with -short).
func eachRun(t *testing.T, f func(name string, tl *timeline.Timeline)) {
	t.Helper()
	steps := 3000
	if testing.Short() {
		steps = 1000
	}
	reg := catalog.New()
	n := 0
	for _, sc := range reg.List() {
		for _, p := range sc.Presets {
			for _, v := range sc.Variants {
				spec := scenario.RunSpec{Scenario: sc.ID, Preset: p.ID, Variant: v.ID, Seed: 1, MaxSteps: steps}
				tl, err := timeline.Record(reg, spec, timeline.Options{})
				if err != nil {
					t.Fatalf("%s/%s/%s: %v", sc.ID, p.ID, v.ID, err)
				}
				f(sc.ID+"/"+p.ID+"/"+v.ID, tl)
				n++
			}
		}
	}
	if n < 10 {
		t.Fatalf("only %d runs", n)
	}
}

// TestExportsImportBack records a run of every preset and variant and
// checks that its exports import back: the ShiViz log to the same partial
// order, the JSON to the same records and the same diagram.
func TestExportsImportBack(t *testing.T) {
	eachRun(t, func(name string, tl *timeline.Timeline) {
		shivizImportsBack(t, name, tl)
		jsonImportsBack(t, name, tl)
		sameDiagram(t, name, tl)
	})
}

// shivizImportsBack exports the run as a ShiViz log and imports it with
// the expression it carries: the same events on the same hosts with the
// same vector clocks, so the same partial order.
func shivizImportsBack(t *testing.T, name string, tl *timeline.Timeline) {
	out, err := export.ShiViz(tl)
	if err != nil {
		t.Fatal(err)
	}
	l, err := ingest.ShiViz(out, ingest.Options{})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	x := l.Executions[0]
	tr := tl.Trace()
	if len(l.Executions) != 1 || x.Len() != tr.Len() {
		t.Fatalf("%s: %d executions, %d events; want 1 and %d", name, len(l.Executions), x.Len(), tr.Len())
	}
	// Imported hosts are the processes that took a step, by first
	// step; map each to its process.
	proc := make([]int, x.Width())
	for i := range x.Steps {
		proc[x.Steps[i].Proc] = int(tr.Step(i).Proc)
	}
	for i := range x.Steps {
		if proc[x.Steps[i].Proc] != int(tr.Step(i).Proc) {
			t.Fatalf("%s: step %d is on another process", name, i)
		}
		got, want := x.Clock(i), tr.Clock(i)
		for h, c := range got {
			if want[proc[h]] != c {
				t.Fatalf("%s: step %d clock %v, run's %v", name, i, got, want)
			}
		}
	}
}

// jsonImportsBack exports the run as JSON and imports it: the same
// processes, steps, messages, clocks and violations.
func jsonImportsBack(t *testing.T, name string, tl *timeline.Timeline) {
	out, err := export.JSON(tl)
	if err != nil {
		t.Fatal(err)
	}
	l, err := ingest.JSON(out, ingest.Options{})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	x := l.Executions[0]
	tr := tl.Trace()
	if x.Len() != tr.Len() || x.Width() != len(tl.Procs()) || len(x.Mutexes) != len(tl.Mutexes()) || len(x.Messages) != tr.NumMessages() {
		t.Fatalf("%s: sizes differ", name)
	}
	if x.Untimed != tl.Untimed() && tr.Len() > 1 {
		t.Fatalf("%s: untimed %v, run %v", name, x.Untimed, tl.Untimed())
	}
	for i := range x.Steps {
		a, b := x.Steps[i], *tr.Step(i)
		if a.Proc != b.Proc || a.Kind != b.Kind || a.Msg != b.Msg || a.Parent != b.Parent || a.Time != b.Time ||
			x.StepLabel(i) != tr.StepLabel(i) {
			t.Fatalf("%s: step %d is %+v %q, run's %+v %q", name, i, a, x.StepLabel(i), b, tr.StepLabel(i))
		}
		switch b.Kind {
		case sim.StepLock, sim.StepBlock, sim.StepUnlock:
			if a.Obj != b.Obj {
				t.Fatalf("%s: step %d mutex %d, run's %d", name, i, a.Obj, b.Obj)
			}
		case sim.StepWait:
			if c, d := x.Conds[a.Obj], tl.Conds()[b.Obj]; a.Obj != b.Obj || c.Name != d.Name || c.L != d.L {
				t.Fatalf("%s: step %d condition %+v, run's %+v", name, i, c, d)
			}
		case sim.StepSignal:
			if c, d := x.Conds[a.Obj], tl.Conds()[b.Obj]; c.Name != d.Name {
				t.Fatalf("%s: step %d condition %+v, run's %+v", name, i, c, d)
			}
		}
		for p, c := range x.Clock(i) {
			if tr.Clock(i)[p] != c {
				t.Fatalf("%s: step %d clock %v, run's %v", name, i, x.Clock(i), tr.Clock(i))
			}
		}
	}
	for id := 1; id <= tr.NumMessages(); id++ {
		a, b := x.Messages[id-1], *tr.Message(simMsg(id))
		if a.From != b.From || a.To != b.To || a.SentStep != b.SentStep || a.RecvStep != b.RecvStep || a.Dropped != b.Dropped ||
			a.SentAt != b.SentAt || a.DeliverAt != b.DeliverAt || x.Labels[a.Label] != tr.Label(b.Label) {
			t.Fatalf("%s: message %d is %+v, run's %+v", name, id, a, b)
		}
	}
	if len(x.Violations) != len(tl.Violations()) {
		t.Fatalf("%s: %d violations, run has %d", name, len(x.Violations), len(tl.Violations()))
	}
	for k, v := range tl.Violations() {
		if w := x.Violations[k]; w.Step != v.Step || w.Property != v.Property || w.Message != v.Message {
			t.Fatalf("%s: violation %d is %+v, run's %+v", name, k, w, v)
		}
	}
}

func simMsg(id int) sim.MsgID { return sim.MsgID(id) }
