package viz

import (
	"math"

	"github.com/racetrack-sim/racetrack/core/sim"
)

func (g *diagram) messages() {
	for i := g.from; i < g.to; i++ {
		st := g.tr.Step(i)
		if st.Kind == sim.StepReceive && st.Msg > 0 {
			if m := g.tr.Message(st.Msg); int(m.SentStep) < g.from {
				g.arrow(m)
			}
		}
		for _, id := range g.tl.Sends(i) {
			g.arrow(g.tr.Message(id))
		}
	}
}

// arrow draws one message from its send to its receipt (or its loss),
// clipped to the plot.
func (g *diagram) arrow(m *sim.Message) {
	lf, lt := g.laneOf[m.From], g.laneOf[m.To]
	if lf < 0 || lt < 0 {
		return
	}
	send := int(m.SentStep)
	x0, y0 := g.stepX(send), g.lanes[lf].cy
	y1 := g.lanes[lt].cy
	var x1 float64
	cls := g.msgClass
	switch {
	case m.Dropped:
		cls = "msg-dropped"
		if g.timeAxis {
			x1 = g.xOfTime(m.DeliverAt.Millis())
		} else {
			x1 = x0 + 28
		}
		if x1-x0 < 10 {
			x1 = x0 + 10
		}
	case m.RecvStep < 0:
		cls = "msg-inflight"
		x1 = g.right + 40
	default:
		x1 = g.stepX(int(m.RecvStep))
	}
	if lf == lt && x1-x0 < 8 {
		return // a message to the same lane with no room to show it
	}
	cx0, cy0, cx1, cy1, ok := clipX(x0, y0, x1, y1, g.left, g.right)
	if !ok {
		return
	}
	dim := g.dim(send) || (m.RecvStep >= 0 && g.dim(int(m.RecvStep)))
	title := g.tr.Label(m.Label)
	g.add(Shape{Type: Line, Class: cls, X: cx0, Y: cy0, X2: cx1, Y2: cy1, Step: send, Dim: dim, Title: title})
	if cx1 != x1 {
		return // the head lies outside the window
	}
	if m.Dropped {
		const k = 4
		g.add(Shape{Type: Line, Class: "msg-drop-x", X: x1 - k, Y: y1 - k, X2: x1 + k, Y2: y1 + k, Step: send, Dim: dim, Title: title + " (" + m.DropReason.String() + ")"})
		g.add(Shape{Type: Line, Class: "msg-drop-x", X: x1 - k, Y: y1 + k, X2: x1 + k, Y2: y1 - k, Step: send, Dim: dim})
		return
	}
	g.add(Shape{Type: Polygon, Class: cls + "-head", Points: arrowHead(cx0, cy0, cx1, cy1, glyphR), Step: int(m.RecvStep), Dim: dim})
}

// clipX clips a segment to lo <= x <= hi.
func clipX(x0, y0, x1, y1, lo, hi float64) (float64, float64, float64, float64, bool) {
	if (x0 < lo && x1 < lo) || (x0 > hi && x1 > hi) {
		return 0, 0, 0, 0, false
	}
	at := func(x float64) float64 {
		if x1 == x0 {
			return y0
		}
		return y0 + (y1-y0)*(x-x0)/(x1-x0)
	}
	if x0 < lo {
		x0, y0 = lo, at(lo)
	}
	if x1 > hi {
		x1, y1 = hi, at(hi)
	}
	if x1 < lo {
		x1, y1 = lo, at(lo)
	}
	return x0, y0, x1, y1, true
}

// arrowHead is a triangle pointing at (x1, y1), its tip pulled back by
// gap so it touches the receiving glyph's edge.
func arrowHead(x0, y0, x1, y1, gap float64) []float64 {
	dx, dy := x1-x0, y1-y0
	l := math.Hypot(dx, dy)
	if l == 0 {
		return []float64{x1, y1, x1, y1, x1, y1}
	}
	ux, uy := dx/l, dy/l
	tx, ty := x1-ux*gap, y1-uy*gap
	const size, half = 7, 3.2
	bx, by := tx-ux*size, ty-uy*size
	return []float64{tx, ty, bx - uy*half, by + ux*half, bx + uy*half, by - ux*half}
}
