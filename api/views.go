package api

import (
	"errors"
	"net/http"

	"github.com/racetrack-sim/racetrack/core/export"
	"github.com/racetrack-sim/racetrack/core/timeline"
	"github.com/racetrack-sim/racetrack/core/viz"
)

// maxDiagramSteps bounds the window of one SVG diagram.
const maxDiagramSteps = 5000

func (s *Server) getDiagram(w http.ResponseWriter, r *http.Request) {
	rec, ok := s.runFromPath(w, r)
	if !ok {
		return
	}
	n := rec.tl.Len()
	if n == 0 {
		writeError(w, r, invalid("id", "run %s has no steps to draw", rec.id))
		return
	}
	from, err := queryInt(r, "from", 0, 0, n-1)
	if err != nil {
		writeError(w, r, err)
		return
	}
	to, err := queryInt(r, "to", min(n, from+maxDiagramSteps), from+1, n)
	if err != nil {
		writeError(w, r, err)
		return
	}
	if to-from > maxDiagramSteps {
		writeError(w, r, invalid("to", "the window [from, to) spans %d steps, more than the %d one diagram may show", to-from, maxDiagramSteps))
		return
	}
	d, err := viz.Layout(rec.tl, viz.Options{From: from, To: to})
	if err != nil {
		if errors.Is(err, timeline.ErrStepRange) {
			err = invalid("to", "%v", err)
		}
		writeError(w, r, err)
		return
	}
	w.Header().Set("Content-Type", "image/svg+xml")
	w.Header().Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'")
	_, _ = w.Write(viz.SVG(d))
}

// exportFormats maps a format to its writer, media type and file suffix.
var exportFormats = map[string]exportFormat{
	"json":   {export.WriteJSON, "application/json", ".json"},
	"shiviz": {export.WriteShiViz, "text/plain; charset=utf-8", ".shiviz.log"},
	"chrome": {export.WriteChrome, "application/json", ".trace.json"},
}

func (s *Server) getExport(w http.ResponseWriter, r *http.Request) {
	rec, ok := s.runFromPath(w, r)
	if !ok {
		return
	}
	format := r.URL.Query().Get("format")
	f, known := exportFormats[format]
	if !known {
		if format == "" {
			writeError(w, r, badRequest("format", "query parameter format is required: json, shiviz or chrome"))
		} else {
			writeError(w, r, invalid("format", "unknown format %q: json, shiviz or chrome", truncate(format, 20)))
		}
		return
	}
	s.streamExport(w, r, rec, f)
}

func (s *Server) compare(w http.ResponseWriter, r *http.Request) {
	var recs [2]*recording
	for i, name := range []string{"a", "b"} {
		id := r.URL.Query().Get(name)
		if id == "" {
			writeError(w, r, badRequest(name, "query parameter %s (a run id) is required", name))
			return
		}
		rec, err := s.lookupRun(id)
		if err == nil {
			defer rec.drop()
		}
		if err != nil {
			var p *Problem
			if errors.As(err, &p) && p.Field == "id" {
				q := *p
				q.Field = name
				q.Detail = name + ": " + p.Detail
				err = &q
			}
			writeError(w, r, err)
			return
		}
		recs[i] = rec
	}
	if a, b := recs[0].spec.Scenario, recs[1].spec.Scenario; a != b {
		writeError(w, r, invalid("b", "b is a run of %s and a of %s; compare two runs of one scenario", b, a))
		return
	}
	writeJSON(w, http.StatusOK, timeline.Compare(recs[0].tl, recs[1].tl))
}
