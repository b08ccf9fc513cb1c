package viz

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/racetrack-sim/racetrack/core/sim"
	"github.com/racetrack-sim/racetrack/core/timeline"
)

// Options choose what a diagram shows.
type Options struct {
	// From and To bound the window of steps [From, To); To 0 means the
	// end of the run.
	From int `json:"from"`
	To   int `json:"to"`
	// Axis is "time" (virtual time), "step" (step index) or "" (time for
	// timed runs, step for untimed ones or windows at a single instant).
	Axis string `json:"axis"`
	// Lanes lists the processes to show (empty: all).
	Lanes []int `json:"lanes"`
	// CollapseShards draws all sharded processes of a node in one lane.
	CollapseShards bool `json:"collapseShards"`
	// Highlight lists steps to emphasise (a causal slice); all other
	// shapes are dimmed. Empty: nothing is dimmed.
	Highlight []int `json:"highlight"`
	// Width and Height are the size in pixels (0: 1200 wide, height from
	// the number of lanes). Height is a target: lanes are never squeezed
	// below a readable minimum.
	Width  float64 `json:"width"`
	Height float64 `json:"height"`
}

// Geometry of a diagram.
const (
	defaultWidth = 1200
	marginTop    = 30
	marginRight  = 24
	axisHeight   = 44
	legendRow    = 20
	laneMin      = 26
	laneDefault  = 46
	laneMax      = 64
	labelPx      = 10
	laneLabelPx  = 12
	glyphR       = 4.5
	holdH        = 5
	holdGap      = 1.5
	maxHoldSlots = 3
	maxLabelW    = 160
	labelRoom    = 4
	// maxTitled is the largest window whose glyphs carry hover titles
	// (an SVG has no other way to name a step; a canvas looks steps up).
	maxTitled = 2000
)

// MaxSize bounds the width and height of a display, in pixels.
const MaxSize = 100_000

func checkSize(w, h float64) error {
	for _, v := range []float64{w, h} {
		if math.IsNaN(v) || v < 0 || v > MaxSize {
			return fmt.Errorf("%w: width and height must be in [0, %d] px (0: automatic), got %v x %v", ErrWindow, MaxSize, w, h)
		}
	}
	return nil
}

// window resolves From/To against the timeline.
func window(tl *timeline.Timeline, from, to int) (int, int, error) {
	n := tl.Len()
	if to == 0 {
		to = n
	}
	if from < 0 || to > n || from >= to {
		if n == 0 {
			return 0, 0, fmt.Errorf("%w: %w: the run has no steps", ErrWindow, timeline.ErrStepRange)
		}
		return 0, 0, fmt.Errorf("%w: %w: window [%d, %d) must satisfy 0 <= from < to <= %d", ErrWindow, timeline.ErrStepRange, from, to, n)
	}
	return from, to, nil
}

type lane struct {
	info  LaneInfo
	node  sim.NodeID
	shard int
	cy    float64
}

type diagram struct {
	tl       *timeline.Timeline
	tr       *sim.Trace
	from, to int
	d        *Display
	lanes    []lane
	laneOf   []int // proc -> lane index, -1 hidden
	xs       []float64
	hl       []bool
	left     float64
	right    float64
	top      float64
	bottom   float64
	timeAxis bool
	t0, t1   float64 // time domain (ms) of a time axis
	laneH    float64
	// laneSteps counts the window's steps in each lane.
	laneSteps []int
	// msgClass is "msg", or "msg-dense" when arrows would cover the plot.
	msgClass string
	// barY is the y of each drawn hold bar, by the hold's start step.
	barY map[holdKey]float64
}

// holdKey names a hold: its process, mutex and first step.
type holdKey struct {
	proc  sim.ProcID
	mutex sim.MutexID
	start int
}

