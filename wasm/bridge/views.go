package bridge

import (
	"fmt"

	"github.com/racetrack-sim/racetrack/core/export"
	"github.com/racetrack-sim/racetrack/core/timeline"
	"github.com/racetrack-sim/racetrack/core/viz"
)

// The diagram is laid out at pxPerStep pixels per step (within bounds);
// the page zooms and pans from there.
const (
	pxPerStep = 14
	minWidth  = 1200
	maxWidth  = 100_000

	minChartWidth = 320
	maxChartWidth = 4000
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

// charts draws every series of the whole run at the width the page paints
// it (0: viz's default); the page draws its own cursor.
func charts(tl *timeline.Timeline, width float64) (*viz.Display, error) {
	if tl.Len() == 0 || len(tl.Series()) == 0 {
		return &viz.Display{Kind: "charts", Styles: []viz.Style{}, Shapes: []viz.Shape{}}, nil
	}
	width = min(max(width, minChartWidth), maxChartWidth)
	return viz.Charts(tl, viz.ChartOptions{Cursor: -1, Width: width})
}

// exportRun writes the run in one of the page's export formats.
func exportRun(tl *timeline.Timeline, format string) (Raw, error) {
	var b []byte
	var err error
	switch format {
	case "json":
		b, err = export.JSON(tl)
	case "shiviz":
		b, err = export.ShiViz(tl)
	case "chrome":
		b, err = export.Chrome(tl)
	case "svg":
		var d *viz.Display
		if d, err = viz.Layout(tl, viz.Options{Width: diagramWidth(tl.Len())}); err == nil {
			b = viz.SVG(d)
		}
	default:
		return nil, fmt.Errorf("%w: export format %q is not one of json, shiviz, chrome, svg", ErrArgs, format)
	}
	return Raw(b), err
}
