package viz_test

import (
	"bytes"
	"encoding/xml"
	"errors"
	"math"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/racetrack-sim/racetrack/core/internal/golden"

	"github.com/racetrack-sim/racetrack/core/catalog"
	"github.com/racetrack-sim/racetrack/core/scenario"
	"github.com/racetrack-sim/racetrack/core/sim"
	"github.com/racetrack-sim/racetrack/core/timeline"
	"github.com/racetrack-sim/racetrack/core/timeline/timelinetest"
	"github.com/racetrack-sim/racetrack/core/viz"
)

// goldens are one preset of each model in the catalog, with the window
// that shows its story.
var goldens = []struct {
	name     string
	spec     scenario.RunSpec
	from, to int
	opt      viz.Options
}{
	{name: "dining-philosophers-lock-level", spec: scenario.RunSpec{Scenario: "dining-philosophers", Preset: "lock-level", Variant: "buggy", Seed: 16}},
	{name: "dining-philosophers-table", spec: scenario.RunSpec{Scenario: "dining-philosophers", Preset: "table", Variant: "buggy", Seed: 1}},
	{name: "scylla-mv-backlog-wrong-shard-remote", spec: scenario.RunSpec{Scenario: "scylla-mv-backlog", Preset: "wrong-shard-remote", Variant: "buggy", Seed: 1}},
	{name: "tarantool-raft-relay-subscribe-during-election", spec: scenario.RunSpec{Scenario: "tarantool-raft-relay", Preset: "subscribe-during-election", Variant: "drop", Seed: 1}, to: 200},
	{name: "vitess-messager-unsubscribe-vs-poller", spec: scenario.RunSpec{Scenario: "vitess-messager", Preset: "unsubscribe-vs-poller", Variant: "buggy", Seed: 1}},
}

func TestGoldenSVG(t *testing.T) { goldenSVG(t, catalog.New()) }

func goldenSVG(t *testing.T, reg *scenario.Registry) {
	for _, g := range goldens {
		t.Run(g.name, func(t *testing.T) {
			if _, ok := reg.Lookup(g.spec.Scenario); !ok {
				t.Skipf("scenario %s is not in the catalog", g.spec.Scenario)
			}
			tl, err := timeline.Record(reg, g.spec, timeline.Options{})
			if err != nil {
				t.Fatal(err)
			}
			opt := g.opt
			opt.From, opt.To = g.from, g.to
			d, err := viz.Layout(tl, opt)
			if err != nil {
				t.Fatal(err)
			}
			checkGolden(t, g.name+".svg", viz.SVG(d))
			c, err := viz.Charts(tl, viz.ChartOptions{From: g.from, To: g.to, Cursor: (d.From + d.To) / 2})
			if err != nil {
				t.Fatal(err)
			}
			checkGolden(t, g.name+"-charts.svg", viz.SVG(c))
		})
	}
}

func checkGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	golden.Check(t, filepath.Join("testdata", name), got)
}

