package api

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"sync"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/racetrack-sim/racetrack/core/session"
)

// Search states.
const (
	StateQueued    = "queued"
	StateRunning   = "running"
	StateDone      = "done"
	StateFailed    = "failed"
	StateCancelled = "cancelled"
)

// SearchResult is a finished search as REST answers it: the session's
// answer (check.Result: verdict, stop reason, counts, reductions, the
// counterexample; cancelled, timedOut), declared once in the core, and
// what only the server adds.
type SearchResult struct {
	session.SearchResult
	// RunID is the counterexample's run, stored so that the id resolves.
	RunID string `json:"runId,omitempty"`
	// Schedule and Seed are the counterexample's (empty when none).
	Schedule  []int   `json:"schedule"`
	Seed      uint64  `json:"seed"`
	ElapsedMs float64 `json:"elapsedMs"`
	// Message is Violation under the name REST clients read before the
	// result carried the whole check.Result.
	//
	// Deprecated: read violation.
	Message string `json:"message,omitempty"`
}

// SearchStatus is GET /api/v1/searches/{id}, and the stored record.
type SearchStatus struct {
	ID       string                 `json:"id"`
	State    string                 `json:"state"`
	Progress session.SearchProgress `json:"progress"`
	Result   *SearchResult          `json:"result,omitempty"`
	Error    string                 `json:"error,omitempty"`
	Request  session.SearchRequest  `json:"request"`
	Created  time.Time              `json:"created"`
	// Resumed counts the starts after a crash interrupted it.
	Resumed int `json:"resumed,omitempty"`
}

func (st *SearchStatus) final() bool {
	return st.State == StateDone || st.State == StateFailed || st.State == StateCancelled
}

var searchIDPattern = regexp.MustCompile(`^s[0-9a-f]{16}$`)

func newSearchID() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return "s" + hex.EncodeToString(b[:])
}

// job is a search known to this process.
type job struct {
	mu      sync.Mutex
	status  SearchStatus
	cancel  context.CancelCauseFunc
	ctx     context.Context
	mem     *grant        // its memory, reserved before it was accepted
	updated chan struct{} // closed and replaced on every change
	plan    *searchPlan
	claimed bool // a worker started it, or it was finished while queued
}

// claim marks the job as taken by a worker; false if it was already
// finished (cancelled while queued).
func (j *job) claim() bool {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.claimed {
		return false
	}
	j.claimed = true
	return true
}

// claimQueued takes a job that no worker has started, so the caller can
// finish it; false if a worker has it.
func (j *job) claimQueued() bool { return j.claim() }

func (j *job) snapshot() (SearchStatus, <-chan struct{}) {
	j.mu.Lock()
	defer j.mu.Unlock()
	st := j.status
	if st.Result != nil {
		r := *st.Result
		st.Result = &r
	}
	return st, j.updated
}

func (j *job) update(f func(*SearchStatus)) {
	j.mu.Lock()
	f(&j.status)
	close(j.updated)
	j.updated = make(chan struct{})
	j.mu.Unlock()
}

// searchPool runs search jobs on a fixed number of workers behind a
// bounded queue.
type searchPool struct {
	s      *Server
	queue  chan *job
	mu     sync.Mutex
	jobs   map[string]*job
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
}

func newSearchPool(s *Server) *searchPool {
	p := &searchPool{s: s, queue: make(chan *job, s.cfg.SearchQueue), jobs: map[string]*job{}}
	p.ctx, p.cancel = context.WithCancel(context.Background())
	for range s.cfg.SearchWorkers {
		p.wg.Add(1)
		go p.worker()
	}
	return p
}

func (p *searchPool) stop() { p.cancel() }

// full reports whether the queue has no room left.
func (p *searchPool) full() bool { return len(p.queue) >= cap(p.queue) }
func (p *searchPool) wait()      { p.wg.Wait() }

var errQueueFull = errors.New("api: search queue full")

