package api

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"path"
	"strings"
	"sync"
	"time"

	"github.com/coder/websocket"

	"github.com/racetrack-sim/racetrack/core/session"
)

// streamReadLimit bounds one client message of a stream that reads
// none but the close handshake (the session socket sets its own).
const streamReadLimit = 4 << 10

// acceptStream checks the upgrade and the origin (answering a problem on
// failure, before anything is hijacked) and accepts the WebSocket. The
// server's own origin is always allowed; AllowOrigins adds patterns.
func (s *Server) acceptStream(w http.ResponseWriter, r *http.Request) (*websocket.Conn, error) {
	if err := s.checkHandshake(w, r); err != nil {
		return nil, err
	}
	// The HTTP server's read and write timeouts must not apply to a
	// hijacked, long-lived connection: every write has its own timeout.
	rc := http.NewResponseController(w)
	_ = rc.SetReadDeadline(time.Time{})
	_ = rc.SetWriteDeadline(time.Time{})
	c, err := websocket.Accept(w, r, &websocket.AcceptOptions{OriginPatterns: s.cfg.AllowOrigins})
	if err != nil {
		return nil, errAccepted
	}
	c.SetReadLimit(streamReadLimit)
	return c, nil
}

// checkHandshake checks what can be checked of a WebSocket request
// before anything is looked up: the upgrade headers, the origin and the
// stream limit.
func (s *Server) checkHandshake(w http.ResponseWriter, r *http.Request) error {
	if !headerHas(r.Header, "Connection", "upgrade") || !strings.EqualFold(r.Header.Get("Upgrade"), "websocket") {
		w.Header().Set("Upgrade", "websocket")
		return newProblem(http.StatusUpgradeRequired, "upgrade-required", "Upgrade required", "Upgrade",
			"%s is a WebSocket endpoint; connect with a WebSocket client (Upgrade: websocket)", r.URL.Path)
	}
	if v := r.Header.Get("Sec-WebSocket-Version"); v != "13" {
		w.Header().Set("Sec-WebSocket-Version", "13")
		return badRequest("Sec-WebSocket-Version", "unsupported WebSocket protocol version %q; this server speaks 13", truncate(v, 10))
	}
	if r.Header.Get("Sec-WebSocket-Key") == "" {
		return badRequest("Sec-WebSocket-Key", "the WebSocket handshake has no Sec-WebSocket-Key")
	}
	if err := checkOrigin(r, s.cfg.AllowOrigins); err != nil {
		return err
	}
	if n := s.openStreams.Load(); n >= int64(s.cfg.MaxStreams) {
		return busy(5, "the server holds %d open streams, its limit; retry later", n)
	}
	return nil
}

// errAccepted means Accept already answered the request.
var errAccepted = errors.New("api: websocket accept failed")

func headerHas(h http.Header, key, token string) bool {
	for _, v := range h.Values(key) {
		for _, t := range strings.Split(v, ",") {
			if strings.EqualFold(strings.TrimSpace(t), token) {
				return true
			}
		}
	}
	return false
}

// checkOrigin mirrors the websocket library's rule so that a refusal is a
// problem document: no Origin (not a browser), the request's own host, or
// a host matching one of the patterns.
func checkOrigin(r *http.Request, patterns []string) error {
	origin := r.Header.Get("Origin")
	if origin == "" {
		return nil
	}
	u, err := url.Parse(origin)
	if err != nil || u.Host == "" {
		return newProblem(http.StatusForbidden, "forbidden-origin", "Forbidden origin", "Origin", "malformed Origin header %q", truncate(origin, 80))
	}
	if strings.EqualFold(u.Host, r.Host) {
		return nil
	}
	for _, p := range patterns {
		target := u.Host
		if strings.Contains(p, "://") {
			target = origin
		}
		if ok, _ := path.Match(strings.ToLower(p), strings.ToLower(target)); ok {
			return nil
		}
	}
	return newProblem(http.StatusForbidden, "forbidden-origin", "Forbidden origin", "Origin",
		"origin %q is not allowed to open streams; start the server with -allow-origin %s", truncate(origin, 80), u.Host)
}