// Layout computes the space-time diagram of a window of tl.
func Layout(tl *timeline.Timeline, opt Options) (*Display, error) {
	from, to, err := window(tl, opt.From, opt.To)
	if err != nil {
		return nil, err
	}
	if err := checkSize(opt.Width, opt.Height); err != nil {
		return nil, err
	}
	g := &diagram{tl: tl, tr: tl.Trace(), from: from, to: to}
	if err := g.chooseAxis(opt.Axis); err != nil {
		return nil, err
	}
	if err := g.buildLanes(opt); err != nil {
		return nil, err
	}
	if len(opt.Highlight) > 0 {
		g.hl = make([]bool, to-from)
		for _, s := range opt.Highlight {
			if s >= from && s < to {
				g.hl[s-from] = true
			}
		}
	}
	g.geometry(opt)
	g.d.Shapes = make([]Shape, 0, 2*(to-from)+256)
	g.backgrounds()
	g.axis(true)
	g.spans()
	g.messages()
	g.glyphs()
	g.violations()
	g.cycles()
	g.aggregates()
	g.legend()
	g.d.Overview = g.overview()
	return g.d, nil
}

func (g *diagram) chooseAxis(axis string) error {
	first, last := g.tr.Step(g.from).Time.Millis(), g.tr.Step(g.to-1).Time.Millis()
	switch axis {
	case "":
		g.timeAxis = !g.tl.Untimed() && last > first
	case "time":
		g.timeAxis = true
	case "step":
	default:
		return fmt.Errorf("%w: axis %q; one of time, step", ErrWindow, axis)
	}
	if g.timeAxis {
		g.t0, g.t1 = first, last
		if g.t1 <= g.t0 {
			g.t1 = g.t0 + 1
		}
		pad := (g.t1 - g.t0) * 0.01
		g.t0 -= pad
		g.t1 += pad
	}
	return nil
}

// buildLanes orders the shown processes by node, shard and id and assigns
// them lanes.
func (g *diagram) buildLanes(opt Options) error {
	procs := g.tl.Procs()
	shown := make([]bool, len(procs))
	if len(opt.Lanes) == 0 {
		for i := range shown {
			shown[i] = true
		}
	}
	for _, p := range opt.Lanes {
		if p < 0 || p >= len(procs) {
			return fmt.Errorf("%w: lane %d is not a process; processes are 0..%d", ErrWindow, p, len(procs)-1)
		}
		shown[p] = true
	}
	order := make([]int, 0, len(procs))
	for i := range procs {
		if shown[i] {
			order = append(order, i)
		}
	}
	sort.SliceStable(order, func(a, b int) bool {
		pa, pb := &procs[order[a]], &procs[order[b]]
		if pa.Node != pb.Node {
			return pa.Node < pb.Node
		}
		if pa.Shard != pb.Shard {
			return pa.Shard < pb.Shard
		}
		return pa.ID < pb.ID
	})
	g.laneOf = make([]int, len(procs))
	for i := range g.laneOf {
		g.laneOf[i] = -1
	}
	for _, id := range order {
		p := &procs[id]
		if opt.CollapseShards && p.Shard >= 0 {
			if k := len(g.lanes) - 1; k >= 0 && g.lanes[k].node == p.Node && g.lanes[k].shard >= 0 {
				g.lanes[k].info.Procs = append(g.lanes[k].info.Procs, id)
				g.lanes[k].info.Label = "shard " + strconv.Itoa(p.Shard)
				if p.Shard != g.lanes[k].shard {
					g.lanes[k].info.Label = "shards " + strconv.Itoa(g.lanes[k].shard) + "–" + strconv.Itoa(p.Shard)
				}
				g.laneOf[id] = k
				continue
			}
		}
		label := p.Name
		if p.Shard >= 0 && !strings.Contains(label, strconv.Itoa(p.Shard)) {
			label += " · shard " + strconv.Itoa(p.Shard)
		}
		g.laneOf[id] = len(g.lanes)
		g.lanes = append(g.lanes, lane{info: LaneInfo{Label: label, Node: int(p.Node), Procs: []int{id}}, node: p.Node, shard: p.Shard})
	}
	return nil
}

