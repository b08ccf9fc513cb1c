package api

import (
	"errors"
	"fmt"
	"net/http"
	"strconv"

	"github.com/racetrack-sim/racetrack/core/scenario"
	"github.com/racetrack-sim/racetrack/core/session"
	"github.com/racetrack-sim/racetrack/core/timeline"
	"github.com/racetrack-sim/racetrack/core/viz"
)

// The REST views of a run: each is a function of core/session over the
// run's timeline, with query parameters for arguments.

// maxStepsPage bounds GET /runs/{id}/steps.
const maxStepsPage = 1000

func (s *Server) getSteps(w http.ResponseWriter, r *http.Request) {
	rec, ok := s.runFromPath(w, r)
	if !ok {
		return
	}
	from, err := queryInt(r, "from", 0, 0, rec.tl.Len())
	if err != nil {
		writeError(w, r, err)
		return
	}
	limit, err := queryInt(r, "limit", 100, 1, maxStepsPage)
	if err != nil {
		writeError(w, r, err)
		return
	}
	view(w, r, func() (any, error) { return session.Steps(rec.tl, from, limit) })
}

// stepParam reads a required step index of rec's timeline.
func stepParam(r *http.Request, rec *recording, name string) (int, error) {
	n := rec.tl.Len()
	if n == 0 {
		return 0, invalid(name, "run %s has no steps", rec.id)
	}
	return requireInt(r, name, 0, n-1)
}

// withStep serves a view of one step of a run.
func withStep[T any](s *Server, of func(*timeline.Timeline, int) (T, error)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		rec, ok := s.runFromPath(w, r)
		if !ok {
			return
		}
		step, err := stepParam(r, rec, "step")
		if err != nil {
			writeError(w, r, err)
			return
		}
		view(w, r, func() (any, error) { return of(rec.tl, step) })
	}
}

// view writes the value of a view, or its error as a problem.
func view(w http.ResponseWriter, r *http.Request, f func() (any, error)) {
	v, err := f()
	if err != nil {
		writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, v)
}

func (s *Server) getFind(w http.ResponseWriter, r *http.Request) {
	rec, ok := s.runFromPath(w, r)
	if !ok {
		return
	}
	step, err := queryInt(r, "step", -1, -1, rec.tl.Len())
	if err != nil {
		writeError(w, r, err)
		return
	}
	back := false
	if v := r.URL.Query().Get("back"); v != "" {
		if back, err = strconv.ParseBool(v); err != nil {
			writeError(w, r, badRequest("back", "query parameter back must be true or false, got %q", truncate(v, 20)))
			return
		}
	}
	view(w, r, func() (any, error) {
		return session.Find(rec.tl, session.FindArgs{Step: step, Kind: r.URL.Query().Get("kind"), Back: back})
	})
}

func (s *Server) getLayout(w http.ResponseWriter, r *http.Request) {
	if d, release, ok := s.layoutWindow(w, r); ok {
		defer release()
		writeJSON(w, http.StatusOK, d)
	}
}

// layoutWindow is the display list of the diagram window a request
// names (GET layout as JSON, GET diagram.svg as SVG); when there is none,
// it writes the problem and returns false. The window's memory is
// reserved before it is drawn, until release (after the answer is
// written).
func (s *Server) layoutWindow(w http.ResponseWriter, r *http.Request) (*viz.Display, func(), bool) {
	rec, ok := s.runFromPath(w, r)
	if !ok {
		return nil, nil, false
	}
	from, to, err := window(r, rec)
	if err == nil {
		var mem *grant
		if mem, err = s.reserveView(from, to); err == nil {
			var d *viz.Display
			if d, err = session.Layout(rec.tl, from, to); err == nil {
				return d, mem.release, true
			}
			mem.release()
		}
	}
	writeError(w, r, err)
	return nil, nil, false
}

func (s *Server) getCharts(w http.ResponseWriter, r *http.Request) {
	rec, ok := s.runFromPath(w, r)
	if !ok {
		return
	}
	width, err := queryInt(r, "width", 0, 0, 100_000)
	if err != nil {
		writeError(w, r, err)
		return
	}
	view(w, r, func() (any, error) { return session.Charts(rec.tl, float64(width)) })
}

