package session_test

import (
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/racetrack-sim/racetrack/core/check"
	"github.com/racetrack-sim/racetrack/core/session"
)

const distributedReq = `{"id":"d1","method":"search","args":{"scenario":"dining-philosophers","preset":"lock-level","strategy":"bfs","distributed":true}}`

func serveText(t *testing.T, s *session.Session, text string, p session.Pipe) {
	t.Helper()
	req, err := session.DecodeRequest([]byte(text))
	if err != nil {
		t.Fatal(err)
	}
	s.Serve(req, p)
}

// A transport that steps searches itself (the wasm worker) refuses
// "distributed": true, naming the field.
func TestSessionRefusesDistributedSearch(t *testing.T) {
	s := newSession()
	var r recorder
	serveText(t, s, distributedReq, &r)
	if len(r.got) != 1 || r.got[0].Error == nil || r.got[0].Error.Code != session.CodeInvalid || r.got[0].Error.Field != "distributed" {
		t.Fatalf("distributed search on a pipe without a cluster: %+v", r.got)
	}
	// The refused search is forgotten: its id can be used again.
	serveText(t, s, distributedReq, &r)
	if len(r.got) != 2 || r.got[1].Error == nil || r.got[1].Error.Field != "distributed" {
		t.Fatalf("second refusal: %+v", r.got)
	}
}

// remote is a scripted distributed search.
type remote struct {
	polls     []session.SearchProgress // one per Poll, then done
	cancelled bool
	result    session.SearchResult
	req       session.SearchRequest
}

func (r *remote) Poll() (session.SearchProgress, bool) {
	if r.cancelled || len(r.polls) == 0 {
		return session.SearchProgress{}, true
	}
	p := r.polls[0]
	r.polls = r.polls[1:]
	return p, false
}

func (r *remote) Result() session.SearchResult {
	res := r.result
	res.Cancelled = r.cancelled
	return res
}

func (r *remote) Cancel() { r.cancelled = true }

// distributor is a recorder whose searches run on a scripted remote; its
// clock advances by each Wait, and onWait runs inside it (as other
// requests would).
type distributor struct {
	recorder
	r      *remote
	now    time.Duration
	onWait func()
}

func (d *distributor) Distribute(req session.SearchRequest) (session.Remote, error) {
	d.r.req = req
	return d.r, nil
}
func (d *distributor) Now() time.Duration { return d.now }
func (d *distributor) Wait(w time.Duration) bool {
	d.now += w
	if d.onWait != nil {
		d.onWait()
	}
	return true
}

// The session runs a distributed search through its transport as one of
// its own: progress (paced, only when it changed), then the remote's
// result on the request's id; a cancel reaches the remote; a second
// search with the same id is refused while the first runs.
func TestSessionRunsDistributedSearchThroughItsTransport(t *testing.T) {
	s := newSession()
	prog := func(states int) session.SearchProgress {
		return session.SearchProgress{Progress: check.Progress{States: states}, Budget: 1000}
	}
	d := &distributor{r: &remote{polls: []session.SearchProgress{prog(10), prog(10), prog(10), prog(40), prog(40)},
		result: session.SearchResult{Result: check.Result{Strategy: check.BFS, States: 55, Found: true}}}}
	serveText(t, s, distributedReq, d)
	if !d.r.req.Distributed || d.r.req.Strategy != check.BFS {
		t.Fatalf("the transport got %+v", d.r.req)
	}
	var states []int
	for _, m := range d.got[:len(d.got)-1] {
		if m.Progress == nil {
			t.Fatalf("before the result: %+v", m)
		}
		states = append(states, m.Progress.States)
	}
	if len(states) != 2 || states[0] != 10 || states[1] != 40 {
		t.Fatalf("progress reports %v, want [10 40] (sent when changed, at most every 100 ms)", states)
	}
	last := d.got[len(d.got)-1]
	res, ok := last.Result.(session.SearchResult)
	if last.Error != nil || !ok || res.States != 55 || !res.Found || res.Cancelled {
		t.Fatalf("result %+v", last)
	}

	// Cancelled by a call that comes in while it runs; meanwhile the id
	// is taken.
	d = &distributor{r: &remote{polls: []session.SearchProgress{prog(1), prog(2), prog(3), prog(4)}}}
	var dupErr, cancelErr error
	d.onWait = func() {
		if d.onWait == nil {
			return
		}
		d.onWait = nil
		_, dupErr = s.StartSearch("d1", json.RawMessage(`{"scenario":"dining-philosophers","preset":"lock-level","strategy":"bfs","distributed":true}`))
		_, cancelErr = s.Cancel("d1")
	}
	serveText(t, s, distributedReq, d)
	var se *session.Error
	if !errors.As(dupErr, &se) || se.Field != "id" {
		t.Fatalf("a second search with the running one's id: %v", dupErr)
	}
	if cancelErr != nil || !d.r.cancelled {
		t.Fatalf("cancel: %v, remote cancelled %v", cancelErr, d.r.cancelled)
	}
	last = d.got[len(d.got)-1]
	if res, ok = last.Result.(session.SearchResult); !ok || !res.Cancelled {
		t.Fatalf("cancelled search's result %+v", last)
	}
}