func (g *diagram) geometry(opt Options) {
	w := opt.Width
	if w <= 0 {
		w = defaultWidth
	}
	nodes := g.tl.Nodes()
	labelW := 40.0
	for _, l := range g.lanes {
		labelW = max(labelW, textWidth(l.info.Label, laneLabelPx))
	}
	nodeW := 0.0
	for _, n := range nodes {
		nodeW = max(nodeW, textWidth(n.Name, laneLabelPx))
	}
	labelW = min(labelW, 180)
	nodeW = min(nodeW, 140)
	g.left = 12 + nodeW + 14 + labelW + 12
	g.right = w - marginRight
	if g.right-g.left < 100 {
		g.right = g.left + 100
		w = g.right + marginRight
	}
	g.laneH = laneDefault
	legendH := 2.0 * legendRow
	if opt.Height > 0 && len(g.lanes) > 0 {
		g.laneH = (opt.Height - marginTop - axisHeight - legendH) / float64(len(g.lanes))
		g.laneH = max(laneMin, min(laneMax, g.laneH))
	}
	g.top = marginTop
	y := g.top
	for i := range g.lanes {
		g.lanes[i].info.Y = y
		g.lanes[i].info.H = g.laneH
		g.lanes[i].cy = y + g.laneH*0.40
		y += g.laneH
	}
	g.bottom = y
	h := g.bottom + axisHeight + legendH
	g.d = &Display{Kind: "diagram", Width: w, Height: h, From: g.from, To: g.to,
		Plot: Box{X: g.left, Y: g.top, W: g.right - g.left, H: g.bottom - g.top}, Styles: diagramStyles()}
	if g.timeAxis {
		g.d.X = XScale{Axis: "time", Domain: [2]float64{g.t0, g.t1}}
	} else {
		g.d.X = XScale{Axis: "step", Domain: [2]float64{float64(g.from) - 0.5, float64(g.to) - 0.5}}
	}
	for _, l := range g.lanes {
		g.d.Lanes = append(g.d.Lanes, l.info)
	}
	g.xs = make([]float64, g.to-g.from)
	for i := g.from; i < g.to; i++ {
		g.xs[i-g.from] = g.xOf(i)
	}
	g.laneSteps = make([]int, len(g.lanes))
	sends := 0
	for i := g.from; i < g.to; i++ {
		if li := g.laneOf[g.tr.Step(i).Proc]; li >= 0 {
			g.laneSteps[li]++
		}
		sends += len(g.tl.Sends(i))
	}
	g.msgClass = "msg"
	if float64(sends)*4 > g.right-g.left {
		g.msgClass = "msg-dense"
	}
	if g.timeAxis {
		g.spreadTies()
	}
}

// spreadTies moves apart the glyphs of one lane that a time axis would
// draw on top of each other (steps at the same virtual time), when the
// lane has room for it: every step stays visible, at the cost of a few
// pixels of time.
func (g *diagram) spreadTies() {
	const sep = 2*glyphR + 2
	count := g.laneSteps
	last := make([]float64, len(g.lanes))
	for li := range last {
		last[li] = -1e9
	}
	for i := g.from; i < g.to; i++ {
		li := g.laneOf[g.tr.Step(i).Proc]
		if li < 0 || float64(count[li])*sep > (g.right-g.left)/2 {
			continue
		}
		x := &g.xs[i-g.from]
		*x = min(max(*x, last[li]+sep), g.right)
		last[li] = *x
	}
}

// stepX is the x of step i: its glyph's inside the window, else where
// the axis puts it (for arrows that leave the window).
func (g *diagram) stepX(i int) float64 {
	if i >= g.from && i < g.to {
		return g.xs[i-g.from]
	}
	return g.xOf(i)
}

// xOf is the x of step i, also outside the window (for clipping).
func (g *diagram) xOf(i int) float64 {
	if g.timeAxis {
		return g.xOfTime(g.tr.Step(i).Time.Millis())
	}
	dom := g.d.X.Domain
	return g.left + (float64(i)-dom[0])*(g.right-g.left)/(dom[1]-dom[0])
}

func (g *diagram) xOfTime(ms float64) float64 {
	return g.left + (ms-g.t0)*(g.right-g.left)/(g.t1-g.t0)
}

func (g *diagram) x(i int) float64 { return g.xs[i-g.from] }

func (g *diagram) dim(step int) bool {
	if g.hl == nil {
		return false
	}
	return step < g.from || step >= g.to || !g.hl[step-g.from]
}

func (g *diagram) add(s Shape) { g.d.Shapes = append(g.d.Shapes, s) }

