package viz

import (
	"math"
	"slices"

	"github.com/racetrack-sim/racetrack/core/sim"
)

// cycles draws the wait-for cycle at each violation step that closes one
// (a deadlock): an arrow from each blocked process's wait to the bar of
// the mutex's holder, labelled with the mutex. A cycle that lasts past
// its first violation is drawn once.
func (g *diagram) cycles() {
	type edgeKey struct {
		waiter     sim.ProcID
		mutex      sim.MutexID
		wait, hold int
	}
	var drawn []edgeKey
	var placed []float64 // x of the arrows drawn, to keep them apart
	procs, mutexes := g.tl.Procs(), g.tl.Mutexes()
	for _, vi := range g.tl.Violations() {
		v := vi.Step
		if v < g.from || v >= g.to {
			continue
		}
		for _, e := range g.tl.WaitCycles(v) {
			k := edgeKey{e.Waiter, e.Mutex, e.Wait, e.Hold}
			if slices.Contains(drawn, k) {
				continue
			}
			lw, lh := g.laneOf[e.Waiter], g.laneOf[e.Holder]
			by, ok := g.barY[holdKey{e.Holder, e.Mutex, e.Hold}]
			if lw < 0 || lh < 0 || !ok {
				continue
			}
			drawn = append(drawn, k)
			// Beside the waiter's glyph, clear of a violation's line.
			x := max(g.stepX(max(e.Wait, g.from)), g.stepX(max(e.Hold, g.from))) + cycleSep/2
			for slices.ContainsFunc(placed, func(p float64) bool { return math.Abs(p-x) < cycleSep }) {
				x += cycleSep
			}
			x = min(x, g.right)
			placed = append(placed, x)
			wy := g.lanes[lw].cy
			y0, y1 := wy+glyphR+1, by
			if by < wy {
				y0, y1 = wy-glyphR-1, by+holdH
			}
			if lw == lh { // waits for a mutex it holds itself
				y0 = wy - glyphR - 1
			}
			title := procs[e.Waiter].Name + " waits for " + mutexes[e.Mutex].Name + ", held by " + procs[e.Holder].Name
			dim := g.dim(e.Wait)
			g.add(Shape{Type: Line, Class: "cycle", X: x, Y: y0, X2: x, Y2: y1, Step: e.Wait, Dim: dim, Title: title})
			g.add(Shape{Type: Polygon, Class: "cycle-head", Points: arrowHead(x, y0, x, y1, 0), Step: e.Wait, Dim: dim, Title: title})
			// The name sits half-way, alternately right and left of the
			// arrow, so two arrows between the same lanes keep theirs apart.
			cls, lx := "cycle-label", x+4
			if len(drawn)%2 == 0 {
				cls, lx = "cycle-label-end", x-4
			}
			g.add(Shape{Type: Text, Class: cls, X: lx, Y: (y0+y1)/2 + 4, Text: truncate(mutexes[e.Mutex].Name, labelPx, maxLabelW), Step: e.Wait, Dim: dim, Title: title})
		}
	}
}

// cycleSep is the least distance between two arrows of a cycle.
const cycleSep = 14

// cycleInk is a dark vermilion: the arrows and their names stand apart
// from the dashed waits and read at 6:1 on white.
const cycleInk = "#a33a00"