// outbox is a stream's bounded send queue. Pushing never blocks: a
// playback frame merges into a frame of the same playback still waiting
// to be written, and other messages take a slot; when every slot is taken
// the client is too slow and the push fails.
type outbox struct {
	mu    sync.Mutex
	items []any // session.Message or any other JSON value
	limit int
	wake  chan struct{}
	taken chan struct{} // signalled when the writer takes the queue
}

func newOutbox(limit int) *outbox {
	return &outbox{limit: limit, wake: make(chan struct{}, 1), taken: make(chan struct{}, 1)}
}

// waitRoom waits until at most n messages are queued; false if ctx ends
// or the queue does not drain within timeout.
func (o *outbox) waitRoom(ctx context.Context, n int, timeout time.Duration) bool {
	var deadline <-chan time.Time
	for {
		o.mu.Lock()
		queued := len(o.items)
		o.mu.Unlock()
		if queued <= n {
			return true
		}
		if deadline == nil {
			t := time.NewTimer(timeout)
			defer t.Stop()
			deadline = t.C
		}
		select {
		case <-o.taken:
		case <-ctx.Done():
			return false
		case <-deadline:
			return false
		}
	}
}

// push queues a message; false means the queue is full.
func (o *outbox) push(msg any) bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	if m, ok := msg.(session.Message); ok && m.Frame != nil && len(o.items) > 0 {
		if last, ok := o.items[len(o.items)-1].(session.Message); ok && last.Frame != nil && bytes.Equal(last.ID, m.ID) {
			last.Frame.Merge(m.Frame)
			return true
		}
	}
	if len(o.items) >= o.limit {
		return false
	}
	o.items = append(o.items, msg)
	select {
	case o.wake <- struct{}{}:
	default:
	}
	return true
}

func (o *outbox) take() []any {
	o.mu.Lock()
	defer o.mu.Unlock()
	out := o.items
	o.items = nil
	select {
	case o.taken <- struct{}{}:
	default:
	}
	return out
}

// endOfStream, queued last, ends writeLoop once everything before it is
// written.
type endOfStream struct{}

// errSlowClient is why a stream whose client could not keep up ended.
var errSlowClient = errors.New("api: client too slow")

// writeLoop writes what the outbox holds until ctx ends or a write fails.
// Each write has a timeout; one that expires means the client cannot keep
// up, and the library drops the connection.
func (s *Server) writeLoop(ctx context.Context, c *websocket.Conn, o *outbox) error {
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-o.wake:
		}
		for _, msg := range o.take() {
			if _, ok := msg.(endOfStream); ok {
				return nil
			}
			b, err := json.Marshal(msg)
			if err != nil {
				return fmt.Errorf("marshal stream message: %w", err)
			}
			// Not derived from ctx: a cancelled write drops the connection,
			// and a stream that ends still closes with a status.
			wctx, cancel := context.WithTimeout(context.Background(), s.cfg.StreamWriteTimeout)
			err = c.Write(wctx, websocket.MessageText, b)
			timedOut := wctx.Err() == context.DeadlineExceeded
			cancel()
			if err != nil {
				if timedOut {
					return errSlowClient
				}
				return err
			}
			s.metrics.frames.Inc()
		}
	}
}

// pingLoop pings the client every interval; a client that does not answer
// in time ends the stream through cancel.
func (s *Server) pingLoop(ctx context.Context, c *websocket.Conn, cancel context.CancelCauseFunc) {
	every(ctx, s.cfg.StreamPing, func() bool {
		pctx, done := context.WithTimeout(context.Background(), s.cfg.StreamPing)
		err := c.Ping(pctx)
		done()
		if err != nil && ctx.Err() == nil {
			cancel(fmt.Errorf("%w: %v", errNoPong, err))
			return false
		}
		return true
	})
}