func (g *diagram) backgrounds() {
	nodes := g.tl.Nodes()
	band := 0
	for i := 0; i < len(g.lanes); {
		j := i
		for j < len(g.lanes) && g.lanes[j].node == g.lanes[i].node {
			j++
		}
		y0, y1 := g.lanes[i].info.Y, g.lanes[j-1].info.Y+g.laneH
		cls := "band"
		if band%2 == 1 {
			cls = "band-alt"
		}
		band++
		g.add(Shape{Type: Rect, Class: cls, X: 0, Y: y0, W: g.right + marginRight, H: y1 - y0, Step: -1})
		g.add(Shape{Type: Text, Class: "node-label", X: 12, Y: y0 + g.laneH*0.40 + 4, Text: truncate(nodes[g.lanes[i].node].Name, laneLabelPx, 140), Step: -1})
		if i > 0 {
			g.add(Shape{Type: Line, Class: "band-sep", X: 0, Y: y0, X2: g.right + marginRight, Y2: y0, Step: -1})
		}
		i = j
	}
	for _, l := range g.lanes {
		g.add(Shape{Type: Line, Class: "lane", X: g.left, Y: l.cy, X2: g.right, Y2: l.cy, Step: -1})
		g.add(Shape{Type: Text, Class: "lane-label", X: g.left - 10, Y: l.cy + 4, Text: truncate(l.info.Label, laneLabelPx, 180), Step: -1})
	}
}

func (g *diagram) axis(grid bool) {
	y := g.bottom + 6
	g.add(Shape{Type: Line, Class: "axis", X: g.left, Y: y, X2: g.right, Y2: y, Step: -1})
	nt := max(2, int((g.right-g.left)/110))
	var lo, hi float64
	var fmtTick func(float64) string
	title := "step"
	if g.timeAxis {
		lo, hi = g.t0, g.t1
		f, unit := timeFormatter(hi - lo)
		fmtTick = f
		title = "virtual time (" + unit + ")"
	} else {
		lo, hi = float64(g.from), float64(g.to-1)
		// Step numbers are 1-based wherever a person reads them.
		fmtTick = func(v float64) string { return strconv.Itoa(int(v) + 1) }
	}
	ticks := niceTicks(lo, hi, nt)
	if !g.timeAxis {
		ticks = integerTicks(ticks)
	}
	// Grid lines, then tick marks, then labels: a painter strokes each
	// group as one path instead of switching style at every tick.
	xs := make([]float64, 0, len(ticks))
	vs := make([]float64, 0, len(ticks))
	for _, v := range ticks {
		var x float64
		if g.timeAxis {
			x = g.xOfTime(v)
		} else {
			x = g.xOf(int(v))
		}
		if x < g.left-0.5 || x > g.right+0.5 {
			continue
		}
		xs, vs = append(xs, x), append(vs, v)
	}
	if grid {
		for _, x := range xs {
			g.add(Shape{Type: Line, Class: "grid", X: x, Y: g.top, X2: x, Y2: g.bottom, Step: -1})
		}
	}
	for _, x := range xs {
		g.add(Shape{Type: Line, Class: "axis", X: x, Y: y, X2: x, Y2: y + 5, Step: -1})
	}
	for k, x := range xs {
		g.add(Shape{Type: Text, Class: "tick-label", X: x, Y: y + 18, Text: fmtTick(vs[k]), Step: -1})
	}
	g.add(Shape{Type: Text, Class: "axis-title", X: g.right, Y: y + 34, Text: title, Step: -1})
}

func integerTicks(ticks []float64) []float64 {
	out := ticks[:0]
	for _, v := range ticks {
		if v == float64(int(v)) && (len(out) == 0 || out[len(out)-1] != v) {
			out = append(out, v)
		}
	}
	return out
}

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

// overview counts the whole run's steps per lane and column.
func (g *diagram) overview() *Overview {
	n := g.tl.Len()
	cols := min(OverviewCols, n)
	o := &Overview{Steps: n, Cols: cols, Counts: make([][]int, len(g.lanes))}
	for li := range o.Counts {
		o.Counts[li] = make([]int, cols)
	}
	for i := 0; i < n; i++ {
		li := g.laneOf[g.tr.Step(i).Proc]
		if li < 0 {
			continue
		}
		col := i * cols / n
		o.Counts[li][col]++
		o.Max = max(o.Max, o.Counts[li][col])
	}
	return o
}

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

