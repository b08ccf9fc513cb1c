package api

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"sync"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/racetrack-sim/racetrack/core/scenario"
	"github.com/racetrack-sim/racetrack/core/session"
	"github.com/racetrack-sim/racetrack/core/timeline"
)

// recording is a finished, traced run as the server keeps it.
type recording struct {
	id      string
	spec    scenario.RunSpec
	tl      *timeline.Timeline
	summary scenario.Summary
	size    int64

	mem  *grant // its memory, reserved from the server's budget
	mu   sync.Mutex
	refs int32 // holders: the cache, requests, streams (cache.go)
}

var runIDPattern = regexp.MustCompile(`^r[0-9a-f]{20}$`)

// runSlotWait is how long a request waits for a free run slot before 429.
const runSlotWait = 5 * time.Second

func (s *Server) createRun(w http.ResponseWriter, r *http.Request) {
	spec, ok := decodeBody(w, r, DecodeRunSpec)
	if !ok {
		return
	}
	rec, err := s.newRun(spec)
	if err != nil {
		s.metrics.runs.WithLabelValues("rejected").Inc()
		writeError(w, r, err)
		return
	}
	defer rec.drop()
	w.Header().Set("Location", "/api/v1/runs/"+rec.id)
	writeJSON(w, http.StatusCreated, rec.summary)
}

// newRun validates spec, runs it (or finds it cached) and stores its spec
// so that the id resolves from now on, also after a restart. The caller
// drops the recording when done.
func (s *Server) newRun(spec scenario.RunSpec) (*recording, error) {
	// The catalog's validation and the server's bounds (the session's
	// rules), once: what follows takes the checked spec.
	n, err := s.rules.Normalize(spec)
	if err != nil {
		return nil, err
	}
	rec, err := s.timelines.get(n.ID(), func() (*recording, error) { return s.execute(n) })
	if err != nil {
		return nil, err
	}
	if err := s.store.PutRun(rec.spec); err != nil {
		rec.drop()
		return nil, fmt.Errorf("store run %s: %w", rec.id, err)
	}
	return rec, nil
}

// execute runs a checked spec with tracing, within a run slot and the
// memory its spec is estimated to need, which it keeps (resized to what
// the timeline holds) until its last holder drops it. The world it
// estimates from is the one it records: the model is built once.
func (s *Server) execute(n scenario.Normal) (rec *recording, err error) {
	return s.executeFor(context.Background(), n)
}

// executeFor is execute for a client that may leave: the recording stops
// as soon as ctx ends (a session socket that disconnected).
func (s *Server) executeFor(ctx context.Context, n scenario.Normal) (rec *recording, err error) {
	if ctx.Err() != nil {
		return nil, errors.Join(errClientClosed, context.Cause(ctx))
	}
	var watched *watchedRun // set once the memory is reserved
	alive := func() bool { return ctx.Err() == nil && watched.alive() }
	pending, err := timeline.Prepare(n, timeline.Options{SnapshotEvery: session.SnapshotEvery, Continue: alive})
	if err != nil {
		return nil, err
	}
	mem, err := s.reserveRun(pending.Bytes())
	if err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			mem.release()
		}
	}()
	select {
	case s.runSlots <- struct{}{}:
	case <-time.After(runSlotWait):
		return nil, busy(1, "all %d run slots are busy; retry shortly", cap(s.runSlots))
	}
	defer func() { <-s.runSlots }()
	watched = s.watchRun(mem)
	defer s.unwatchRun(watched)
	tl, err := pending.Record()
	if errors.Is(err, timeline.ErrStopped) {
		if ctx.Err() != nil {
			return nil, errors.Join(errClientClosed, context.Cause(ctx))
		}
		return nil, watched.refusal()
	}
	if err != nil {
		return nil, err
	}
	s.metrics.runs.WithLabelValues("executed").Inc()
	size := tl.Bytes()
	mem.resize(size)
	return &recording{id: tl.ID(), spec: tl.Spec(), tl: tl, summary: tl.Summary(), size: size, mem: mem, refs: 1}, nil
}

// lookupRun resolves a run id: the cache, else the stored spec
// (recomputed). The caller drops the recording when done.
func (s *Server) lookupRun(id string) (*recording, error) {
	if logID, k, ok := session.ExecutionOf(id); ok {
		return s.lookupTrace(id, logID, k)
	}
	if !runIDPattern.MatchString(id) {
		return nil, notFound("id", "no run with id %q: a run id is r followed by 20 hex digits (an imported log's, log- and 16)", truncate(id, 40))
	}
	if rec, ok := s.timelines.peek(id); ok {
		return rec, nil
	}
	return s.timelines.get(id, func() (*recording, error) {
		spec, err := s.store.Run(id)
		if errors.Is(err, ErrNotStored) {
			return nil, notFound("id", "no run with id %s; create it with POST /api/v1/runs", id)
		}
		if err != nil {
			return nil, fmt.Errorf("read run %s: %w", id, err)
		}
		n, err := s.reg.Check(spec)
		if err != nil {
			return nil, newProblem(http.StatusGone, "gone", "Gone", "id", "run %s can no longer be computed by this server: %v", id, err)
		}
		rec, err := s.execute(n)
		var p *Problem
		if errors.As(err, &p) && p.Status != http.StatusTooManyRequests && !memoryRefusal(p) {
			return nil, newProblem(http.StatusGone, "gone", "Gone", "id", "run %s can no longer be computed by this server: %s", id, p.Detail)
		}
		if err == nil {
			s.metrics.runs.WithLabelValues("recomputed").Inc()
		}
		return rec, err
	})
}

func (s *Server) runFromPath(w http.ResponseWriter, r *http.Request) (*recording, bool) {
	rec, err := s.lookupRun(chi.URLParam(r, "id"))
	if err != nil {
		writeError(w, r, err)
		return nil, false
	}
	context.AfterFunc(r.Context(), rec.drop) // the request, or its stream, has ended
	return rec, true
}

func (s *Server) getRun(w http.ResponseWriter, r *http.Request) {
	if rec, ok := s.runFromPath(w, r); ok {
		writeJSON(w, http.StatusOK, rec.summary)
	}
}
