package bridge

import (
	"github.com/racetrack-sim/racetrack/core/timeline"
	"github.com/racetrack-sim/racetrack/core/viz"
)

// Pixels per step the diagram is laid out with; the page zooms from there.
const (
	pxPerStep   = 14
	minWidth    = 1200
	maxWidth    = 150_000
)

func diagramWidth(steps int) float64 {
	return float64(min(maxWidth, max(minWidth, steps*pxPerStep)))
}

func layout(tl *timeline.Timeline, from, to int) (*viz.Display, error) {
	if to <= 0 || to > tl.Len() {
		to = tl.Len()
	}
	return viz.Layout(tl, viz.Options{From: from, To: to, Width: diagramWidth(to - from)})
}
