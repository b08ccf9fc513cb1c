package session

import (
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

// formats is the one list of export formats.
var formats = []Format{
	{"json", "JSON (the whole run)", "application/json", ".json"},
	{"shiviz", "ShiViz log", "text/plain; charset=utf-8", ".shiviz.log"},
	{"chrome", "Chrome trace (Perfetto)", "application/json", ".trace.json"},
	{"svg", "SVG diagram", "image/svg+xml", ".svg"},
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

// Export writes a run in a format; parent is its fork edge, if any (the
// JSON format carries it).
func Export(tl *timeline.Timeline, parent *timeline.Branch, format string) (Exported, error) {
	var f *Format
	for i := range formats {
		if formats[i].ID == format {
			f = &formats[i]
		}
	}
	if f == nil {
		if format == "" {
			return Exported{}, errorf(CodeBadRequest, "format", "format is required: one of %s", FormatIDs())
		}
		return Exported{}, errorf(CodeInvalid, "format", "unknown format %q: one of %s", clip(format, 20), FormatIDs())
	}
	var b []byte
	var err error
	switch f.ID {
	case "json":
		b, err = export.JSONForked(tl, parent)
	case "shiviz":
		b, err = export.ShiViz(tl)
	case "chrome":
		b, err = export.Chrome(tl)
	case "svg":
		if tl.Len() == 0 {
			return Exported{}, errorf(CodeInvalid, "run", "the run has no steps to draw")
		}
		var d *viz.Display
		if d, err = viz.Layout(tl, viz.Options{To: min(tl.Len(), MaxLayoutSteps), Width: diagramWidth(min(tl.Len(), MaxLayoutSteps))}); err == nil {
			b = viz.SVG(d)
		}
	}
	if err != nil {
		return Exported{}, err
	}
	return Exported{Format: f.ID, Name: "racetrack-" + tl.ID() + f.Suffix, Media: f.Media, Text: string(b)}, nil
}
