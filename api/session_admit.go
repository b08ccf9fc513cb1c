package api

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"time"

	"github.com/racetrack-sim/racetrack/core/session"
)

// admit reserves from the memory budget what a session request will
// hold before the session serves it, as REST does for the same work: a
// search its planned bytes (through the same planning and admission as
// POST /api/v1/searches, which may lower an unnamed states budget to
// what fits), an export the bytes of the export it will build, any other
// request the stream's share (so an idle socket holds nothing). A
// shortage is the memory-busy problem, which the socket reports as busy
// with a retry time. It returns the request to serve (an adjusted
// search) and the release.
func (sc *sessionConn) admit(req session.Request) (session.Request, func(), error) {
	s := sc.s
	switch req.Method {
	case "search":
		sr, err := session.DecodeSearchRequest(req.Args)
		if err != nil || sr.Distributed {
			break // the session answers a bad request itself; a distributed one is a server job, admitted there
		}
		plan, err := s.planSearch(sr)
		if err != nil {
			return req, nil, err
		}
		asked := sr.Budget.States
		g, err := s.reserveSearch(&sr, plan)
		if err != nil {
			return req, nil, err
		}
		if sr.Budget.States != asked {
			args, merr := json.Marshal(sr)
			if merr != nil {
				g.release()
				return req, nil, merr
			}
			req.Args = args
		}
		return req, g.release, nil
	case "check":
		g, ok, err := sc.admitCheck(req.Args)
		if err != nil {
			return req, nil, err
		}
		if ok {
			return req, g.release, nil
		}
	case "layout":
		g, ok, err := sc.admitLayout(req.Args)
		if err != nil {
			return req, nil, err
		}
		if ok {
			return req, g.release, nil
		}
	case "export":
		var a session.ExportArgs
		if json.Unmarshal(req.Args, &a) != nil {
			break
		}
		rec, ok := s.timelines.peek(a.Run)
		if !ok {
			break // the session opens the run first, within its own reservation
		}
		n, err := exportSize(rec, a.Format)
		rec.drop()
		if err != nil {
			break // the session names the bad format
		}
		// The export's text, and the message that carries it.
		g, err := s.mem.reserve(kindExport, 2*n+exportBytes, memoryHint{field: "format", what: "this export"})
		if err != nil {
			return req, nil, err
		}
		return req, g.release, nil
	}
	g, err := s.mem.reserve(kindStream, streamBytes, memoryHint{what: "a session request"})
	if err != nil {
		return req, nil, err
	}
	return req, g.release, nil
}

// exportSize is the size of a run's export, written to nowhere.
func exportSize(rec *recording, format string) (int64, error) {
	_, write, err := session.ExportWriter(format, nil)
	if err != nil {
		return 0, err
	}
	var c countingWriter
	c.w = io.Discard
	err = write(&c, rec.tl)
	return c.n, err
}

// closeWhenIdle ends the socket once no request came and none was in
// flight for the server's SessionIdle: an idle socket holds no budget,
// and not even its place among the streams for long.
func (sc *sessionConn) closeWhenIdle(ctx context.Context, cancel context.CancelCauseFunc) {
	idle := sc.s.cfg.SessionIdle
	tick := time.NewTicker(idle / 4)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		if len(sc.inflight) == 0 && time.Since(time.Unix(0, sc.lastRequest.Load())) >= idle {
			cancel(errIdle)
			return
		}
	}
}

// errIdle ends a session socket that stayed idle.
var errIdle = errors.New("the session was idle")
