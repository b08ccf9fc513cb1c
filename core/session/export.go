package session

import (
	"bytes"
	"fmt"
	"io"
	"strings"

	"github.com/racetrack-sim/racetrack/core/export"
	"github.com/racetrack-sim/racetrack/core/timeline"
	"github.com/racetrack-sim/racetrack/core/viz"
)

// Format is an export format.
type Format struct {
	ID     string `json:"id"`
	Title  string `json:"title"`
	Media  string `json:"media"`
	Suffix string `json:"suffix"`
}

// formats is the one list of export formats (the page makes a button of
// each, titled Title, in this order).
var formats = []Format{
	{"svg", "SVG", "image/svg+xml", ".svg"},
	{"shiviz", "ShiViz", "text/plain; charset=utf-8", ".shiviz.log"},
	{"chrome", "Chrome trace", "application/json", ".trace.json"},
	{"json", "JSON", "application/json", ".json"},
}

// Formats lists the export formats.
func Formats() []Format { return append([]Format(nil), formats...) }

// FormatIDs is the formats' ids, comma separated, for messages.
func FormatIDs() string {
	ids := make([]string, len(formats))
	for i, f := range formats {
		ids[i] = f.ID
	}
	return strings.Join(ids, ", ")
}

// ExportArgs asks for a run in a format.
type ExportArgs struct {
	RunArgs
	Format string `json:"format"`
}

// Exported is a run written in a format, ready to download.
type Exported struct {
	Format string `json:"format"`
	Name   string `json:"name"`
	Media  string `json:"media"`
	Text   string `json:"text"`
}

// MaxExportSteps bounds the runs an export writes into memory (the
// session's answer; REST streams instead): a longer run is refused before
// any work.
const MaxExportSteps = 500_000

// ExportWriter returns a format and the writer that streams a run in it;
// parent is the run's fork edge, if any (the JSON format carries it).
func ExportWriter(format string, parent *timeline.Branch) (Format, export.Writer, error) {
	var f *Format
	for i := range formats {
		if formats[i].ID == format {
			f = &formats[i]
		}
	}
	if f == nil {
		if format == "" {
			return Format{}, nil, errorf(CodeBadRequest, "format", "format is required: one of %s", FormatIDs())
		}
		return Format{}, nil, errorf(CodeInvalid, "format", "unknown format %q: one of %s", clip(format, 20), FormatIDs())
	}
	switch f.ID {
	case "json":
		return *f, func(w io.Writer, tl *timeline.Timeline) error { return export.WriteJSONForked(w, tl, parent) }, nil
	case "shiviz":
		return *f, export.WriteShiViz, nil
	case "chrome":
		return *f, export.WriteChrome, nil
	}
	return *f, writeSVG, nil
}

// MaxSVGSteps bounds the window of the svg export: a diagram is read,
// not scrolled, and a longer one is a wall.
const MaxSVGSteps = 5000

// SVGWindow is the window of steps the svg export draws: the whole run
// when it fits MaxSVGSteps, else MaxSVGSteps steps ending a little after
// the first violation (or the first MaxSVGSteps).
func SVGWindow(tl *timeline.Timeline) (from, to int) {
	n := tl.Len()
	if n <= MaxSVGSteps {
		return 0, n
	}
	to = MaxSVGSteps
	if vs := tl.Violations(); len(vs) > 0 {
		to = min(n, max(MaxSVGSteps, vs[0].Step+MaxSVGSteps/10))
	}
	return to - MaxSVGSteps, to
}

// writeSVG writes the diagram of the run's SVGWindow.
func writeSVG(w io.Writer, tl *timeline.Timeline) error {
	if tl.Len() == 0 {
		return errorf(CodeInvalid, "run", "the run has no steps to draw")
	}
	from, to := SVGWindow(tl)
	d, err := viz.Layout(tl, viz.Options{From: from, To: to, Width: diagramWidth(to - from)})
	if err != nil {
		return err
	}
	_, err = w.Write(viz.SVG(d))
	return err
}

// Export writes a run in a format into memory (the session's answer);
// parent is its fork edge, if any.
func Export(tl *timeline.Timeline, parent *timeline.Branch, format string) (Exported, error) {
	f, write, err := ExportWriter(format, parent)
	if err != nil {
		return Exported{}, err
	}
	if tl.Len() > MaxExportSteps {
		return Exported{}, errorf(CodeInvalid, "run", "the run has %d steps; an export writes at most %d", tl.Len(), MaxExportSteps)
	}
	var b bytes.Buffer
	if err := write(&b, tl); err != nil {
		return Exported{}, err
	}
	return Exported{Format: f.ID, Name: exportName(tl) + f.Suffix, Media: f.Media, Text: b.String()}, nil
}

// exportName names an export after what it holds: scenario, variant and
// seed, and "-schedule" for a run that follows a schedule of its own (a
// fork or a search's counterexample), e.g. dining-philosophers-buggy-seed7;
// an imported log by its id.
func exportName(tl *timeline.Timeline) string {
	if tl.IsImported() {
		return tl.ID()
	}
	spec := tl.Spec()
	name := fmt.Sprintf("%s-%s-seed%d", spec.Scenario, spec.Variant, spec.Seed)
	if spec.Schedule != nil {
		name += "-schedule"
	}
	return name
}
