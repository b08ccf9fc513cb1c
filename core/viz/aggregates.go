package viz

import (
	"strconv"
)

// Aggregation: a window of more than aggMinSteps steps also carries, per
// lane, one mark for every AggCols-th of the plot's width that has steps.
const (
	AggCols     = 400
	AggMinPx    = 2.0
	aggMinSteps = 2 * AggCols
	aggH        = 12
	// OverviewCols is the resolution of Display.Overview.
	OverviewCols = 600
)

// aggregates adds the merged marks of a dense window: the number of a
// lane's steps in a column, in four shades.
func (g *diagram) aggregates() {
	if g.to-g.from < aggMinSteps {
		return
	}
	w := (g.right - g.left) / AggCols
	type cell struct{ n, first, last int }
	cells := make([]cell, len(g.lanes)*AggCols)
	most := 0
	for i := g.from; i < g.to; i++ {
		li := g.laneOf[g.tr.Step(i).Proc]
		if li < 0 {
			continue
		}
		col := min(AggCols-1, max(0, int((g.x(i)-g.left)/w)))
		c := &cells[li*AggCols+col]
		if c.n == 0 {
			c.first = i
		}
		c.n++
		c.last = i
		most = max(most, c.n)
	}
	// By shade, so a painter fills each shade as one path.
	for level := 1; level <= 4; level++ {
		for li := range g.lanes {
			y := g.lanes[li].cy - aggH/2
			for col := 0; col < AggCols; col++ {
				c := cells[li*AggCols+col]
				if c.n == 0 || min(4, 1+(4*c.n-1)/most) != level {
					continue
				}
				title := strconv.Itoa(c.n) + " steps of " + g.lanes[li].info.Label + ", steps " + strconv.Itoa(c.first+1) + "–" + strconv.Itoa(c.last+1)
				g.add(Shape{Type: Rect, Class: "agg-" + strconv.Itoa(level), X: g.left + float64(col)*w, Y: y, W: w, H: aggH, Step: c.first, Dim: g.dim(c.first), Title: title})
			}
		}
	}
	g.d.Aggregated = true
}
