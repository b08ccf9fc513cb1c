package viz

import (
	"fmt"
	"math"
	"sort"

	"github.com/racetrack-sim/racetrack/core/timeline"
)

// ChartOptions choose the charts of a window.
type ChartOptions struct {
	// From and To bound the window [From, To); To 0 means the end.
	From int `json:"from"`
	To   int `json:"to"`
	// Cursor is the step marked on every chart with each series' value
	// there; -1 (or any step outside the window) draws no cursor.
	Cursor int `json:"cursor"`
	// Series names the series to draw (nil: all). Series of one group
	// and unit share a panel.
	Series []string `json:"series"`
	// Axis is "time", "step" or "" (as in Options).
	Axis   string  `json:"axis"`
	Width  float64 `json:"width"`
	Height float64 `json:"height"`
}

const (
	chartLeft     = 64
	chartTitleH   = 24
	chartGap      = 16
	chartPanelMin = 90
	chartPanelDef = 150
	chartPanelMax = 260
)

type panel struct {
	title  string
	series []timeline.SeriesView
}

// Charts draws the run's series over a window as stacked panels sharing
// the horizontal axis of the diagram.
func Charts(tl *timeline.Timeline, opt ChartOptions) (*Display, error) {
	from, to, err := window(tl, opt.From, opt.To)
	if err != nil {
		return nil, err
	}
	if err := checkSize(opt.Width, opt.Height); err != nil {
		return nil, err
	}
	all := tl.Series()
	if tl.Untimed() && opt.Series == nil {
		all = withoutIdleDurations(all)
	}
	panels, err := chartPanels(all, opt.Series)
	if err != nil {
		return nil, err
	}
	g := &diagram{tl: tl, tr: tl.Trace(), from: from, to: to}
	if err := g.chooseAxis(opt.Axis); err != nil {
		return nil, err
	}
	w := opt.Width
	if w <= 0 {
		w = defaultWidth
	}
	g.left, g.right = chartLeft, w-marginRight
	if g.right-g.left < 100 {
		g.right = g.left + 100
		w = g.right + marginRight
	}
	g.padTime()
	ph := float64(chartPanelDef)
	if opt.Height > 0 && len(panels) > 0 {
		avail := opt.Height - axisHeight - float64(len(panels))*(chartTitleH+chartGap)
		ph = max(chartPanelMin, min(chartPanelMax, avail/float64(len(panels))))
	}
	d := &Display{Kind: "charts", Width: w, From: from, To: to, Styles: chartStyles()}
	g.d = d
	if g.timeAxis {
		d.X = XScale{Axis: "time", Domain: [2]float64{g.t0, g.t1}}
	} else {
		d.X = XScale{Axis: "step", Domain: [2]float64{float64(from) - 0.5, float64(to) - 0.5}}
	}
	y := 8.0
	cursor := opt.Cursor >= from && opt.Cursor < to
	for k, p := range panels {
		top := y + chartTitleH
		box := Box{X: g.left, Y: top, W: g.right - g.left, H: ph}
		if k == 0 {
			d.Plot = box
		}
		g.chartPanel(p, box, opt.Cursor, cursor)
		y = top + ph + chartGap
	}
	if len(panels) == 0 {
		g.add(Shape{Type: Text, Class: "chart-empty", X: w / 2, Y: y + 30, Text: "this run records no series", Step: -1})
		y += 50
	}
	g.top, g.bottom = 8+chartTitleH, y-chartGap
	if len(panels) > 0 {
		g.axis(false)
	}
	d.Height = g.bottom + axisHeight
	return d, nil
}

// withoutIdleDurations drops the series of durations that stay zero: in
// an untimed run every time is zero, and a flat "locks — ms" chart says
// nothing (a person may still ask for it by name).
func withoutIdleDurations(all []timeline.SeriesView) []timeline.SeriesView {
	out := all[:0:0]
	for _, s := range all {
		idle := s.Unit == "ms"
		for _, p := range s.Points {
			idle = idle && p.Value == 0
		}
		if !idle {
			out = append(out, s)
		}
	}
	return out
}

