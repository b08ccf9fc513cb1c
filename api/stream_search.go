package api

import (
	"context"
	"errors"
	"net/http"
	"sync"
	"time"

	"github.com/go-chi/chi/v5"
)

// searchProgressEvery is the least time between two progress events.
const searchProgressEvery = 250 * time.Millisecond

// searchEvent is a message of a search stream: "progress" while it runs,
// then one "result" with the final status, then a normal closure.
type searchEvent struct {
	Type string `json:"type"`
	SearchStatus
}

func (s *Server) searchStream(w http.ResponseWriter, r *http.Request) {
	st, j, err := s.searchStatus(chi.URLParam(r, "id"))
	if err != nil {
		writeError(w, r, err)
		return
	}
	c, ctx, cancel, done, ok := s.openStream(w, r, "search")
	if !ok {
		return
	}
	defer done()
	readCtx := c.CloseRead(context.Background())
	stop := context.AfterFunc(readCtx, func() { cancel(errClientClosed) })
	defer stop()
	out := newOutbox(s.cfg.StreamQueue)
	writeErr := make(chan error, 1)
	go func() {
		err := s.writeLoop(ctx, c, out)
		cancel(err)
		writeErr <- err
	}()
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		s.pingLoop(ctx, c, cancel)
	}()

	cause := s.followSearch(ctx, st, j, out)
	if cause == nil {
		out.push(endOfStream{}) // the writer ends once the result is written
	} else {
		cancel(cause)
	}
	werr := <-writeErr
	switch {
	case errors.Is(werr, errSlowClient):
		cause = errSlowClient
	case cause == nil && werr != nil:
		cause = werr
	case cause == nil && context.Cause(ctx) != context.Canceled:
		cause = context.Cause(ctx) // shutdown or the client left first
	}
	s.closeStream(c, "search", cause)
	_ = c.CloseNow()
	wg.Wait()
}

// followSearch queues progress events until the search is final, then the
// result.
func (s *Server) followSearch(ctx context.Context, st SearchStatus, j *job, out *outbox) error {
	if j == nil {
		// Not running in this process: the stored record is all there is.
		if !out.push(searchEvent{Type: "result", SearchStatus: st}) {
			return errSlowClient
		}
		return nil
	}
	st, changed := j.snapshot()
	tick := time.NewTicker(searchProgressEvery)
	defer tick.Stop()
	dirty := true
	for !st.final() {
		select {
		case <-ctx.Done():
			return context.Cause(ctx)
		case <-changed:
			st, changed = j.snapshot()
			dirty = true
			continue
		case <-tick.C:
		}
		if dirty && !out.push(searchEvent{Type: "progress", SearchStatus: st}) {
			return errSlowClient
		}
		dirty = false
	}
	if !out.push(searchEvent{Type: "result", SearchStatus: st}) {
		return errSlowClient
	}
	return nil
}
