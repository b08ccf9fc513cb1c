package api

import (
	"encoding/json"

	"github.com/racetrack-sim/racetrack/core/session"
)

// A window's layout and its SVG grow with its steps: the issue's
// 40,000-step window drew an 11.8 MB SVG (about 300 bytes a step) from
// a layout of about as much again. viewStepBytes bounds both.
const (
	viewStepBytes = 1 << 10
	viewBaseBytes = 64 << 10
)

// reserveView reserves what drawing the window [from, to) holds before
// the layout is computed: a 503 with Retry-After when it does not fit
// now, a 422 naming "to" when it never does.
func (s *Server) reserveView(from, to int) (*grant, error) {
	return s.mem.reserve(kindExport, viewBaseBytes+int64(to-from)*viewStepBytes, memoryHint{field: "to", what: "this window"})
}

// admitLayout is reserveView for a session's layout request.
func (sc *sessionConn) admitLayout(args []byte) (*grant, bool, error) {
	var a session.LayoutArgs
	if json.Unmarshal(args, &a) != nil || a.From < 0 || a.To <= a.From || a.To > sc.s.cfg.MaxRunSteps {
		return nil, false, nil // the session names what is wrong
	}
	g, err := sc.s.reserveView(a.From, a.To)
	return g, true, err
}