func chartPanels(all []timeline.SeriesView, names []string) ([]panel, error) {
	chosen := all
	if names != nil {
		chosen = nil
		for _, n := range names {
			found := false
			for _, s := range all {
				if s.Name == n {
					chosen = append(chosen, s)
					found = true
					break
				}
			}
			if !found {
				known := make([]string, len(all))
				for i, s := range all {
					known[i] = s.Name
				}
				return nil, fmt.Errorf("%w: unknown series %q; the run records %q", ErrWindow, n, known)
			}
		}
		sort.SliceStable(chosen, func(a, b int) bool { return chosen[a].ID < chosen[b].ID })
	}
	var out []panel
	for _, s := range chosen {
		title := s.Group
		if s.Unit != "" {
			if title != "" {
				title += " — "
			}
			title += s.Unit
		}
		if title == "" {
			title = s.Name
		}
		k := len(out) - 1
		for ; k >= 0; k-- {
			if out[k].title == title {
				break
			}
		}
		if k < 0 {
			out = append(out, panel{title: title})
			k = len(out) - 1
		}
		out[k].series = append(out[k].series, s)
	}
	return out, nil
}

// valueAt is the value a series holds at step i (ok false before its
// first sample).
func valueAt(s timeline.SeriesView, i int) (float64, bool) {
	k := sort.Search(len(s.Points), func(k int) bool { return s.Points[k].Step > i })
	if k == 0 {
		return 0, false
	}
	return s.Points[k-1].Value, true
}

func (g *diagram) chartPanel(p panel, box Box, cur int, cursor bool) {
	lo, hi := math.Inf(1), math.Inf(-1)
	integral := true
	for _, s := range p.series {
		if v, ok := valueAt(s, g.from); ok {
			lo, hi = min(lo, v), max(hi, v)
			integral = integral && v == math.Trunc(v)
		}
		for _, pt := range s.Points {
			if pt.Step > g.from && pt.Step < g.to {
				lo, hi = min(lo, pt.Value), max(hi, pt.Value)
				integral = integral && pt.Value == math.Trunc(pt.Value)
			}
		}
	}
	if math.IsInf(lo, 1) {
		lo, hi = 0, 1
	}
	if lo > 0 {
		lo = 0
	}
	if hi <= lo {
		hi = lo + 1
	}
	ticks := coverTicks(lo, hi, 4, integral)
	hi = max(hi, ticks[len(ticks)-1])
	lo = min(lo, ticks[0])
	// A 5 px inset keeps lines at the extremes off the frame.
	const inset = 5
	yOf := func(v float64) float64 { return box.Y + box.H - inset - (v-lo)*(box.H-2*inset)/(hi-lo) }

	g.add(Shape{Type: Rect, Class: "chart-frame", X: box.X, Y: box.Y, W: box.W, H: box.H, Step: -1})
	for _, t := range ticks {
		y := yOf(t)
		g.add(Shape{Type: Line, Class: "grid", X: box.X, Y: y, X2: box.X + box.W, Y2: y, Step: -1})
		g.add(Shape{Type: Text, Class: "ytick-label", X: box.X - 6, Y: y + 4, Text: formatValue(t), Step: -1})
	}
	for _, v := range g.tl.Violations() {
		if v.Step >= g.from && v.Step < g.to {
			x := g.xOf(v.Step)
			g.add(Shape{Type: Line, Class: "chart-violation", X: x, Y: box.Y, X2: x, Y2: box.Y + box.H, Step: v.Step, Title: v.Property + ": " + v.Message})
		}
	}
	g.add(Shape{Type: Text, Class: "chart-title", X: box.X, Y: box.Y - 8, Text: p.title, Step: -1})
	lx := box.X + textWidth(p.title, 12) + 24
	right := box.X + box.W
	xEnd := g.xOf(g.to - 1)
	for k, s := range p.series {
		cls := seriesClass(k)
		name := truncate(s.Name, labelPx, 220)
		if lx+textWidth(name, labelPx)+22 <= right {
			g.add(Shape{Type: Line, Class: cls, X: lx, Y: box.Y - 12, X2: lx + 16, Y2: box.Y - 12, Step: -1})
			g.add(Shape{Type: Text, Class: "legend", X: lx + 20, Y: box.Y - 8, Text: name, Step: -1})
			lx += textWidth(name, labelPx) + 36
		}
		pts := make([]float64, 0, 8)
		v, ok := valueAt(s, g.from)
		if ok {
			pts = append(pts, g.left, yOf(v))
		}
		for _, pt := range s.Points {
			if pt.Step <= g.from || pt.Step >= g.to {
				continue
			}
			x := g.xOf(pt.Step)
			if ok {
				pts = append(pts, x, yOf(v))
			}
			v, ok = pt.Value, true
			pts = append(pts, x, yOf(v))
		}
		if ok {
			pts = append(pts, max(xEnd, pts[len(pts)-2]), yOf(v))
			g.add(Shape{Type: Polyline, Class: cls, Points: pts, Step: -1, Title: s.Name})
		}
		if cursor {
			if cv, ok := valueAt(s, cur); ok {
				x := g.xOf(cur)
				g.add(Shape{Type: Circle, Class: cls + "-dot", X: x, Y: yOf(cv), R: 3.5, Step: cur})
				vcls := cls + "-value"
				tx := x + 6
				if x > right-80 {
					vcls, tx = cls+"-value-end", x-6
				}
				g.add(Shape{Type: Text, Class: vcls, X: tx, Y: box.Y + 14 + float64(k)*13, Text: formatValue(cv), Step: cur, Title: s.Name})
			}
		}
	}
	if cursor {
		x := g.xOf(cur)
		g.add(Shape{Type: Line, Class: "cursor", X: x, Y: box.Y, X2: x, Y2: box.Y + box.H, Step: cur})
	}
}

