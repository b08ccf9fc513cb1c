package session_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/racetrack-sim/racetrack/core/check"
	"github.com/racetrack-sim/racetrack/core/session"
)

// stepper is a recorder that steps searches itself (a session.Stepper),
// noting the workers each slice asked for; it steps on one goroutine.
type stepper struct {
	recorder
	workers []int
}

func (p *stepper) Step(x *check.Explorer, n, workers int) check.Progress {
	p.workers = append(p.workers, workers)
	return x.Step(n)
}

// serveSearch serves one search request over pipe and returns its last
// message (the result or the error).
func serveSearch(t *testing.T, s *session.Session, pipe session.Pipe, got func() []session.Message, workers int) session.Message {
	t.Helper()
	req, derr := session.DecodeRequest([]byte(fmt.Sprintf(`{"id":"w%d","method":"search","args":{"scenario":"dining-philosophers","preset":"lock-level","strategy":"bfs","budget":{"states":20000},"workers":%d}}`, workers, workers)))
	if derr != nil {
		t.Fatal(derr)
	}
	s.Serve(req, pipe)
	msgs := got()
	if len(msgs) == 0 {
		t.Fatalf("workers %d: no reply", workers)
	}
	return msgs[len(msgs)-1]
}

// TestSearchWorkers: a session whose transport runs searches on one
// goroutine (the wasm worker: Limits.MaxSearchWorkers 0) accepts workers
// 0 and 1 and refuses more, saying it runs a search on one worker; a
// transport that allows more gets the search's work through its Stepper
// with the workers asked for; negative and too large counts are refused
// naming workers; the answer does not depend on the count.
func TestSearchWorkers(t *testing.T) {
	one := newSession()
	var base *session.SearchResult
	for _, w := range []int{0, 1} {
		var r recorder
		m := serveSearch(t, one, &r, func() []session.Message { return r.got }, w)
		if m.Error != nil {
			t.Fatalf("workers %d on a one-worker session: %+v", w, m.Error)
		}
		res := resultOf(t, m)
		if !res.Found {
			t.Fatalf("workers %d: bfs found no deadlock: %+v", w, res)
		}
		if base == nil {
			base = &res
		} else if res.States != base.States || res.Length != base.Length {
			t.Errorf("workers %d: %d states, length %d; workers 0: %d, %d", w, res.States, res.Length, base.States, base.Length)
		}
	}
	for _, c := range []struct {
		workers int
		want    string
	}{
		{2, "is 2, but this engine runs a search on one worker"},
		{-1, "is -1, outside [0, 1]"},
	} {
		var r recorder
		m := serveSearch(t, one, &r, func() []session.Message { return r.got }, c.workers)
		if m.Error == nil || m.Error.Field != "workers" || !strings.Contains(m.Error.Message, c.want) {
			t.Errorf("workers %d on a one-worker session: %+v, want an error on workers saying %q", c.workers, m.Error, c.want)
		}
	}

	many := session.New(session.Config{Registry: reg, Limits: session.Limits{MaxSearchWorkers: 8}})
	for _, w := range []int{0, 3, 8} {
		p := &stepper{}
		m := serveSearch(t, many, p, func() []session.Message { return p.got }, w)
		if m.Error != nil {
			t.Fatalf("workers %d: %+v", w, m.Error)
		}
		if res := resultOf(t, m); res.States != base.States || res.Length != base.Length {
			t.Errorf("workers %d through a stepper: %d states, length %d; on one worker: %d, %d", w, res.States, res.Length, base.States, base.Length)
		}
		if len(p.workers) == 0 {
			t.Fatalf("workers %d: the pipe's Step was never called", w)
		}
		for _, got := range p.workers {
			if got != w {
				t.Fatalf("workers %d: a slice asked the pipe for %d workers", w, got)
			}
		}
	}
	for _, c := range []struct {
		workers int
		want    string
	}{{9, "is 9, outside [0, 8] (0: one per CPU)"}, {-3, "is -3, outside [0, 8]"}} {
		p := &stepper{}
		m := serveSearch(t, many, p, func() []session.Message { return p.got }, c.workers)
		if m.Error == nil || m.Error.Field != "workers" || !strings.Contains(m.Error.Message, c.want) {
			t.Errorf("workers %d: %+v, want an error on workers saying %q", c.workers, m.Error, c.want)
		}
	}
}

func resultOf(t *testing.T, m session.Message) session.SearchResult {
	t.Helper()
	b, err := json.Marshal(m.Result)
	if err != nil {
		t.Fatal(err)
	}
	var res session.SearchResult
	if err := json.Unmarshal(b, &res); err != nil {
		t.Fatal(err)
	}
	return res
}
