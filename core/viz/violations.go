package viz

import (
	"math"
)

// violations marks each step at which properties failed: a line across
// the lanes, the properties' names above it, and a diamond on the lane of
// the process whose step it was.
func (g *diagram) violations() {
	vs := g.tl.Violations()
	// Labels that would overlap the one drawn before shrink to the mark;
	// the hover title still names every property.
	prevRight := math.Inf(-1)
	for k := 0; k < len(vs); k++ {
		v := vs[k]
		names, msgs := v.Property, v.Property+": "+v.Message
		for k+1 < len(vs) && vs[k+1].Step == v.Step {
			k++
			names += ", " + vs[k].Property
			msgs += "\n" + vs[k].Property + ": " + vs[k].Message
		}
		if v.Step < g.from || v.Step >= g.to {
			continue
		}
		x := g.x(v.Step)
		dim := g.dim(v.Step)
		g.add(Shape{Type: Line, Class: "violation", X: x, Y: g.top - 6, X2: x, Y2: g.bottom, Step: v.Step, Dim: dim, Title: msgs})
		text := "✖ " + names
		w := textWidth(text, 11)
		cls, tx, left := "violation-label", x+4, x+4
		if x+w+8 > g.right+marginRight {
			cls, tx, left = "violation-label-end", x-4, x-4-w
		}
		if left < prevRight+6 {
			text, cls, tx, left = "✖", "violation-label", x-4, x-4
			w = textWidth(text, 11)
		}
		prevRight = left + w
		g.add(Shape{Type: Text, Class: cls, X: tx, Y: g.top - 12, Text: text, Step: v.Step, Dim: dim, Title: msgs})
		if li := g.laneOf[g.tr.Step(v.Step).Proc]; li >= 0 {
			y := g.lanes[li].cy
			r := glyphR + 3
			g.add(Shape{Type: Polygon, Class: "violation-mark", Points: []float64{x, y - r, x + r, y, x, y + r, x - r, y}, Step: v.Step, Dim: dim, Title: msgs})
		}
	}
}
