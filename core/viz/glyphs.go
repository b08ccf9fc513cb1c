package viz

import (
	"strconv"

	"github.com/racetrack-sim/racetrack/core/sim"
)

func (g *diagram) glyphs() {
	labelEnd := make([]float64, len(g.lanes))
	for i := range labelEnd {
		labelEnd[i] = -1e9
	}
	pxPerStep := (g.right - g.left) / float64(g.to-g.from)
	for i := g.from; i < g.to; i++ {
		st := g.tr.Step(i)
		li := g.laneOf[st.Proc]
		if li < 0 {
			continue
		}
		x, y := g.x(i), g.lanes[li].cy
		dim := g.dim(i)
		g.glyph(st.Kind, x, y, i, dim, pxPerStep)
		// A label needs room: in a lane with more than one step per
		// labelRoom pixels, labels would name arbitrary steps.
		if x >= labelEnd[li] && float64(g.laneSteps[li])*labelRoom <= g.right-g.left {
			label := g.tr.Label(st.Label)
			if t := truncate(label, labelPx, min(maxLabelW, g.right+marginRight-x)); t != "" {
				labelEnd[li] = x + textWidth(t, labelPx) + 8
				g.add(Shape{Type: Text, Class: "label", X: x - 3, Y: y - glyphR - 5, Text: t, Step: i, Dim: dim})
			}
		}
	}
}

func (g *diagram) glyph(k sim.StepKind, x, y float64, step int, dim bool, px float64) {
	title := ""
	if g.to-g.from <= maxTitled {
		title = g.stepTitle(step)
	}
	r := glyphR
	if px < 3 {
		r = 2.5 // dense windows: smaller glyphs, still one per step
	}
	switch k {
	case sim.StepReceive:
		g.add(Shape{Type: Circle, Class: "ev-receive", X: x, Y: y, R: r, Step: step, Dim: dim, Title: title})
	case sim.StepTimer:
		g.add(Shape{Type: Polygon, Class: "ev-timer", Points: []float64{x, y - r - 1, x + r + 1, y, x, y + r + 1, x - r - 1, y}, Step: step, Dim: dim, Title: title})
	case sim.StepLock:
		g.add(Shape{Type: Rect, Class: "ev-lock", X: x - r, Y: y - r, W: 2 * r, H: 2 * r, Step: step, Dim: dim, Title: title})
	case sim.StepBlock:
		g.add(Shape{Type: Rect, Class: "ev-block", X: x - r, Y: y - r, W: 2 * r, H: 2 * r, Step: step, Dim: dim, Title: title})
	case sim.StepUnlock:
		g.add(Shape{Type: Rect, Class: "ev-unlock", X: x - r, Y: y - r, W: 2 * r, H: 2 * r, Step: step, Dim: dim, Title: title})
	case sim.StepWait:
		g.add(Shape{Type: Circle, Class: "ev-wait", X: x, Y: y, R: r, Step: step, Dim: dim, Title: title})
	case sim.StepSignal:
		g.add(Shape{Type: Polygon, Class: "ev-signal", Points: []float64{x, y - r - 1, x + r + 1, y + r, x - r - 1, y + r}, Step: step, Dim: dim, Title: title})
	case sim.StepFault:
		g.add(Shape{Type: Line, Class: "ev-fault", X: x - r, Y: y - r, X2: x + r, Y2: y + r, Step: step, Dim: dim, Title: title})
		g.add(Shape{Type: Line, Class: "ev-fault", X: x - r, Y: y + r, X2: x + r, Y2: y - r, Step: step, Dim: dim, Title: title})
	case sim.StepExit:
		g.add(Shape{Type: Line, Class: "ev-exit", X: x, Y: y - r - 2, X2: x, Y2: y + r + 2, Step: step, Dim: dim, Title: title})
	default:
		g.add(Shape{Type: Circle, Class: "ev-local", X: x, Y: y, R: r * 0.65, Step: step, Dim: dim, Title: title})
	}
}

// stepTitle names a step for hovering, 1-based: "step 12 · phil0 lock: take fork0
// (fork0) at 13 ms".
func (g *diagram) stepTitle(i int) string {
	st := g.tr.Step(i)
	t := "step " + strconv.Itoa(i+1) + " · " + g.tl.Procs()[st.Proc].Name + " " + st.Kind.String() + ": " + g.tr.Label(st.Label)
	if ms := g.tl.Mutexes(); (st.Kind == sim.StepLock || st.Kind == sim.StepBlock || st.Kind == sim.StepUnlock) && st.Obj >= 0 && int(st.Obj) < len(ms) {
		t += " (" + ms[st.Obj].Name + ")"
	}
	if !g.tl.Untimed() {
		t += " at " + formatNum(st.Time.Millis(), 3) + " ms"
	}
	return t
}