func seriesClass(id int) string {
	return "series-" + string(rune('0'+id%len(seriesPalette)))
}

func chartStyles() []Style {
	st := []Style{
		{Class: "chart-frame", Fill: "#ffffff", Stroke: "#9aa1ab", StrokeWidth: 1},
		{Class: "chart-title", Fill: "#222222", FontSize: 12, FontWeight: "bold", Anchor: "start"},
		{Class: "chart-empty", Fill: "#666666", FontSize: 12, Anchor: "middle"},
		{Class: "grid", Stroke: "#e3e6ea", StrokeWidth: 1},
		{Class: "axis", Stroke: "#555555", StrokeWidth: 1},
		{Class: "tick-label", Fill: "#444444", FontSize: 11, Anchor: "middle"},
		{Class: "ytick-label", Fill: "#444444", FontSize: 11, Anchor: "end"},
		{Class: "axis-title", Fill: "#444444", FontSize: 11, Anchor: "end"},
		{Class: "legend", Fill: "#333333", FontSize: labelPx, Anchor: "start"},
		{Class: "cursor", Stroke: "#222222", StrokeWidth: 1, Dash: "3 2"},
		{Class: "chart-violation", Stroke: okVermilion, StrokeWidth: 1.5, Dash: "4 2"},
	}
	for k, c := range seriesPalette {
		st = append(st, Style{Class: seriesClass(k), Stroke: c, StrokeWidth: 2},
			Style{Class: seriesClass(k) + "-dot", Fill: c, Stroke: "#ffffff", StrokeWidth: 1},
			Style{Class: seriesClass(k) + "-value", Fill: textPalette[k], FontSize: labelPx, FontWeight: "bold", Anchor: "start"},
			Style{Class: seriesClass(k) + "-value-end", Fill: textPalette[k], FontSize: labelPx, FontWeight: "bold", Anchor: "end"})
	}
	return st
}