// submit registers a job holding mem and queues it, or fails with
// errQueueFull (the caller keeps mem then).
func (p *searchPool) submit(st SearchStatus, plan *searchPlan, mem *grant) (*job, error) {
	ctx, cancel := context.WithCancelCause(p.ctx)
	j := &job{status: st, cancel: cancel, ctx: ctx, updated: make(chan struct{}), plan: plan, mem: mem}
	p.mu.Lock()
	p.jobs[st.ID] = j // before a worker can finish and forget it
	p.mu.Unlock()
	select {
	case p.queue <- j:
	default:
		p.forget(st.ID)
		cancel(nil)
		return nil, errQueueFull
	}
	p.s.metrics.queue.Set(float64(len(p.queue)))
	return j, nil
}

func (p *searchPool) get(id string) (*job, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	j, ok := p.jobs[id]
	return j, ok
}

// forget drops a finished job from memory; the store still has it.
func (p *searchPool) forget(id string) {
	p.mu.Lock()
	delete(p.jobs, id)
	p.mu.Unlock()
}

func (p *searchPool) worker() {
	defer p.wg.Done()
	for {
		select {
		case <-p.ctx.Done():
			return
		case j := <-p.queue:
			p.s.metrics.queue.Set(float64(len(p.queue)))
			p.run(j)
		}
	}
}

// resume queues again the searches a previous process left unfinished.
// Those that do not fit in the queue are marked failed, with a reason.
func (p *searchPool) resume() error {
	recs, err := p.s.store.Searches()
	if err != nil {
		return err
	}
	for _, rec := range recs {
		if rec.final() {
			continue
		}
		reason := "interrupted by a server restart and could not be resumed"
		if rec.Resumed >= maxResumes {
			// It was running when the previous process died, and the one
			// before: it may be what kills the server. Never a crash loop.
			reason = fmt.Sprintf("interrupted by a server crash after it had been resumed %d time(s); not resumed again", rec.Resumed)
		} else if plan, perr := p.s.planSearch(rec.Request); perr == nil {
			mem, merr := p.s.mem.reserve(kindSearch, plan.bytes, memoryHint{field: "budget.states", what: "this search"})
			if merr != nil {
				reason = "interrupted by a server restart and not resumed: " + merr.(*Problem).Detail
			} else {
				rec.State, rec.Progress = StateQueued, session.SearchProgress{}
				rec.Resumed++
				// Counted in the store before it runs: a crash during this
				// attempt finds the count.
				if err := p.s.store.PutSearch(rec); err != nil {
					mem.release()
					return err
				}
				if _, perr = p.submit(*rec, plan, mem); perr == nil {
					continue
				}
				mem.release()
			}
		}
		rec.State, rec.Error = StateFailed, reason
		if err := p.s.store.PutSearch(rec); err != nil {
			return err
		}
	}
	return nil
}

// maxResumes is how many times a search interrupted by a crash is
// started again.
const maxResumes = 1

// park writes back the searches a graceful stop interrupted with their
// resume count cleared: a stop is not a crash, and they run again on the
// next start. Call it once the workers have stopped.
func (p *searchPool) park() {
	p.mu.Lock()
	jobs := make([]*job, 0, len(p.jobs))
	for _, j := range p.jobs {
		jobs = append(jobs, j)
	}
	p.mu.Unlock()
	for _, j := range jobs {
		st, _ := j.snapshot()
		if st.final() || st.Resumed == 0 {
			continue
		}
		st.Resumed = 0
		if err := p.s.store.PutSearch(&st); err != nil {
			p.s.log.Error("park search", "id", st.ID, "err", err)
		}
	}
}

// finish records the final state: first in the store, then in memory, so
// that a client never sees a result the store could lose.
func (p *searchPool) finish(j *job, f func(*SearchStatus)) {
	st, _ := j.snapshot()
	f(&st)
	if err := p.s.store.PutSearch(&st); err != nil {
		p.s.log.Error("store search", "id", st.ID, "err", err)
		st.State, st.Result, st.Error = StateFailed, nil, "the result could not be stored: "+storeCause(err)
	}
	j.update(func(cur *SearchStatus) { *cur = st })
	p.s.metrics.searches.WithLabelValues(st.State).Inc()
	p.forget(st.ID)
	j.cancel(nil) // releases the job's context
	j.mem.release()
}

