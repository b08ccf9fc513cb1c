package viz

import (
	"strconv"

	"github.com/racetrack-sim/racetrack/core/sim"
	"github.com/racetrack-sim/racetrack/core/timeline"
)

// mutexClass names the colour class of mutex m.
func mutexClass(kind string, m sim.MutexID) string {
	return kind + "-m" + strconv.Itoa(int(m)%len(seriesPalette))
}

func (g *diagram) spans() {
	mutexes := g.tl.Mutexes()
	procs := g.tl.Procs()
	// slotEnd[lane*maxHoldSlots+k] is the step at which slot k of a lane
	// frees (-1: free).
	slotEnd := make([]int, len(g.lanes)*maxHoldSlots)
	for i := range slotEnd {
		slotEnd[i] = -1
	}
	const open = int(^uint(0) >> 1)
	var bars []bar
	for _, s := range g.tl.Spans() {
		if s.Start >= g.to {
			break
		}
		end := s.End
		if end < 0 {
			end = open
		}
		if end < g.from {
			continue
		}
		li := g.laneOf[s.Proc]
		if li < 0 {
			continue
		}
		l := &g.lanes[li]
		x0, x1 := g.left, g.right
		if s.Start >= g.from {
			x0 = g.x(s.Start)
		}
		if end < g.to {
			x1 = g.x(end)
		}
		name := mutexes[s.Mutex].Name
		switch s.Kind {
		case timeline.SpanWait:
			g.add(Shape{Type: Line, Class: "wait", X: x0, Y: l.cy, X2: x1, Y2: l.cy, Step: s.Start, Dim: g.dim(s.Start),
				Title: procs[s.Proc].Name + " waits for " + name})
			// A blocked process takes no step while it waits, so the middle
			// of a long wait has room to say what it waits for (clear of
			// the blocking step's own label at its start).
			if t := "waits for " + name; x1-x0 >= 2*maxLabelW && textWidth(t, labelPx) < maxLabelW {
				g.add(Shape{Type: Text, Class: "wait-label", X: (x0 + x1) / 2, Y: l.cy - 4, Text: t, Step: s.Start, Dim: g.dim(s.Start)})
			}
			continue
		case timeline.SpanCond:
			g.add(Shape{Type: Line, Class: "cond-wait", X: x0, Y: l.cy, X2: x1, Y2: l.cy, Step: s.Start, Dim: g.dim(s.Start),
				Title: procs[s.Proc].Name + " waits on " + g.tl.Conds()[s.Cond].Name + " (then for " + name + ")"})
			continue
		}
		slot := 0
		for k := 0; k < maxHoldSlots; k++ {
			if e := slotEnd[li*maxHoldSlots+k]; e == -1 || e <= s.Start {
				slot = k
				break
			}
			slot = maxHoldSlots - 1
		}
		slotEnd[li*maxHoldSlots+slot] = end
		y := l.cy + glyphR + 3 + float64(slot)*(holdH+holdGap)
		title := procs[s.Proc].Name + " holds " + name
		if s.End < 0 {
			title += " to the end of the run"
		}
		g.add(Shape{Type: Rect, Class: mutexClass("hold", s.Mutex), X: x0, Y: y, W: max(x1-x0, 1.5), H: holdH, Step: s.Start, Dim: g.dim(s.Start), Title: title})
		if g.barY == nil {
			g.barY = map[holdKey]float64{}
		}
		g.barY[holdKey{s.Proc, s.Mutex, s.Start}] = y
		bars = append(bars, bar{lane: li, slot: slot, x0: x0, x1: x1, y: y, step: s.Start, name: name})
	}
	g.holdLabels(bars)
}

// bar is a placed hold bar.
type bar struct {
	lane, slot int
	x0, x1, y  float64
	step       int
	name       string
}

// holdLabels names the mutex under each hold bar wide enough for it,
// unless a bar of the next slot of the lane lies where the name would.
func (g *diagram) holdLabels(bars []bar) {
	const px = 9
	for _, b := range bars {
		if b.x1-b.x0 < 40 {
			continue
		}
		t := truncate(b.name, px, b.x1-b.x0-6)
		if t == "" {
			continue
		}
		lx0, lx1 := b.x0+3, b.x0+3+textWidth(t, px)
		free := true
		for _, o := range bars {
			if o.lane == b.lane && o.slot == b.slot+1 && o.x0 < lx1 && o.x1 > lx0 {
				free = false
				break
			}
		}
		if free {
			g.add(Shape{Type: Text, Class: "hold-label", X: lx0, Y: b.y + holdH + 9, Text: t, Step: b.step, Dim: g.dim(b.step)})
		}
	}
}