// window reads from and to of a diagram window (to 0: as far as one
// window reaches).
func window(r *http.Request, rec *recording) (int, int, error) {
	n := rec.tl.Len()
	if n == 0 {
		return 0, 0, invalid("id", "run %s has no steps to draw", rec.id)
	}
	from, err := queryInt(r, "from", 0, 0, n-1)
	if err != nil {
		return 0, 0, err
	}
	to, err := queryInt(r, "to", 0, from+1, n)
	return from, to, err
}

func (s *Server) getDiagram(w http.ResponseWriter, r *http.Request) {
	d, release, ok := s.layoutWindow(w, r)
	if !ok {
		return
	}
	defer release()
	w.Header().Set("Content-Type", "image/svg+xml")
	w.Header().Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'")
	_, _ = w.Write(viz.SVG(d))
}

// exportWriter is core/session's ExportWriter (a variable, so that a
// test can hand the streaming path a writer that breaks).
var exportWriter = session.ExportWriter

func (s *Server) getExport(w http.ResponseWriter, r *http.Request) {
	rec, ok := s.runFromPath(w, r)
	if !ok {
		return
	}
	f, write, err := exportWriter(r.URL.Query().Get("format"), nil)
	if err != nil {
		writeError(w, r, err)
		return
	}
	if f.ID == "svg" {
		w.Header().Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'")
	}
	s.streamExport(w, r, rec, exportFormat{write: write, media: f.Media, suffix: f.Suffix})
}

// forkRequest is the body of POST /runs/{id}/forks.
type forkRequest struct {
	Step   int `json:"step"`
	Choice int `json:"choice"`
	Option int `json:"option"`
}

// forked is a fork created over REST: the new run and its edge.
type forked struct {
	Run  scenario.Summary `json:"run"`
	Fork timeline.Branch  `json:"fork"`
}

func (s *Server) createFork(w http.ResponseWriter, r *http.Request) {
	rec, ok := s.runFromPath(w, r)
	if !ok {
		return
	}
	req, ok := decodeBody(w, r, func(body []byte) (req forkRequest, err error) { return req, decodeStrict(body, &req) })
	if !ok {
		return
	}
	b, err := rec.tl.Branch(req.Step, req.Choice, req.Option)
	if err != nil {
		writeError(w, r, err)
		return
	}
	child, err := s.newRun(b.Spec)
	if err != nil {
		writeError(w, r, err)
		return
	}
	defer child.drop()
	b.Spec = child.spec
	// The edge is kept for GET /runs/{id}/forks.
	edge := session.ForkEdge{Step: b.Step, Choice: b.Choice, Option: b.Option, Text: b.Text}
	if err := s.store.PutFork(rec.id, len(rec.summary.Violations), edge, child.id, len(child.summary.Violations)); err != nil {
		writeError(w, r, fmt.Errorf("store the fork of %s: %w", rec.id, err))
		return
	}
	w.Header().Set("Location", "/api/v1/runs/"+child.id)
	writeJSON(w, http.StatusCreated, forked{Run: child.summary, Fork: b})
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
	view(w, r, func() (any, error) { return session.CompareRuns(recs[0].tl, recs[1].tl) })
}

// getForks serves the fork tree holding a run: the forks made over REST,
// kept in the store (core/session's ForkTree over its records).
func (s *Server) getForks(w http.ResponseWriter, r *http.Request) {
	rec, ok := s.runFromPath(w, r)
	if !ok {
		return
	}
	view(w, r, func() (any, error) {
		if rec.tl.IsImported() {
			return session.LoneTree(rec.tl)
		}
		tree, err := s.store.ForkTree(rec.spec, len(rec.summary.Violations))
		var se *session.Error
		if errors.As(err, &se) && se.Field == "run" {
			return nil, &session.Error{Code: se.Code, Field: "id", Message: se.Message}
		}
		return tree, err
	})
}

// listFormats serves the export formats: core/session's one list, the
// page's export buttons and the values GET /runs/{id}/export?format=
// takes.
func listFormats(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, http.StatusOK, session.Formats())
}
