package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/coder/websocket"

	"github.com/racetrack-sim/racetrack/core/session"
	"github.com/racetrack-sim/racetrack/internal/harness"
)

// sessionBudget plays issue 29's attacks on the memory budget through
// paths that used to skip it: whole-window SVG diagrams and session
// exports of the large run, idle sockets holding the work budget, and a
// session search REST would refuse.
func (s *suite) sessionBudget(id string) {
	n := s.sc.exports * 2
	var run struct {
		Spec    json.RawMessage
		Summary struct{ Steps int }
		Steps   int
	}
	_ = json.Unmarshal(s.do("GET", "/api/v1/runs/"+id, "", nil).body, &run)
	steps := max(run.Steps, run.Summary.Steps, 2)
	counts, ok := s.concurrently(n, func() *reply {
		return s.do("GET", fmt.Sprintf("/api/v1/runs/%s/diagram.svg?from=0&to=%d", id, steps), "", nil)
	}, func(r *reply) bool {
		return r.status == 200 || r.retryable() || r.status == 422 && r.problem.Field == "to"
	})
	s.record(fmt.Sprintf("%d whole-window SVG diagrams of the large run at once", n), "200, or 503/429 with Retry-After (reserved first)", fmt.Sprint(counts), ok)

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	sockets := s.sc.streams
	counts, ok = s.sessionsAtOnce(ctx, sockets, func(int) []string {
		return []string{
			fmt.Sprintf(`{"id":1,"method":"open","args":{"spec":%s}}`, run.Spec),
			fmt.Sprintf(`{"id":2,"method":"export","args":{"run":%q,"format":"json"}}`, id),
		}
	})
	s.record(fmt.Sprintf("%d session sockets exporting the large run as JSON", sockets), "a result, or busy (reserved first); no socket lost", fmt.Sprint(counts), ok)

	code := s.sessionCall(ctx, []string{`{"id":1,"method":"search","args":{"scenario":"vitess-messager","preset":"lock-level","strategy":"bfs","params":{"clients":4,"iterations":3},"budget":{"states":100000000}}}`})
	s.record("session bfs REST refuses for memory (Vitess C=4 ITER=3, 100 M states)", "refused naming budget.states, before it runs", code, code == "error budget.states")

	idle := 300
	if s.sc.name == "full" {
		idle = 2500
	}
	var conns []*websocket.Conn
	opened := 0
	for i := 0; i < idle; i++ {
		c, _, err := websocket.Dial(ctx, "ws://"+s.host+"/api/v1/session", nil)
		if err != nil {
			break
		}
		opened++
		conns = append(conns, c)
	}
	held, _ := harness.ScrapeMetric(s.client, s.base, `racetrack_memory_reserved_bytes{kind="stream"}`)
	r := s.patient("POST", "/api/v1/runs", `{"scenario":"dining-philosophers","seed":77}`)
	for _, c := range conns {
		c.CloseNow()
	}
	s.record(fmt.Sprintf("%d idle session sockets, then a run", idle), "all open, holding no stream memory; the run 201",
		fmt.Sprintf("%d open, %.0f bytes held, run %s", opened, held, r.String()), opened == idle && held == 0 && r.status == http.StatusCreated)
}

// sessionsAtOnce opens n session sockets at once, the i-th sending
// msgs(i) (sessionCall), and counts how each ended; ok is whether every
// one ended in a result or busy.
func (s *suite) sessionsAtOnce(ctx context.Context, n int, msgs func(i int) []string) (map[string]int, bool) {
	counts, ok := map[string]int{}, true
	var mu sync.Mutex
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			code := s.sessionCall(ctx, msgs(i))
			mu.Lock()
			counts[code]++
			ok = ok && (code == "result" || code == "busy")
			mu.Unlock()
		}()
	}
	wg.Wait()
	return counts, ok
}

// sessionCall sends requests on a new session socket, each after the
// reply to the one before, and classifies the reply to the last one:
// result, busy, error FIELD, or what went wrong.
func (s *suite) sessionCall(ctx context.Context, msgs []string) string {
	c, res, err := websocket.Dial(ctx, "ws://"+s.host+"/api/v1/session", nil)
	if err != nil {
		if res != nil && (res.StatusCode == 429 || res.StatusCode == 503) {
			return "busy"
		}
		return "dial: " + err.Error()
	}
	defer c.CloseNow()
	c.SetReadLimit(-1)
	got := ""
	for _, m := range msgs {
		if err := c.Write(ctx, websocket.MessageText, []byte(m)); err != nil {
			return "write: " + err.Error()
		}
		want := m[strings.Index(m, `"id":`)+5 : strings.Index(m, `,`)]
		if got = readReply(ctx, c, want); got != "result" {
			return got
		}
	}
	return got
}

// readReply reads until the final reply to request id want.
func readReply(ctx context.Context, c *websocket.Conn, want string) string {
	for {
		_, b, err := c.Read(ctx)
		if err != nil {
			return "read: " + err.Error()
		}
		var m struct {
			ID       json.RawMessage
			Progress json.RawMessage
			Frame    json.RawMessage
			Error    *session.Error
		}
		if json.Unmarshal(b, &m) != nil || string(m.ID) != want || m.Progress != nil || m.Frame != nil {
			continue
		}
		switch {
		case m.Error == nil:
			return "result"
		case m.Error.Code == "busy":
			return "busy"
		default:
			return "error " + m.Error.Field
		}
	}
}
