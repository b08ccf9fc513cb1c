package viz

import (
	"fmt"
	"math"

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

func (g *diagram) dim(step int) bool {
	if g.hl == nil {
		return false
	}
	return step < g.from || step >= g.to || !g.hl[step-g.from]
}

func (g *diagram) add(s Shape) { g.d.Shapes = append(g.d.Shapes, s) }
