package api

import (
	"encoding/json"

	"github.com/racetrack-sim/racetrack/core/session"
	"github.com/racetrack-sim/racetrack/core/timeline"
)

// The views that grow with a run reserve their memory before they are
// computed, as runs, searches and exports do: a 503 with Retry-After when
// it does not fit now, a 422 (needBytes) when it never does. Each figure
// is an allocation measured by TestViewReservationsCoverTheirAllocations
// (bytes allocated, JSON answer included), rounded up. A comparison of
// two runs does not grow with them (the same test shows it): it is
// charged nothing beyond the two runs.
const (
	// A window's layout and its SVG grow with its steps: the issue's
	// 40,000-step window drew an 11.8 MB SVG (about 300 bytes a step)
	// from a layout of about as much again.
	viewStepBytes = 1 << 10
	viewBaseBytes = 64 << 10
	// The charts grow with the run's series samples: about 290 bytes a
	// sample over a base of about 80 kB (the axes, styles, panels).
	chartPointBytes = 512
	chartBaseBytes  = 128 << 10
	// The slice of step i grows with i (the causal past it marks and
	// lists): about 46 bytes a step.
	sliceStepBytes = 64
	// A page of steps grows with its rows: 400 to 1,050 bytes a row.
	stepsRowBytes = 1536
	// The state of a step (and its alternatives) replays a world from
	// the nearest snapshot, as large as the scenario declares a world:
	// one for the alternatives, one for the state.
	replayWorlds = 2
)

// reserveView reserves what drawing the window [from, to) holds before
// the layout is computed; the refusal names "to".
func (s *Server) reserveView(from, to int) (*grant, error) {
	return s.mem.reserve(kindExport, viewBaseBytes+int64(to-from)*viewStepBytes, memoryHint{field: "to", what: "this window"})
}

// reserveCharts reserves what drawing tl's charts holds; run is the
// field that names the run (id over REST, run in the session). Nothing
// in the request makes the charts smaller, so the refusal says so.
func (s *Server) reserveCharts(tl *timeline.Timeline, run string) (*grant, error) {
	return reserveCharts(s.mem, tl, run)
}

func reserveCharts(b *memBudget, tl *timeline.Timeline, run string) (*grant, error) {
	return b.reserve(kindExport, chartBaseBytes+int64(tl.SeriesPoints())*chartPointBytes,
		memoryHint{field: run, what: "the charts of this run", remedy: "open a shorter run (fewer steps)"})
}

// reserveSlice reserves what the causal slice of step holds (of any run:
// it grows with the step alone); the refusal names "step".
func (s *Server) reserveSlice(_ *timeline.Timeline, step int) (*grant, error) {
	return s.mem.reserve(kindExport, viewBaseBytes+int64(step+1)*sliceStepBytes, memoryHint{field: "step", what: "the slice of this step"})
}

// reserveSteps reserves what a page of rows steps holds; the refusal
// names "limit".
func (s *Server) reserveSteps(rows int) (*grant, error) {
	return s.mem.reserve(kindExport, viewBaseBytes+int64(rows)*stepsRowBytes, memoryHint{field: "limit", what: "this page of steps"})
}

// reserveReplay reserves what a view that replays tl to step holds (the
// state, the alternatives); the refusal names "step".
func (s *Server) reserveReplay(tl *timeline.Timeline, step int) (*grant, error) {
	return s.mem.reserve(kindExport, viewBaseBytes+replayWorlds*tl.WorldBytesAt(step), memoryHint{field: "step", what: "the state of this step"})
}

// pageRows is how many rows a page of limit steps from step from holds
// on a run of n steps (limit 0: the default page).
func pageRows(from, limit, n int) int {
	if limit == 0 {
		limit = session.DefaultStepsPage
	}
	return max(0, min(limit, n-from))
}

// viewArgs are the arguments of the session's view requests that their
// reservation reads.
type viewArgs struct {
	Run   string `json:"run"`
	From  int    `json:"from"`
	To    int    `json:"to"`
	Limit int    `json:"limit"`
	Step  int    `json:"step"`
}

// admitView reserves a session view request's memory as REST does for
// the same view. ok is false when the request is not one it reserves for
// (a bad argument, a run the session does not know: the session names
// what is wrong): the caller charges the stream's share then.
func (sc *sessionConn) admitView(method string, args []byte) (g *grant, ok bool, err error) {
	s := sc.s
	var a viewArgs
	if json.Unmarshal(args, &a) != nil {
		return nil, false, nil
	}
	if method == "layout" && a.To != 0 {
		if a.From < 0 || a.To <= a.From || a.To > s.cfg.MaxRunSteps {
			return nil, false, nil
		}
		g, err = s.reserveView(a.From, a.To)
		return g, true, err
	}
	rec, held := sc.recording(a.Run)
	if !held {
		return nil, false, nil
	}
	defer rec.drop()
	n := rec.tl.Len()
	switch method {
	case "layout": // to 0: as far as one window reaches
		if a.From < 0 || a.From >= n {
			return nil, false, nil
		}
		g, err = s.reserveView(a.From, min(n, a.From+session.MaxLayoutSteps))
	case "steps":
		if a.Limit < 0 || a.Limit > timeline.MaxStepsPage || a.From < 0 {
			return nil, false, nil
		}
		g, err = s.reserveSteps(pageRows(a.From, a.Limit, n))
	case "slice", "state", "alternatives":
		if a.Step < 0 || a.Step >= n {
			return nil, false, nil
		}
		if method == "slice" {
			g, err = s.reserveSlice(rec.tl, a.Step)
		} else {
			g, err = s.reserveReplay(rec.tl, a.Step)
		}
	case "charts":
		g, err = s.reserveCharts(rec.tl, "run")
	default:
		return nil, false, nil
	}
	return g, true, err
}

// recording is the recording of run id for an admission, with a
// reference the caller drops: the socket's or the cache's, else recorded
// again through the session, within the run's own reservation (serve
// holds sc.mu, so the session is the admission's to use). False when the
// session cannot give it (an unknown run, a shortage): the session then
// answers the request with that error itself.
func (sc *sessionConn) recording(id string) (*recording, bool) {
	if rec, ok := sc.runs.recording(id); ok {
		return rec, true
	}
	if _, err := sc.sess.Timeline(id); err != nil {
		return nil, false
	}
	return sc.runs.recording(id)
}