func workload(t testing.TB, steps int) *timeline.Timeline {
	t.Helper()
	tl, err := timeline.Record(timelinetest.Registry(), timelinetest.Spec(steps, 1), timeline.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return tl
}

func glyphSteps(d *viz.Display) map[int]int {
	n := map[int]int{}
	seen := map[int]map[string]bool{}
	for _, s := range d.Shapes {
		if !strings.HasPrefix(s.Class, "ev-") || s.Step < 0 {
			continue
		}
		if seen[s.Step] == nil {
			seen[s.Step] = map[string]bool{}
		}
		if !seen[s.Step][s.Class] {
			seen[s.Step][s.Class] = true
			n[s.Step]++
		}
	}
	return n
}

func TestLayoutDrawsEveryStepMessageAndHold(t *testing.T) {
	tl := workload(t, 400)
	from, to := 100, 300
	d, err := viz.Layout(tl, viz.Options{From: from, To: to})
	if err != nil {
		t.Fatal(err)
	}
	glyphs := glyphSteps(d)
	for i := from; i < to; i++ {
		if glyphs[i] != 1 {
			t.Fatalf("step %d (%s) has %d glyph classes, want 1", i, tl.Trace().StepLabel(i), glyphs[i])
		}
	}
	if len(glyphs) != to-from {
		t.Fatalf("%d steps drawn, want %d", len(glyphs), to-from)
	}
	// Every delivered message with both ends in the window is one arrow
	// from its send to a head at its receipt; every lost one sent in the
	// window is marked.
	arrows, heads, lost := map[int]int{}, map[int]int{}, 0
	for _, s := range d.Shapes {
		if s.Step < 0 {
			continue // the legend
		}
		switch s.Class {
		case "msg", "msg-dense":
			arrows[s.Step]++
		case "msg-head", "msg-dense-head":
			heads[s.Step]++
		case "msg-dropped":
			lost++
		}
	}
	wantLost := 0
	tr := tl.Trace()
	for id := 1; id <= tr.NumMessages(); id++ {
		m := tr.Message(sim.MsgID(id))
		in := func(s int32) bool { return int(s) >= from && int(s) < to }
		switch {
		case m.Dropped && in(m.SentStep):
			wantLost++
		case in(m.SentStep) && in(m.RecvStep):
			if arrows[int(m.SentStep)] == 0 || heads[int(m.RecvStep)] != 1 {
				t.Fatalf("message %d (%s) %d->%d: %d arrows from the send, %d heads at the receipt",
					id, tr.Label(m.Label), m.SentStep, m.RecvStep, arrows[int(m.SentStep)], heads[int(m.RecvStep)])
			}
		}
	}
	if lost != wantLost || wantLost == 0 {
		t.Fatalf("%d lost messages drawn, want %d (and the workload must lose some)", lost, wantLost)
	}
	holds := 0
	for _, s := range d.Shapes {
		if strings.HasPrefix(s.Class, "hold-m") && s.Type == viz.Rect && s.Step >= 0 {
			holds++
		}
	}
	want := 0
	for _, sp := range tl.Spans() {
		if sp.Kind == timeline.SpanHold && sp.Start < to && (sp.End < 0 || sp.End >= from) {
			want++
		}
	}
	if holds != want || want == 0 {
		t.Fatalf("%d hold bars, want %d", holds, want)
	}
}

func TestLayoutStaysOnTheCanvas(t *testing.T) {
	tl := workload(t, 600)
	for _, opt := range []viz.Options{{}, {Axis: "step"}, {From: 250, To: 400, Width: 700}, {CollapseShards: true, Height: 300}} {
		d, err := viz.Layout(tl, opt)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range d.Shapes {
			xs := []float64{s.X, s.X + s.W}
			ys := []float64{s.Y, s.Y + s.H}
			if s.Type == viz.Line {
				xs, ys = []float64{s.X, s.X2}, []float64{s.Y, s.Y2}
			}
			if s.Type == viz.Polygon || s.Type == viz.Polyline {
				xs, ys = nil, nil
				for k := 0; k+1 < len(s.Points); k += 2 {
					xs, ys = append(xs, s.Points[k]), append(ys, s.Points[k+1])
				}
			}
			for _, x := range xs {
				if x < -1 || x > d.Width+1 {
					t.Fatalf("options %+v: %s %q at x %.1f outside [0, %.0f]", opt, s.Class, s.Text, x, d.Width)
				}
			}
			for _, y := range ys {
				if y < -1 || y > d.Height+1 {
					t.Fatalf("options %+v: %s at y %.1f outside [0, %.0f]", opt, s.Class, y, d.Height)
				}
			}
		}
	}
}

func TestStepLabelsDoNotOverlap(t *testing.T) {
	tl := workload(t, 300)
	d, err := viz.Layout(tl, viz.Options{})
	if err != nil {
		t.Fatal(err)
	}
	type span struct{ x0, x1 float64 }
	byY := map[float64][]span{}
	for _, s := range d.Shapes {
		if s.Class != "label" {
			continue
		}
		w := float64(len([]rune(s.Text))) * 10 * 0.58
		for _, o := range byY[s.Y] {
			if s.X < o.x1 && o.x0 < s.X+w {
				t.Fatalf("label %q at %.1f overlaps another on the same lane", s.Text, s.X)
			}
		}
		byY[s.Y] = append(byY[s.Y], span{s.X, s.X + w})
	}
	if len(byY) == 0 {
		t.Fatal("no labels")
	}
}

func TestHighlightDimsTheRest(t *testing.T) {
	tl := workload(t, 400)
	v := tl.Violations()
	if len(v) == 0 {
		t.Fatal("the workload has no violation")
	}
	slice := tl.CausalSlice(v[0].Step)
	in := map[int]bool{}
	for _, s := range slice {
		in[s] = true
	}
	d, err := viz.Layout(tl, viz.Options{Highlight: slice})
	if err != nil {
		t.Fatal(err)
	}
	bright, dim := 0, 0
	for _, s := range d.Shapes {
		if !strings.HasPrefix(s.Class, "ev-") || s.Step < 0 {
			continue
		}
		if s.Dim == in[s.Step] {
			t.Fatalf("glyph of step %d: dim %v, in the causal slice %v", s.Step, s.Dim, in[s.Step])
		}
		if s.Dim {
			dim++
		} else {
			bright++
		}
	}
	t.Logf("violation at step %d: %d glyphs bright, %d dimmed", v[0].Step, bright, dim)
	if bright == 0 || dim == 0 {
		t.Fatal("nothing bright or nothing dimmed")
	}
}

func TestViolationMarker(t *testing.T) {
	reg := catalog.New()
	tl, err := timeline.Record(reg, scenario.RunSpec{Scenario: "dining-philosophers", Preset: "lock-level", Seed: 16}, timeline.Options{})
	if err != nil {
		t.Fatal(err)
	}
	v := tl.Violations()[0]
	d, err := viz.Layout(tl, viz.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if d.X.Axis != "step" {
		t.Fatalf("untimed run laid out on a %s axis", d.X.Axis)
	}
	var line, label bool
	for _, s := range d.Shapes {
		if s.Class == "violation" && s.Step == v.Step && strings.Contains(s.Title, "waits for") {
			line = true
		}
		if strings.HasPrefix(s.Class, "violation-label") && strings.Contains(s.Text, sim.NoDeadlockName) {
			label = true
		}
	}
	if !line || !label {
		t.Fatalf("violation at step %d: line %v, label %v", v.Step, line, label)
	}
	// Five philosophers end blocked: five waits still open at the end.
	waits := 0
	for _, s := range d.Shapes {
		if s.Class == "wait" && s.Step >= 0 {
			waits++
		}
	}
	if waits != 5 {
		t.Fatalf("%d waits drawn, want 5", waits)
	}
}

func TestLanes(t *testing.T) {
	tl := workload(t, 200)
	d, err := viz.Layout(tl, viz.Options{Lanes: []int{0, 1}})
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Lanes) != 2 {
		t.Fatalf("%d lanes, want 2", len(d.Lanes))
	}
	for s := range glyphSteps(d) {
		if p := tl.Trace().Step(s).Proc; p > 1 {
			t.Fatalf("step %d of process %d drawn", s, p)
		}
	}
	c, err := viz.Layout(tl, viz.Options{CollapseShards: true})
	if err != nil {
		t.Fatal(err)
	}
	// client, handler, and the four sharded workers in one lane.
	if len(c.Lanes) != 3 || len(c.Lanes[2].Procs) != 4 {
		t.Fatalf("collapsed lanes %+v", c.Lanes)
	}
}

func TestBadWindows(t *testing.T) {
	tl := workload(t, 100)
	for _, opt := range []viz.Options{{From: -1}, {From: 50, To: 50}, {To: 101}, {From: 100}} {
		_, err := viz.Layout(tl, opt)
		if !errors.Is(err, viz.ErrWindow) || !errors.Is(err, timeline.ErrStepRange) || !strings.Contains(err.Error(), "<= 100") {
			t.Fatalf("window %+v: %v", opt, err)
		}
	}
	if _, err := viz.Layout(tl, viz.Options{Axis: "space"}); !errors.Is(err, viz.ErrWindow) {
		t.Fatalf("bad axis: %v", err)
	}
	if _, err := viz.Layout(tl, viz.Options{Lanes: []int{99}}); !errors.Is(err, viz.ErrWindow) {
		t.Fatalf("bad lane: %v", err)
	}
	if _, err := viz.Charts(tl, viz.ChartOptions{Series: []string{"nope"}}); !errors.Is(err, viz.ErrWindow) || !strings.Contains(err.Error(), "requests in flight") {
		t.Fatalf("bad series: %v", err)
	}
}

func TestCharts(t *testing.T) {
	tl := workload(t, 300)
	c, err := viz.Charts(tl, viz.ChartOptions{Cursor: 150})
	if err != nil {
		t.Fatal(err)
	}
	titles, lines, cursors := 0, 0, 0
	for _, s := range c.Shapes {
		switch {
		case s.Class == "chart-title":
			titles++
		case s.Type == viz.Polyline:
			lines++
			for k := 2; k+1 < len(s.Points); k += 2 {
				if s.Points[k] < s.Points[k-2] {
					t.Fatalf("series %s goes back in x at point %d", s.Title, k/2)
				}
			}
		case s.Class == "cursor":
			cursors++
			if s.Step != 150 {
				t.Fatalf("cursor at step %d", s.Step)
			}
		}
	}
	// Two series in two groups: two panels, two lines, a cursor on each.
	if titles != 2 || lines != 2 || cursors != 2 {
		t.Fatalf("%d panels, %d lines, %d cursors", titles, lines, cursors)
	}
	one, err := viz.Charts(tl, viz.ChartOptions{Series: []string{"updates"}, Cursor: -1})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range one.Shapes {
		if s.Class == "cursor" || (s.Type == viz.Polyline && s.Title != "updates") {
			t.Fatalf("unexpected %s %s", s.Class, s.Title)
		}
	}
}

func TestSVGIsWellFormed(t *testing.T) {
	tl := workload(t, 300)
	d, err := viz.Layout(tl, viz.Options{})
	if err != nil {
		t.Fatal(err)
	}
	dec := xml.NewDecoder(bytes.NewReader(viz.SVG(d)))
	elems, steps := 0, 0
	for {
		tok, err := dec.Token()
		if err != nil {
			if err.Error() == "EOF" {
				break
			}
			t.Fatal(err)
		}
		if se, ok := tok.(xml.StartElement); ok {
			switch se.Name.Local {
			case "rect", "line", "circle", "polygon", "polyline", "text":
				elems++
			}
			for _, a := range se.Attr {
				if a.Name.Local == "data-step" {
					steps++
				}
			}
		}
	}
	want, withStep := 1, 0 // the background rect
	for _, s := range d.Shapes {
		want++
		if s.Step >= 0 {
			withStep++
		}
	}
	if elems != want || steps != withStep {
		t.Fatalf("%d elements (%d with a step), want %d (%d)", elems, steps, want, withStep)
	}
}

// BenchmarkLayout10k lays out a 10,000-step window of a 20,000-step run.
func BenchmarkLayout10k(b *testing.B) {
	tl := workload(b, 20_000)
	for b.Loop() {
		if _, err := viz.Layout(tl, viz.Options{From: 5000, To: 15000}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/1000/float64(b.N), "ms/layout")
}

// BenchmarkLayout10kStepAxis is the same window on the step axis.
func BenchmarkLayout10kStepAxis(b *testing.B) {
	tl := workload(b, 20_000)
	for b.Loop() {
		if _, err := viz.Layout(tl, viz.Options{From: 5000, To: 15000, Axis: "step"}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/1000/float64(b.N), "ms/layout")
}

func BenchmarkSVG10k(b *testing.B) {
	tl := workload(b, 20_000)
	d, err := viz.Layout(tl, viz.Options{From: 5000, To: 15000})
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		viz.SVG(d)
	}
}

// FuzzLayout feeds outside options (a query string's numbers) to Layout
// and Charts: they either fail with ErrWindow or draw inside the canvas.
func FuzzLayout(f *testing.F) {
	tl := workload(f, 300)
	f.Add(0, 0, "", 0.0, 0.0, -1, false)
	f.Add(100, 200, "step", 800.0, 300.0, 3, true)
	f.Add(-5, 1000, "time", -1.0, 1e9, 99, false)
	f.Fuzz(func(t *testing.T, from, to int, axis string, w, h float64, lane int, collapse bool) {
		opt := viz.Options{From: from, To: to, Axis: axis, Width: w, Height: h, CollapseShards: collapse}
		if lane >= 0 {
			opt.Lanes = []int{lane}
		}
		d, err := viz.Layout(tl, opt)
		if err != nil {
			if !errors.Is(err, viz.ErrWindow) {
				t.Fatalf("%+v: %v does not wrap ErrWindow", opt, err)
			}
			return
		}
		for _, s := range d.Shapes {
			if s.X != s.X || s.Y != s.Y || s.X < -1 || s.X > d.Width+1 {
				t.Fatalf("%+v: %s at (%v, %v) outside a %v-wide canvas", opt, s.Class, s.X, s.Y, d.Width)
			}
		}
		if _, err := viz.Charts(tl, viz.ChartOptions{From: from, To: to, Axis: axis, Width: w, Height: h, Cursor: lane}); err != nil && !errors.Is(err, viz.ErrWindow) {
			t.Fatalf("charts: %v", err)
		}
	})
}

func TestViolationLabelsDoNotOverlap(t *testing.T) {
	reg := catalog.New()
	// Seed 2 of wrong-shard-remote violates both properties, at steps 6
	// and 42; squeezed into a narrow window their labels would collide.
	tl, err := timeline.Record(reg, scenario.RunSpec{Scenario: "scylla-mv-backlog", Preset: "wrong-shard-remote", Seed: 2}, timeline.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(tl.Violations()) < 2 {
		t.Fatalf("want two violations, got %v", tl.Violations())
	}
	for _, width := range []float64{420, 1400} {
		d, err := viz.Layout(tl, viz.Options{Axis: "step", Width: width})
		if err != nil {
			t.Fatal(err)
		}
		type span struct{ l, r float64 }
		var spans []span
		for _, s := range d.Shapes {
			if !strings.HasPrefix(s.Class, "violation-label") {
				continue
			}
			w := viz.TextWidth(s.Text, 11)
			l := s.X
			if s.Class == "violation-label-end" {
				l -= w
			}
			for _, o := range spans {
				if l < o.r && o.l < l+w {
					t.Fatalf("width %v: label %q at [%.0f, %.0f] overlaps one at [%.0f, %.0f]", width, s.Text, l, l+w, o.l, o.r)
				}
			}
			spans = append(spans, span{l, l + w})
		}
		if len(spans) != 2 {
			t.Fatalf("width %v: %d violation labels, want 2", width, len(spans))
		}
	}
}

// TestDeadlockCycleArrows: at a deadlock the display list draws one arrow
// per edge of the wait-for cycle, from the waiter's lane to the holder's
// bar of that mutex, named after the mutex.
func TestDeadlockCycleArrows(t *testing.T) {
	for _, spec := range []scenario.RunSpec{
		{Scenario: "vitess-messager", Preset: "unsubscribe-vs-poller", Variant: "buggy", Seed: 1},
		{Scenario: "dining-philosophers", Preset: "lock-level", Variant: "buggy", Seed: 16},
	} {
		tl, err := timeline.Record(catalog.New(), spec, timeline.Options{})
		if err != nil {
			t.Fatal(err)
		}
		v := tl.Violations()[0]
		edges := tl.WaitCycles(v.Step)
		if len(edges) == 0 {
			t.Fatalf("%s: no cycle at the violation, step %d", spec.Scenario, v.Step)
		}
		d, err := viz.Layout(tl, viz.Options{})
		if err != nil {
			t.Fatal(err)
		}
		laneOf := map[sim.ProcID]viz.LaneInfo{}
		for _, l := range d.Lanes {
			for _, p := range l.Procs {
				laneOf[sim.ProcID(p)] = l
			}
		}
		var arrows, labels []viz.Shape
		for _, s := range d.Shapes {
			if s.Step < 0 {
				continue // the legend
			}
			switch s.Class {
			case "cycle":
				arrows = append(arrows, s)
			case "cycle-label", "cycle-label-end":
				labels = append(labels, s)
			}
		}
		if len(arrows) != len(edges) || len(labels) != len(edges) {
			t.Fatalf("%s: %d arrows and %d labels for a cycle of %d edges", spec.Scenario, len(arrows), len(labels), len(edges))
		}
		for _, e := range edges {
			var a *viz.Shape
			for k := range arrows {
				if arrows[k].Step == e.Wait {
					a = &arrows[k]
				}
			}
			if a == nil {
				t.Fatalf("%s: no arrow for the wait at step %d", spec.Scenario, e.Wait)
			}
			w, h := laneOf[e.Waiter], laneOf[e.Holder]
			if a.Y < w.Y || a.Y > w.Y+w.H || a.Y2 < h.Y || a.Y2 > h.Y+h.H {
				t.Errorf("%s: arrow %+v does not run from lane %s to lane %s", spec.Scenario, *a, w.Label, h.Label)
			}
			onBar := false
			for _, s := range d.Shapes {
				if s.Type == viz.Rect && s.Step == e.Hold && strings.HasPrefix(s.Class, "hold-") && a.X >= s.X && a.X <= s.X+s.W && (math.Abs(a.Y2-s.Y) < 1e-6 || math.Abs(a.Y2-s.Y-s.H) < 1e-6) {
					onBar = true
				}
			}
			if !onBar {
				t.Errorf("%s: arrow %+v does not end on the hold bar of step %d", spec.Scenario, *a, e.Hold)
			}
			name := tl.Mutexes()[e.Mutex].Name
			if !strings.Contains(a.Title, name) {
				t.Errorf("%s: arrow title %q does not name %s", spec.Scenario, a.Title, name)
			}
		}
	}
}

// TestAggregatesAndOverview: a dense window carries merged marks that
// count every step of it once, a short one none; the overview counts the
// whole run.
func TestAggregatesAndOverview(t *testing.T) {
	tl := workload(t, 3000)
	d, err := viz.Layout(tl, viz.Options{From: 500, To: 2500})
	if err != nil {
		t.Fatal(err)
	}
	if !d.Aggregated {
		t.Fatalf("a window of 2000 steps is not aggregated")
	}
	sum, marks := 0, 0
	for _, s := range d.Shapes {
		if !strings.HasPrefix(s.Class, "agg-") {
			continue
		}
		marks++
		n, err := strconv.Atoi(strings.Fields(s.Title)[0])
		if err != nil || s.Step < 500 || s.Step >= 2500 {
			t.Fatalf("aggregate mark %+v", s)
		}
		sum += n
	}
	if sum != 2000 || marks > viz.AggCols*len(d.Lanes) {
		t.Fatalf("%d aggregate marks count %d steps, want 2000 in at most %d marks", marks, sum, viz.AggCols*len(d.Lanes))
	}
	if strings.Contains(string(viz.SVG(d)), `class="agg-`) {
		t.Errorf("the SVG draws aggregate marks; it should show the steps")
	}
	o := d.Overview
	total := 0
	for _, row := range o.Counts {
		for _, n := range row {
			total += n
		}
	}
	if o == nil || o.Steps != tl.Len() || total != tl.Len() || len(o.Counts) != len(d.Lanes) || o.Max == 0 {
		t.Fatalf("overview %d steps in %d lanes (max %d), counts sum to %d; want %d in %d lanes", o.Steps, len(o.Counts), o.Max, total, tl.Len(), len(d.Lanes))
	}
	short, err := viz.Layout(tl, viz.Options{From: 0, To: 100})
	if err != nil {
		t.Fatal(err)
	}
	if short.Aggregated {
		t.Errorf("a window of 100 steps is aggregated")
	}
}

// contrast is the WCAG contrast ratio of a #rrggbb colour against white.
func contrast(t *testing.T, hex string) float64 {
	t.Helper()
	var rgb [3]float64
	for k := range rgb {
		v, err := strconv.ParseUint(hex[1+2*k:3+2*k], 16, 8)
		if err != nil || len(hex) != 7 {
			t.Fatalf("colour %q is not #rrggbb", hex)
		}
		c := float64(v) / 255
		if c <= 0.03928 {
			rgb[k] = c / 12.92
		} else {
			rgb[k] = math.Pow((c+0.055)/1.055, 2.4)
		}
	}
	l := 0.2126*rgb[0] + 0.7152*rgb[1] + 0.0722*rgb[2]
	return 1.05 / (l + 0.05)
}

// TestContrast: text reads at 4.5:1 on white (WCAG 1.4.3) and the marks
// that carry meaning — glyphs, bars, arrows, series — at 3:1 (1.4.11).
func TestContrast(t *testing.T) {
	tl := workload(t, 50)
	d, err := viz.Layout(tl, viz.Options{})
	if err != nil {
		t.Fatal(err)
	}
	c, err := viz.Charts(tl, viz.ChartOptions{Cursor: -1})
	if err != nil {
		t.Fatal(err)
	}
	marks := []string{"ev-", "hold-m", "cycle", "wait", "cond-wait", "msg", "violation", "series-"}
	texts, inks := 0, 0
	for _, st := range append(d.Styles, c.Styles...) {
		if st.FontSize > 0 {
			texts++
			if r := contrast(t, st.Fill); r < 4.5 {
				t.Errorf("text class %s: %s is %.2f:1 on white, want 4.5", st.Class, st.Fill, r)
			}
			continue
		}
		mark := false
		for _, m := range marks {
			mark = mark || strings.HasPrefix(st.Class, m)
		}
		if !mark || st.Class == "msg-dense" || st.Class == "msg-dense-head" { // dense arrows are a faint texture by design
			continue
		}
		inks++
		ink := st.Stroke
		if st.Fill != "" && st.Fill != "#ffffff" {
			ink = st.Fill
		}
		if r := contrast(t, ink); r < 3 || (st.Opacity != 0 && st.Opacity < 1) {
			t.Errorf("mark class %s: %s at opacity %v is %.2f:1 on white, want 3", st.Class, ink, st.Opacity, r)
		}
	}
	if texts < 20 || inks < 30 {
		t.Fatalf("checked %d text and %d mark styles; the style lists lost their classes", texts, inks)
	}
}

// An untimed run charts no duration series that stays at zero (issue 32
// saw an all-zero "locks — ms" chart); a timed one keeps them.
func TestUntimedChartsDropIdleDurations(t *testing.T) {
	reg := catalog.New()
	for _, c := range []struct {
		preset  string
		untimed bool
	}{{"lock-level", true}, {"unsubscribe-vs-poller", false}} {
		tl, err := timeline.Record(reg, scenario.RunSpec{Scenario: "vitess-messager", Preset: c.preset, Variant: "buggy", Seed: 1}, timeline.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if tl.Untimed() != c.untimed {
			t.Fatalf("%s: untimed %v", c.preset, tl.Untimed())
		}
		d, err := viz.Charts(tl, viz.ChartOptions{Cursor: -1})
		if err != nil {
			t.Fatal(err)
		}
		msTitles := 0
		for _, s := range d.Shapes {
			if s.Class == "chart-title" && strings.HasSuffix(s.Text, "ms") {
				msTitles++
			}
		}
		msSeries := 0
		for _, s := range tl.Series() {
			if s.Unit == "ms" {
				msSeries++
			}
		}
		if c.untimed && msTitles != 0 {
			t.Errorf("%s (untimed): %d charts in ms", c.preset, msTitles)
		}
		if msSeries == 0 || (!c.untimed && msTitles == 0) {
			t.Errorf("%s: %d ms series, %d charts of them", c.preset, msSeries, msTitles)
		}
		t.Logf("%s: %d ms series, %d ms charts", c.preset, msSeries, msTitles)
	}
}

// A window laid out very wide (as the page lays out a long run's window)
// draws no time before the run's start: at most a few pixels of pad and
// no negative tick (issue 32 saw -0.5 s to 0.7 s, 40 % of it before time
// zero).
func TestWideLayoutHasNoNegativeTime(t *testing.T) {
	tl, err := timeline.Record(catalog.New(), scenario.RunSpec{Scenario: "dining-philosophers", Preset: "table", Variant: "buggy", Seed: 1}, timeline.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []float64{1200, viz.MaxSize} {
		d, err := viz.Layout(tl, viz.Options{Width: w})
		if err != nil {
			t.Fatal(err)
		}
		if d.X.Axis != "time" {
			t.Fatalf("axis %q", d.X.Axis)
		}
		lo, hi := d.X.Domain[0], d.X.Domain[1]
		first := tl.Trace().Step(0).Time.Millis()
		if padPx := (first - lo) * d.Plot.W / (hi - lo); padPx > 12.01 || padPx <= 0 {
			t.Errorf("width %v: %.1f px of time before the first step", w, padPx)
		}
		for _, s := range d.Shapes {
			if s.Class == "tick-label" && (strings.HasPrefix(s.Text, "-") || strings.HasPrefix(s.Text, "−")) {
				t.Errorf("width %v: negative tick %q", w, s.Text)
			}
		}
	}
}
