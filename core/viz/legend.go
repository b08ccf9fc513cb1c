package viz

import (
	"github.com/racetrack-sim/racetrack/core/sim"
)

// legend explains glyphs and mutex colours below the axis.
func (g *diagram) legend() {
	y := g.bottom + axisHeight + 12
	x := g.left
	item := func(cls string, sh Shape, text string) {
		w := textWidth(text, labelPx) + 34
		if x+w > g.right && x > g.left {
			x = g.left
			y += legendRow
		}
		sh.Step = -1
		switch sh.Type {
		case Line:
			sh.X, sh.Y, sh.X2, sh.Y2 = x, y-4, x+16, y-4
		case Rect:
			sh.X, sh.Y, sh.W, sh.H = x+3, y-8, 9, 9
		case Circle:
			sh.X, sh.Y, sh.R = x+7, y-4, 4.5
		case Polygon:
			cx, cy, r := x+7, y-4, 5.0
			sh.Points = []float64{cx, cy - r, cx + r, cy, cx, cy + r, cx - r, cy}
			if cls == "ev-signal" {
				sh.Points = []float64{cx, cy - r, cx + r, cy + r - 1, cx - r, cy + r - 1}
			}
		}
		sh.Class = cls
		g.add(sh)
		g.add(Shape{Type: Text, Class: "legend", X: x + 22, Y: y, Text: text, Step: -1})
		x += w
	}
	var kinds [16]bool
	for i := g.from; i < g.to; i++ {
		if st := g.tr.Step(i); g.laneOf[st.Proc] >= 0 {
			kinds[st.Kind] = true
		}
	}
	var drawn [len(legendMarks)]bool
	for i := range g.d.Shapes {
		if g.d.Shapes[i].Type != Line {
			continue
		}
		for k := range legendMarks {
			if g.d.Shapes[i].Class == legendMarks[k].class {
				drawn[k] = true
			}
		}
	}
	for _, k := range legendKinds {
		if kinds[k.kind] {
			item(k.class, Shape{Type: k.shape}, k.text)
		}
	}
	for k, m := range legendMarks {
		if drawn[k] {
			item(m.class, Shape{Type: Line}, m.text)
		}
	}
	used := make([]bool, len(g.tl.Mutexes()))
	for _, s := range g.tl.Spans() {
		if s.Start >= g.to {
			break
		}
		if (s.End < 0 || s.End >= g.from) && g.laneOf[s.Proc] >= 0 {
			used[s.Mutex] = true
		}
	}
	for m, u := range used {
		if u {
			item(mutexClass("hold", sim.MutexID(m)), Shape{Type: Rect}, "holds "+g.tl.Mutexes()[m].Name)
		}
	}
	if need := y + 10; need > g.d.Height {
		g.d.Height = need
	}
}

// legendKinds are the glyphs the legend explains, when the window has them.
var legendKinds = []struct {
	kind  sim.StepKind
	class string
	shape ShapeType
	text  string
}{
	{sim.StepReceive, "ev-receive", Circle, "receive"},
	{sim.StepTimer, "ev-timer", Polygon, "timer"},
	{sim.StepLocal, "ev-local", Circle, "step"},
	{sim.StepLock, "ev-lock", Rect, "lock"},
	{sim.StepUnlock, "ev-unlock", Rect, "unlock"},
	{sim.StepBlock, "ev-block", Rect, "blocks"},
	{sim.StepWait, "ev-wait", Circle, "waits on a condition"},
	{sim.StepSignal, "ev-signal", Polygon, "signal"},
	{sim.StepFault, "ev-fault", Line, "fault"},
	{sim.StepExit, "ev-exit", Line, "exit"},
}

// legendMarks are the lines the legend explains, when the diagram has them.
var legendMarks = [...]struct{ class, text string }{
	{"wait", "waits for a lock"},
	{"cycle", "waits for the holder (deadlock)"},
	{"cond-wait", "waits for a signal"},
	{"msg", "message"},
	{"msg-dense", "message"},
	{"msg-inflight", "in flight at the end"},
	{"msg-dropped", "lost message"},
}
