package api

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/coder/websocket"

	"github.com/racetrack-sim/racetrack/core/check"
	"github.com/racetrack-sim/racetrack/core/scenario"
	"github.com/racetrack-sim/racetrack/core/session"
	"github.com/racetrack-sim/racetrack/core/timeline"
	"github.com/racetrack-sim/racetrack/internal/parallel"
)

// Bounds of one session socket.
const (
	// sessionInflight bounds the requests a socket has in flight; one
	// more is answered busy.
	sessionInflight = 32
	// sessionQueue bounds the messages waiting to be written to a socket.
	sessionQueue = 256
	// discardLimit is the most of one oversized message the server reads
	// (and drops) to answer it with an error; a larger one closes the
	// socket with StatusMessageTooBig.
	discardLimit = 64 << 20
)

// sessionStream serves GET /api/v1/session: one debugging session
// (core/session) per socket, spoken with the session protocol. Requests
// are served each in its own goroutine, one at a time on the session
// (a search or a playback hands it over between slices and frames), and
// every reply goes through the socket's bounded send queue.
func (s *Server) sessionStream(w http.ResponseWriter, r *http.Request) {
	c, ctx, cancel, done, ok := s.openStreamHolding(w, r, "session", 0)
	if !ok {
		return
	}
	defer done()
	c.SetReadLimit(-1) // the reader bounds messages itself, and answers
	out := newOutbox(sessionQueue)
	runs := &serverRuns{s: s, ctx: ctx}
	sessionCfg := session.Config{Registry: s.reg, Runs: runs, Traces: runs, Limits: s.sessionLimits()}
	defer runs.dropAll()
	conn := &sessionConn{s: s, ctx: ctx, out: out, start: time.Now(), inflight: make(chan struct{}, sessionInflight),
		sess: session.New(sessionCfg)}
	conn.lastRequest.Store(time.Now().UnixNano())
	writerDone := make(chan struct{})
	var writeErr error
	go func() {
		defer close(writerDone)
		if writeErr = s.writeLoop(ctx, c, out); writeErr != nil {
			cancel(writeErr)
		}
	}()
	var wg sync.WaitGroup
	wg.Add(2)
	go func() {
		defer wg.Done()
		s.pingLoop(ctx, c, cancel)
	}()
	go func() {
		defer wg.Done()
		cancel(conn.readLoop(c, &wg))
	}()
	wg.Add(1)
	go func() {
		defer wg.Done()
		conn.closeWhenIdle(ctx, cancel)
	}()
	<-ctx.Done()
	<-writerDone
	s.closeStream(c, "session", streamCause(ctx, writeErr))
	_ = c.CloseNow()
	wg.Wait()
}

// sessionLimits are the server's bounds as a session's.
func (s *Server) sessionLimits() session.Limits {
	return session.Limits{MaxRunSteps: s.cfg.MaxRunSteps, MaxSearchStates: s.cfg.MaxSearchStates,
		MaxSearchRuns: s.cfg.MaxSearchRuns, MaxSearchSeconds: s.cfg.MaxSearchSeconds, MaxSearchWorkers: check.MaxWorkers,
		MaxCheckPathBytes: validationPathBytes}
}

// sessionConn is one socket's session and its requests in flight.
type sessionConn struct {
	s        *Server
	ctx      context.Context
	out      *outbox
	start    time.Time
	inflight chan struct{}

	mu   sync.Mutex // held while the session serves a request
	sess *session.Session
	// lastRequest is when the last request came (unix nanoseconds).
	lastRequest atomic.Int64
}

// readLoop reads requests until the connection ends and returns why.
func (sc *sessionConn) readLoop(c *websocket.Conn, wg *sync.WaitGroup) error {
	limit := sc.s.cfg.MaxBodyBytes
	for {
		// Not bound to ctx: a cancelled read drops the connection before
		// the close handshake; closing the connection ends it.
		typ, rd, err := c.Reader(context.Background())
		if err != nil {
			if sc.ctx.Err() != nil {
				return context.Cause(sc.ctx)
			}
			return errors.Join(errClientClosed, err)
		}
		b, err := io.ReadAll(io.LimitReader(rd, limit+1))
		if err != nil {
			return errors.Join(errClientClosed, err)
		}
		if int64(len(b)) > limit {
			n, err := io.Copy(io.Discard, io.LimitReader(rd, discardLimit))
			if err != nil || n >= discardLimit {
				return errors.Join(errClientClosed, errors.New("message far above the size limit"))
			}
			if !sc.send(session.Reply(nil, nil, &session.Error{Code: session.CodeTooLarge, Field: "message",
				Message: "the message exceeds the limit of " + itoa64(limit) + " bytes"})) {
				return errSlowClient
			}
			continue
		}
		if typ != websocket.MessageText {
			if !sc.send(session.Reply(nil, nil, &session.Error{Code: session.CodeBadRequest, Field: "message", Message: "send requests as text messages of JSON"})) {
				return errSlowClient
			}
			continue
		}
		// A client that sends faster than it reads waits here (the
		// socket pushes back) rather than being dropped.
		if !sc.out.waitRoom(sc.ctx, sessionQueue/2, sc.s.cfg.StreamWriteTimeout) {
			return errSlowClient
		}
		sc.lastRequest.Store(time.Now().UnixNano())
		req, rerr := session.DecodeRequest(b)
		if rerr != nil {
			if !sc.send(session.Reply(req.ID, nil, rerr)) {
				return errSlowClient
			}
			continue
		}
		select {
		case sc.inflight <- struct{}{}:
		default:
			if !sc.send(session.Reply(req.ID, nil, &session.Error{Code: session.CodeBusy,
				Message: "more than " + itoa64(sessionInflight) + " requests in flight on this socket; wait for replies"})) {
				return errSlowClient
			}
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-sc.inflight }()
			sc.serve(req)
		}()
	}
}

