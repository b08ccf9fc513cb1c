package viz

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
)

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
	g.padTime()
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