// closeStream ends a stream with the status its cause calls for and
// counts it. Normal closure and cancellation are not errors.
func (s *Server) closeStream(c *websocket.Conn, kind string, cause error) {
	switch {
	case cause == nil:
		_ = c.Close(websocket.StatusNormalClosure, "")
	case errors.Is(cause, errShutdown):
		_ = c.Close(websocket.StatusGoingAway, "server shutting down")
	case errors.Is(cause, errSlowClient):
		s.metrics.slowClosed.Inc()
		s.log.Info("stream closed: client too slow", "kind", kind)
		_ = c.Close(websocket.StatusPolicyViolation, "client too slow: send queue full")
	case isClientGone(cause):
		_ = c.CloseNow()
	case errors.Is(cause, errIdle):
		s.log.Info("stream closed: idle", "kind", kind)
		_ = c.Close(websocket.StatusNormalClosure, "idle: no request for "+s.cfg.SessionIdle.String())
	case errors.Is(cause, errNoPong):
		// A client that does not read its socket cannot read a close
		// frame either.
		s.log.Info("stream closed: the client did not answer a ping", "kind", kind, "err", cause)
		_ = c.CloseNow()
	default:
		s.log.Warn("stream error", "kind", kind, "err", cause)
		_ = c.Close(websocket.StatusInternalError, "internal error")
	}
}

// streamCause is why a stream ended: a writer that timed out makes it a
// slow client, whatever else noticed the dropped connection first.
func streamCause(ctx context.Context, writeErr error) error {
	if errors.Is(writeErr, errSlowClient) {
		return errSlowClient
	}
	return context.Cause(ctx)
}

// errNoPong is the cause of streams whose client did not answer a ping
// within StreamPing (gone, or not reading its socket).
var errNoPong = errors.New("api: no answer to a ping")

// errShutdown is the cause of streams ended by Server.Shutdown.
var errShutdown = errors.New("api: server shutting down")

func isClientGone(err error) bool {
	st := websocket.CloseStatus(err)
	return st == websocket.StatusNormalClosure || st == websocket.StatusGoingAway ||
		errors.Is(err, context.Canceled) || errors.Is(err, net.ErrClosed) || errors.Is(err, io.EOF) || errors.Is(err, errClientClosed)
}

// errClientClosed is the cause when the client closed or dropped the
// connection.
var errClientClosed = errors.New("api: client closed the stream")

// streamContext derives a stream's context: cancelled with errShutdown
// when the server shuts down, or with the cause given to cancel.
func (s *Server) streamContext() (context.Context, context.CancelCauseFunc) {
	ctx, cancel := context.WithCancelCause(context.Background())
	stop := context.AfterFunc(s.streamCtx, func() { cancel(errShutdown) })
	return ctx, func(cause error) {
		stop()
		cancel(cause)
	}
}

// openStream accepts a WebSocket of the given kind (or answers the
// request with a problem and returns !ok), counts it as open, and gives it
// a context that ends with the server. The caller defers done, which ends
// the context, uncounts the stream and closes the connection.
func (s *Server) openStream(w http.ResponseWriter, r *http.Request, kind string) (c *websocket.Conn, ctx context.Context, cancel context.CancelCauseFunc, done func(), ok bool) {
	return s.openStreamHolding(w, r, kind, streamBytes)
}

// openStreamHolding opens a stream that holds bytes of the memory budget
// while it is open (a session socket holds none: it reserves per
// request, so an idle one costs nothing).
func (s *Server) openStreamHolding(w http.ResponseWriter, r *http.Request, kind string, bytes int64) (c *websocket.Conn, ctx context.Context, cancel context.CancelCauseFunc, done func(), ok bool) {
	mem, err := s.mem.reserve(kindStream, bytes, memoryHint{what: "a stream"})
	if err != nil {
		writeError(w, r, err)
		return nil, nil, nil, nil, false
	}
	c, err = s.acceptStream(w, r)
	if err != nil {
		mem.release()
		if !errors.Is(err, errAccepted) {
			writeError(w, r, err)
		}
		return nil, nil, nil, nil, false
	}
	untrack := s.trackStream(kind)
	ctx, cancel = s.streamContext()
	return c, ctx, cancel, func() {
		cancel(nil)
		untrack()
		c.CloseNow()
		mem.release()
	}, true
}

// trackStream counts an open stream until the returned func is called.
func (s *Server) trackStream(kind string) func() {
	s.streamsWG.Add(1)
	s.openStreams.Add(1)
	g := s.metrics.streams.WithLabelValues(kind)
	g.Inc()
	return func() {
		g.Dec()
		s.openStreams.Add(-1)
		s.streamsWG.Done()
	}
}
