package session

import (
	"fmt"
	"time"

	"github.com/racetrack-sim/racetrack/core/check"
)

// Pipe is a transport as Serve sees it: a way to send messages, a clock,
// and a way to let other calls in.
type Pipe interface {
	// Send delivers a message; false means the client is gone.
	Send(Message) bool
	// Now reads the transport's monotonic clock.
	Now() time.Duration
	// Wait releases the session for d (0: just long enough for waiting
	// calls to run) and takes it back; false means stop (the client is
	// gone or the server is shutting down).
	Wait(d time.Duration) bool
}

// Serve answers one request over a pipe, holding the session (the caller
// serialises Serve calls, and Wait hands the session over): a plain
// method sends its reply; a search sends progress, then its result; a
// playback sends frames at its pace, then a Paused result when it stops.
// It returns once the request is answered. A panic (a bug in core or in
// a model) fails that request alone with an internal error naming the
// panic, which a transport logs and may hide from its client; every
// transport gets this from here, not from code of its own.
func (s *Session) Serve(req Request, p Pipe) {
	defer func() {
		if v := recover(); v != nil {
			p.Send(Reply(req.ID, nil, &Error{Code: CodeInternal, Message: fmt.Sprintf("%s: internal error: %v", req.Method, v)}))
		}
	}()
	v, err := s.Call(req.Key(), req.Method, req.Args)
	switch x := v.(type) {
	case *Search:
		if x.distributed {
			s.runRemote(x, req, p)
			return
		}
		p.Send(Reply(req.ID, s.runSearch(x, req, p), nil))
	case *Player:
		s.runPlayer(x, req, p)
	default:
		p.Send(Reply(req.ID, v, err))
	}
}

func (s *Session) runSearch(q *Search, req Request, p Pipe) SearchResult {
	start := p.Now()
	var step func(*check.Explorer, int) check.Progress
	if st, ok := p.(Stepper); ok {
		step = func(x *check.Explorer, n int) check.Progress { return st.Step(x, n, x.Config().Workers) }
	}
	return q.Run(Hooks{
		Step:    step,
		Elapsed: func() time.Duration { return p.Now() - start },
		Progress: func(pr SearchProgress) {
			if !p.Send(Message{ID: req.ID, Progress: &pr}) {
				q.cancelled = true
			}
		},
		Yield: func() {
			if !p.Wait(0) {
				q.cancelled = true
			}
		},
	})
}

// runRemote runs a distributed search through the pipe's Distributor:
// progress at most every progressEvery, a cancel passed on, the result
// (or the refusal) on the request's id. A pipe that closes cancels it.
func (s *Session) runRemote(q *Search, req Request, p Pipe) {
	defer delete(s.searches, q.id)
	d, ok := p.(Distributor)
	if !ok {
		p.Send(Reply(req.ID, nil, errorf(CodeInvalid, "distributed", "this engine steps its searches itself; a distributed search runs on a server with NATS (the server engine's session socket, or POST /api/v1/searches)")))
		return
	}
	r, err := d.Distribute(q.req)
	if err != nil {
		p.Send(Reply(req.ID, nil, err))
		return
	}
	var sent SearchProgress
	last := p.Now() - progressEvery
	for {
		pr, done := r.Poll()
		if done {
			break
		}
		if q.cancelled {
			r.Cancel()
		} else if now := p.Now(); now-last >= progressEvery && pr != sent {
			last, sent = now, pr
			if !p.Send(Message{ID: req.ID, Progress: &pr}) {
				r.Cancel()
				return
			}
		}
		if !p.Wait(remotePoll) {
			r.Cancel() // the client is gone
			return
		}
	}
	p.Send(Reply(req.ID, r.Result(), nil))
}

func (s *Session) runPlayer(pl *Player, req Request, p Pipe) {
	f, err := pl.First()
	for err == nil {
		if !p.Send(Message{ID: req.ID, Frame: f}) {
			pl.stopped = true
			return
		}
		last := p.Now()
		for f = nil; f == nil && err == nil; {
			if pl.stopped {
				p.Send(Reply(req.ID, Paused{ID: pl.id, Step: pl.cur, Stopped: true}, nil))
				if s.player == pl {
					s.player = nil
				}
				return
			}
			if !p.Wait(pl.Interval()) {
				pl.stopped = true
				return
			}
			now := p.Now()
			f, err = pl.Tick(now - last)
			last = now
		}
	}
	pl.stopped = true
	p.Send(Reply(req.ID, nil, err))
}