func diagramStyles() []Style {
	st := []Style{
		{Class: "band", Fill: "#ffffff"},
		{Class: "band-alt", Fill: "#f3f4f6"},
		{Class: "band-sep", Stroke: "#d0d4da", StrokeWidth: 1},
		{Class: "lane", Stroke: "#9aa1ab", StrokeWidth: 1},
		{Class: "node-label", Fill: "#222222", FontSize: laneLabelPx, FontWeight: "bold", Anchor: "start"},
		{Class: "lane-label", Fill: "#333333", FontSize: laneLabelPx, Anchor: "end"},
		{Class: "grid", Stroke: "#e3e6ea", StrokeWidth: 1},
		{Class: "axis", Stroke: "#555555", StrokeWidth: 1},
		{Class: "tick-label", Fill: "#444444", FontSize: 11, Anchor: "middle"},
		{Class: "axis-title", Fill: "#444444", FontSize: 11, Anchor: "end"},
		{Class: "label", Fill: "#333333", FontSize: labelPx, Anchor: "start"},
		{Class: "hold-label", Fill: "#333333", FontSize: 9, Anchor: "start"},
		{Class: "wait-label", Fill: textVermilion, FontSize: labelPx, Anchor: "middle"},
		{Class: "legend", Fill: "#333333", FontSize: labelPx, Anchor: "start"},
		{Class: "ev-receive", Fill: okBlue, Stroke: "#ffffff", StrokeWidth: 1},
		{Class: "ev-timer", Fill: inkOrange, Stroke: "#ffffff", StrokeWidth: 1},
		{Class: "ev-local", Fill: "#555555"},
		{Class: "ev-lock", Fill: "#222222"},
		{Class: "ev-unlock", Fill: "#ffffff", Stroke: "#222222", StrokeWidth: 1.5},
		{Class: "ev-block", Fill: "#ffffff", Stroke: okVermilion, StrokeWidth: 2},
		{Class: "ev-wait", Fill: "#ffffff", Stroke: inkPurple, StrokeWidth: 2},
		{Class: "ev-signal", Fill: inkPurple},
		{Class: "ev-fault", Stroke: okVermilion, StrokeWidth: 2.5},
		{Class: "ev-exit", Stroke: "#222222", StrokeWidth: 2.5},
		{Class: "wait", Stroke: okVermilion, StrokeWidth: 2.5, Dash: "5 3"},
		{Class: "cond-wait", Stroke: inkPurple, StrokeWidth: 2, Dash: "2 3"},
		{Class: "msg", Stroke: okBlue, StrokeWidth: 1.3},
		{Class: "msg-head", Fill: okBlue},
		{Class: "msg-dense", Stroke: okBlue, StrokeWidth: 0.8, Opacity: 0.35},
		{Class: "msg-dense-head", Fill: okBlue, Opacity: 0.35},
		{Class: "msg-inflight", Stroke: okBlue, StrokeWidth: 1.3, Dash: "3 3"},
		{Class: "msg-inflight-head", Fill: okBlue},
		{Class: "msg-dropped", Stroke: okVermilion, StrokeWidth: 1.3, Dash: "4 3"},
		{Class: "msg-drop-x", Stroke: okVermilion, StrokeWidth: 2},
		{Class: "violation", Stroke: okVermilion, StrokeWidth: 2},
		{Class: "violation-label", Fill: textVermilion, FontSize: 11, FontWeight: "bold", Anchor: "start"},
		{Class: "violation-label-end", Fill: textVermilion, FontSize: 11, FontWeight: "bold", Anchor: "end"},
		{Class: "violation-mark", Fill: okVermilion, Stroke: "#ffffff", StrokeWidth: 1},
		{Class: "cycle", Stroke: cycleInk, StrokeWidth: 2},
		{Class: "agg-1", Fill: okBlue, Opacity: 0.3},
		{Class: "agg-2", Fill: okBlue, Opacity: 0.5},
		{Class: "agg-3", Fill: okBlue, Opacity: 0.75},
		{Class: "agg-4", Fill: okBlue},
		{Class: "cycle-head", Fill: cycleInk},
		{Class: "cycle-label", Fill: cycleInk, FontSize: labelPx, FontWeight: "bold", Anchor: "start"},
		{Class: "cycle-label-end", Fill: cycleInk, FontSize: labelPx, FontWeight: "bold", Anchor: "end"},
	}
	for k, c := range seriesPalette {
		st = append(st, Style{Class: "hold-m" + strconv.Itoa(k), Fill: c})
	}
	return st
}