func (s *Server) createSearch(w http.ResponseWriter, r *http.Request) {
	req, ok := decodeBody(w, r, DecodeSearchRequest)
	if !ok {
		return
	}
	j, err := s.startSearch(req)
	if err != nil {
		writeError(w, r, err)
		return
	}
	st, _ := j.snapshot()
	id := st.ID
	w.Header().Set("Location", "/api/v1/searches/"+id)
	writeJSON(w, http.StatusAccepted, map[string]string{"id": id})
}

// startSearch plans a search, reserves its memory, records it and queues
// it as a job: a REST search, or a distributed one from a session
// socket. A refusal (a Problem) leaves no record and holds no memory.
func (s *Server) startSearch(req session.SearchRequest) (*job, error) {
	plan, err := s.planSearch(req)
	if err != nil {
		return nil, err
	}
	queueFull := func() error {
		s.metrics.searches.WithLabelValues("rejected").Inc()
		return busy(5, "the search queue holds %d jobs, its limit; retry later", s.cfg.SearchQueue)
	}
	// Memory is asked first: a search that can never fit is told so (422)
	// even when the queue is full, rather than to retry.
	mem, err := s.reserveSearch(&req, plan)
	if err != nil {
		return nil, err
	}
	accepted := false
	defer func() {
		if !accepted {
			mem.release()
		}
	}()
	if s.searches.full() {
		return nil, queueFull()
	}
	st := SearchStatus{ID: newSearchID(), State: StateQueued, Request: req, Created: time.Now().UTC()}
	if err := s.store.PutSearch(&st); err != nil {
		return nil, fmt.Errorf("store search: %w", err)
	}
	j, err := s.searches.submit(st, plan, mem)
	if err != nil {
		if err := s.store.DeleteSearch(st.ID); err != nil {
			s.log.Error("delete refused search", "id", st.ID, "err", err)
		}
		return nil, queueFull()
	}
	accepted = true
	return j, nil
}

// cancelJob stops a queued or running job (a queued one is finished as
// cancelled here; a running one by its worker).
func (p *searchPool) cancelJob(j *job) {
	j.cancel(nil)
	if j.claimQueued() {
		p.finish(j, func(st *SearchStatus) { st.State = StateCancelled })
	}
}

// searchStatus finds a search: live in this process, else in the store.
func (s *Server) searchStatus(id string) (SearchStatus, *job, error) {
	if !searchIDPattern.MatchString(id) {
		return SearchStatus{}, nil, notFound("id", "no search with id %q: a search id is s followed by 16 hex digits", truncate(id, 40))
	}
	if j, ok := s.searches.get(id); ok {
		st, _ := j.snapshot()
		return st, j, nil
	}
	rec, err := s.store.Search(id)
	if errors.Is(err, ErrNotStored) {
		return SearchStatus{}, nil, notFound("id", "no search with id %s", id)
	}
	if err != nil {
		return SearchStatus{}, nil, fmt.Errorf("read search %s: %w", id, err)
	}
	return *rec, nil, nil
}

func (s *Server) getSearch(w http.ResponseWriter, r *http.Request) {
	st, _, err := s.searchStatus(chi.URLParam(r, "id"))
	if err != nil {
		writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, st)
}

// cancelSearch stops a queued or running search; a finished one is left
// as it is. Either way the answer is the search's status.
func (s *Server) cancelSearch(w http.ResponseWriter, r *http.Request) {
	st, j, err := s.searchStatus(chi.URLParam(r, "id"))
	if err != nil {
		writeError(w, r, err)
		return
	}
	if j != nil && !st.final() {
		s.searches.cancelJob(j)
		timeout := time.NewTimer(5 * time.Second)
		defer timeout.Stop()
	wait:
		for {
			cur, changed := j.snapshot()
			if cur.final() {
				break
			}
			select {
			case <-changed:
			case <-timeout.C:
				break wait
			case <-r.Context().Done():
				break wait
			}
		}
		st, _ = j.snapshot()
	}
	writeJSON(w, http.StatusOK, st)
}
