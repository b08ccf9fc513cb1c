package viz

import (
	"fmt"
	"math"
	"strconv"
)

// niceTicks returns about n round values (1, 2 or 5 times a power of ten
// apart) covering [lo, hi].
func niceTicks(lo, hi float64, n int) []float64 {
	if !(hi > lo) || n < 1 {
		return []float64{lo}
	}
	step := niceStep((hi - lo) / float64(n))
	start := math.Ceil(lo/step-1e-9) * step
	var out []float64
	for v := start; v <= hi+step*1e-9; v += step {
		out = append(out, roundTo(v, step))
		if len(out) > 4*n+4 {
			break
		}
	}
	return out
}

// coverTicks is niceTicks extended by a step at either end when needed,
// so that the first tick is <= lo and the last >= hi (a chart's range);
// integral values (counts) get whole-number ticks.
func coverTicks(lo, hi float64, n int, integral bool) []float64 {
	t := niceTicks(lo, hi, n)
	if integral && len(t) > 1 && t[1]-t[0] < 1 {
		t = niceTicks(lo, hi, max(1, int(hi-lo)))
	}
	if len(t) < 2 {
		return t
	}
	step := t[1] - t[0]
	if t[0] > lo {
		t = append([]float64{roundTo(t[0]-step, step)}, t...)
	}
	if t[len(t)-1] < hi {
		t = append(t, roundTo(t[len(t)-1]+step, step))
	}
	return t
}

func niceStep(raw float64) float64 {
	p := math.Pow(10, math.Floor(math.Log10(raw)))
	switch f := raw / p; {
	case f <= 1:
		return p
	case f <= 2:
		return 2 * p
	case f <= 5:
		return 5 * p
	}
	return 10 * p
}

// roundTo removes the float noise of accumulating step.
func roundTo(v, step float64) float64 {
	if step >= 1 {
		return math.Round(v)
	}
	digits := math.Ceil(-math.Log10(step)) + 1
	p := math.Pow(10, digits)
	r := math.Round(v*p) / p
	if r == 0 {
		return 0
	}
	return r
}

// formatNum writes v with at most prec decimals and no trailing zeros.
func formatNum(v float64, prec int) string {
	if v == 0 {
		return "0"
	}
	s := strconv.FormatFloat(v, 'f', prec, 64)
	if prec > 0 {
		for s[len(s)-1] == '0' {
			s = s[:len(s)-1]
		}
		if s[len(s)-1] == '.' {
			s = s[:len(s)-1]
		}
	}
	return s
}

// formatValue writes a chart value compactly (12k, 1.5M).
func formatValue(v float64) string {
	a := math.Abs(v)
	switch {
	case a >= 1e9:
		return formatNum(v/1e9, 2) + "G"
	case a >= 1e6:
		return formatNum(v/1e6, 2) + "M"
	case a >= 1e4:
		return formatNum(v/1e3, 1) + "k"
	case a >= 100:
		return formatNum(v, 0)
	case a >= 1:
		return formatNum(v, 2)
	}
	return formatNum(v, 3)
}

// timeFormatter picks the unit of a time axis from its span (ms).
func timeFormatter(span float64) (func(ms float64) string, string) {
	if span >= 5000 {
		return func(ms float64) string { return formatNum(ms/1000, 3) }, "s"
	}
	if span < 0.05 {
		return func(ms float64) string { return formatNum(ms*1000, 3) }, "µs"
	}
	return func(ms float64) string { return formatNum(ms, 3) }, "ms"
}

// textWidth estimates the width of s in a font of size px (an average
// glyph of a sans-serif font is about 0.58 em).
func textWidth(s string, px float64) float64 {
	n := 0
	for range s {
		n++
	}
	return float64(n) * px * 0.58
}

// truncate shortens s to at most width pixels, marking the cut with an
// ellipsis; it returns "" when not even two characters fit.
func truncate(s string, px, width float64) string {
	if textWidth(s, px) <= width {
		return s
	}
	maxChars := int(width/(px*0.58)) - 1
	if maxChars < 2 {
		return ""
	}
	r := []rune(s)
	if len(r) <= maxChars {
		return s
	}
	return string(r[:maxChars]) + "…"
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
	}
	return nil
}

// maxTimePadPx bounds the empty time drawn before the first step and after
// the last: 1% of the plot, but no more than this many pixels (a long
// window is laid out 100,000 px wide, where 1% showed a second of time
// before the run began).
const maxTimePadPx = 12

// padTime widens the time domain a little either side of the window's
// steps, once the plot's width is known, so that no glyph sits on the
// plot's edge.
func (g *diagram) padTime() {
	if !g.timeAxis {
		return
	}
	pad := (g.t1 - g.t0) * min(0.01, maxTimePadPx/(g.right-g.left))
	g.t0 -= pad
	g.t1 += pad
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
		if g.timeAxis && v < 0 && g.tr.Step(g.from).Time >= 0 {
			continue // the pad before a run's start is no time of the run
		}
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
