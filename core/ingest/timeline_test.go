package ingest_test

import (
	"bytes"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/racetrack-sim/racetrack/core/export"
	"github.com/racetrack-sim/racetrack/core/ingest"
	"github.com/racetrack-sim/racetrack/core/timeline"
	"github.com/racetrack-sim/racetrack/core/viz"
)

// sameDiagram imports the run's JSON export as a timeline: its
// space-time diagram (the first 400 steps, where lock bars, arrows,
// violations and cycles are drawn) is the run's, byte for byte, and so
// are its lock spans, wait cycles and slices.
func sameDiagram(t *testing.T, name string, tl *timeline.Timeline) {
	out, err := export.JSON(tl)
	if err != nil {
		t.Fatal(err)
	}
	l, err := ingest.JSON(out, ingest.Options{})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	im := l.Executions[0].Timeline(tl.ID())
	if !im.IsImported() || im.Len() != tl.Len() || !slices.Equal(im.Spans(), tl.Spans()) {
		t.Fatalf("%s: %d steps, spans equal %v", name, im.Len(), slices.Equal(im.Spans(), tl.Spans()))
	}
	opt := viz.Options{To: min(400, tl.Len())}
	want, err := viz.Layout(tl, opt)
	if err != nil {
		t.Fatal(err)
	}
	got, err := viz.Layout(im, opt)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if !bytes.Equal(viz.SVG(got), viz.SVG(want)) {
		t.Fatalf("%s: the imported run draws another diagram", name)
	}
	last := tl.Len() - 1
	if !slices.Equal(im.WaitCycles(last), tl.WaitCycles(last)) || !slices.Equal(im.StuckSlice(last), tl.StuckSlice(last)) {
		t.Fatalf("%s: wait cycles or slices differ at the end", name)
	}
}

// TestImportedDeadlockLog: a real program's deadlock, logged in NDJSON,
// becomes a timeline whose last step closes a wait-for cycle (a
// no-deadlock violation there, which the diagram draws), whose inspector
// shows the lanes' logged fields, and which exports to the Chrome trace
// format (what `racetrack export -trace` writes).
func TestImportedDeadlockLog(t *testing.T) {
	l, err := ingest.NDJSON([]byte(deadlockTrace), ingest.Options{})
	if err != nil {
		t.Fatal(err)
	}
	tl := l.Executions[0].Timeline("log-1")
	cycle := tl.WaitCycles(tl.Len() - 1)
	if len(cycle) != 2 || cycle[0].Waiter != cycle[1].Holder || cycle[1].Waiter != cycle[0].Holder {
		t.Fatalf("wait cycle %+v", cycle)
	}
	sv, err := tl.StateAt(2)
	if err != nil {
		t.Fatal(err)
	}
	if len(sv.Groups) != 1 || sv.Groups[0].Title != "tablet / poller" || len(sv.Groups[0].Fields) != 2 || !sv.Groups[0].Fields[0].Changed {
		t.Fatalf("state at step 2: %+v", sv.Groups)
	}
	if sv, _ := tl.StateAt(4); sv.Groups[0].Fields[0].Changed {
		t.Fatal("a field logged earlier is marked changed")
	}
	if _, err := tl.Seek(1); !errors.Is(err, timeline.ErrNoModel) {
		t.Fatalf("Seek: %v, want ErrNoModel", err)
	}
	if s := tl.Summary(); s.Steps != 5 || s.EndTime != 0.0015 {
		t.Fatalf("summary %+v", s)
	}
	if _, err := export.Chrome(tl); err != nil {
		t.Fatal(err)
	}
	d, err := viz.Layout(tl, viz.Options{})
	if err != nil {
		t.Fatal(err)
	}
	arrows := 0
	for _, sh := range d.Shapes {
		if sh.Class == "cycle" && strings.Contains(sh.Title, " waits for ") { // not the legend's
			arrows++
		}
	}
	if arrows != 2 {
		t.Fatalf("the diagram draws %d wait-for arrows, want 2", arrows)
	}
}

// TestTraceToShiVizAndBack: an NDJSON trace (messages between nodes,
// a mutex handed between threads), exported as a ShiViz log from its
// timeline, imports back with the same vector clocks.
func TestTraceToShiVizAndBack(t *testing.T) {
	l, err := ingest.NDJSON(ndjsonLog(400), ingest.Options{})
	if err != nil {
		t.Fatal(err)
	}
	x := l.Executions[0]
	out, err := export.ShiViz(x.Timeline("log"))
	if err != nil {
		t.Fatal(err)
	}
	back, err := ingest.ShiViz(out, ingest.Options{})
	if err != nil {
		t.Fatal(err)
	}
	y := back.Executions[0]
	if y.Len() != x.Len() || y.Width() != x.Width() {
		t.Fatalf("%d events on %d hosts, want %d on %d", y.Len(), y.Width(), x.Len(), x.Width())
	}
	for i := range x.Steps {
		if !slices.Equal(x.Clock(i), y.Clock(i)) {
			t.Fatalf("step %d: clock %v, trace's %v", i, y.Clock(i), x.Clock(i))
		}
	}
}