// serve answers one request (Serve fails a request that panics on its
// own; send logs the cause and hides it from the client).
func (sc *sessionConn) serve(req session.Request) {
	sc.mu.Lock()
	locked := true
	defer func() {
		if locked {
			sc.mu.Unlock()
		}
	}()
	if sc.ctx.Err() != nil {
		return // the client left while this request waited: drop it
	}
	req, release, err := sc.admit(req)
	if err != nil {
		sc.send(session.Reply(req.ID, nil, sessionErrorOf(err)))
		return
	}
	defer release()
	sc.sess.Serve(req, &sessionPipe{sc: sc, locked: &locked})
}

// send queues a message; internal error text stays in the log.
func (sc *sessionConn) send(m session.Message) bool {
	if m.Error != nil && m.Error.Code == session.CodeInternal {
		sc.s.log.Error("session request failed", "err", m.Error.Message)
		m.Error = &session.Error{Code: session.CodeInternal, Message: "the request failed on an internal error"}
	}
	if sc.ctx.Err() != nil {
		return false
	}
	if !sc.out.push(m) {
		sc.s.log.Info("session socket: client too slow")
		return false
	}
	return true
}

// sessionPipe is the session's view of the socket while it serves one
// request.
type sessionPipe struct {
	sc     *sessionConn
	locked *bool
}

func (p *sessionPipe) Send(m session.Message) bool { return p.sc.send(m) }

func (p *sessionPipe) Now() time.Duration { return time.Since(p.sc.start) }

// Step runs a search's work on the workers it asked for (a session.Stepper),
// as the server's search jobs do.
func (p *sessionPipe) Step(x *check.Explorer, n, workers int) check.Progress {
	return sessionStep(x, n, workers)
}

// Distribute runs a search with "distributed": true as a server job on
// the cluster (as POST /api/v1/searches does; without a cluster the
// refusal names distributed), for the session to report (a
// session.Distributor).
func (p *sessionPipe) Distribute(req session.SearchRequest) (session.Remote, error) {
	j, err := p.sc.s.startSearch(req)
	if err != nil {
		return nil, sessionErrorOf(err)
	}
	return remoteJob{p: p.sc.s.searches, j: j}, nil
}

// remoteJob is a server search job seen as a session.Remote.
type remoteJob struct {
	p *searchPool
	j *job
}

func (r remoteJob) Poll() (session.SearchProgress, bool) {
	st, _ := r.j.snapshot()
	return st.Progress, st.final()
}

func (r remoteJob) Cancel() { r.p.cancelJob(r.j) }

// Result is the job's result as the session answers a search: the
// stored answer, or for a job that ended without one (cancelled while
// queued, failed) its state.
func (r remoteJob) Result() session.SearchResult {
	st, _ := r.j.snapshot()
	if st.Result != nil {
		res := st.Result.SearchResult
		if res.Error == "" && st.State == StateFailed {
			res.Error = st.Error
		}
		return res
	}
	cfg := r.j.plan.explorer().Config()
	res := session.SearchResult{Cancelled: st.State == StateCancelled,
		Result: check.Result{Strategy: cfg.Strategy, Verdict: check.VerdictNone, Property: cfg.Property, Error: st.Error}}
	res.Stop = check.Stop{Reason: check.StopError, Message: "stopped by an error: " + st.Error}
	if res.Cancelled {
		res.Stop = check.LimitStop(check.StopCancel, 0)
	}
	return res
}

// sessionStep is parallel.Step (a variable, so that a test can see the
// workers a socket's search runs on).
var sessionStep = parallel.Step

// Wait hands the session to other requests for d (0: a scheduler turn).
func (p *sessionPipe) Wait(d time.Duration) bool {
	p.sc.mu.Unlock()
	*p.locked = false
	stop := false
	if d <= 0 {
		runtime.Gosched()
		stop = p.sc.ctx.Err() != nil
	} else {
		t := time.NewTimer(d)
		select {
		case <-t.C:
		case <-p.sc.ctx.Done():
			stop = true
		}
		t.Stop()
	}
	p.sc.mu.Lock()
	*p.locked = true
	return !stop
}

// serverRuns gives a socket's session the server's shared, memory-bounded
// cache of timelines (a run recorded for one socket serves every other).
// It holds the recordings its session used last, so that their memory
// stays counted while the socket may still step through them, and drops
// them when the socket ends.
type serverRuns struct {
	s    *Server
	ctx  context.Context // the socket's: a recording stops when it leaves
	mu   sync.Mutex
	held []*recording // most recent last
}

// heldRuns bounds the recordings one socket keeps counted.
const heldRuns = 4

func (r *serverRuns) Get(n scenario.Normal) (*timeline.Timeline, error) {
	rec, err := r.s.timelines.get(n.ID(), func() (*recording, error) { return r.s.executeFor(r.ctx, n) })
	if err != nil {
		return nil, sessionErrorOf(err)
	}
	r.keep(rec)
	return rec.tl, nil
}

// keep holds rec for the socket, taking over the caller's reference.
func (r *serverRuns) keep(rec *recording) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for i, h := range r.held {
		if h == rec {
			rec.drop() // already held once
			r.held = append(append(r.held[:i:i], r.held[i+1:]...), rec)
			return
		}
	}
	r.held = append(r.held, rec)
	if len(r.held) > heldRuns {
		r.held[0].drop()
		r.held = r.held[1:]
	}
}

// dropAll gives back every recording held.
func (r *serverRuns) dropAll() {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, rec := range r.held {
		rec.drop()
	}
	r.held = nil
}

func itoa64[T int | int64](n T) string { b, _ := json.Marshal(n); return string(b) }
