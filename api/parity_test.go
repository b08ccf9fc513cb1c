package api

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/stretchr/testify/require"

	"github.com/racetrack-sim/racetrack/core/catalog"
	"github.com/racetrack-sim/racetrack/core/scenario"
	"github.com/racetrack-sim/racetrack/core/session"
)

// directPipe serves session requests in the test's goroutine, as the Web
// Worker does, and keeps the final message's bytes.
type directPipe struct {
	now  time.Duration
	last []byte
}

func (p *directPipe) Send(m session.Message) bool {
	if m.Progress == nil && m.Frame == nil {
		b, err := json.Marshal(m)
		if err != nil {
			panic(err)
		}
		p.last = b
	}
	return true
}
func (p *directPipe) Now() time.Duration      { p.now += time.Millisecond; return p.now }
func (p *directPipe) Wait(time.Duration) bool { return true }

// parity sends each request to the session directly (what the worker
// runs) and over the /api/v1/session WebSocket, and fails unless both
// answer with the same bytes.
type parity struct {
	t      *testing.T
	direct *session.Session
	ws     *sessionClient
	seq    int
	in     *socketQueue
}

// socketQueue reads a socket's messages as they come and keeps them until
// taken: a socket is read only while a Read is in progress, and so
// answers the server's pings only then. A direct call of a busy test
// machine took 21 s, past the server's 15 s ping timeout, and the server
// closed the socket while the test was not reading it.
type socketQueue struct {
	mu    sync.Mutex
	msgs  [][]byte
	err   error
	ready chan struct{} // has a token when msgs or err changed
}

func readSocket(ctx context.Context, c *websocket.Conn) *socketQueue {
	q := &socketQueue{ready: make(chan struct{}, 1)}
	go func() {
		for {
			_, b, err := c.Read(ctx)
			q.mu.Lock()
			if err != nil {
				q.err = err
			} else {
				q.msgs = append(q.msgs, b)
			}
			q.mu.Unlock()
			select {
			case q.ready <- struct{}{}:
			default:
			}
			if err != nil {
				return
			}
		}
	}()
	return q
}

// next is the next message, or the error that ended the socket.
func (q *socketQueue) next() ([]byte, error) {
	for {
		q.mu.Lock()
		if len(q.msgs) > 0 {
			b := q.msgs[0]
			q.msgs = q.msgs[1:]
			q.mu.Unlock()
			return b, nil
		}
		err := q.err
		q.mu.Unlock()
		if err != nil {
			return nil, err
		}
		<-q.ready
	}
}

func (p *parity) call(method string, args any) json.RawMessage {
	p.t.Helper()
	p.seq++
	a, err := json.Marshal(args)
	require.NoError(p.t, err)
	text := fmt.Sprintf(`{"id":%d,"method":%q,"args":%s}`, p.seq, method, a)
	req, rerr := session.DecodeRequest([]byte(text))
	require.Nil(p.t, rerr)
	pipe := &directPipe{}
	p.direct.Serve(req, pipe)
	p.ws.write(text)
	var got []byte
	for got == nil {
		b, err := p.in.next()
		require.NoError(p.t, err)
		var r reply
		require.NoError(p.t, json.Unmarshal(b, &r))
		if string(r.ID) == strconv.Itoa(p.seq) && r.Progress == nil && r.Frame == nil {
			got = b
		}
	}
	if !bytes.Equal(pipe.last, got) {
		p.t.Fatalf("%s %s: the pipes differ\n direct: %.600s\n socket: %.600s", method, a, pipe.last, got)
	}
	var r reply
	require.NoError(p.t, json.Unmarshal(got, &r))
	if r.Error != nil {
		return nil
	}
	return r.Result
}

func decodeInto[T any](t *testing.T, raw json.RawMessage) T {
	t.Helper()
	var v T
	require.NoError(t, json.Unmarshal(raw, &v), "%.300s", raw)
	return v
}

// TestSessionParity drives one script of session calls through both
// pipes for every scenario, preset and variant of the catalog, and checks
// that every answer is byte for byte the same, search counts included.
// With -short (make test) each preset runs one of its variants, each
// preset of a scenario the next variant in turn, so every variant runs
// in some preset (the last preset also those left over); make test-full
// runs them all.
func TestSessionParity(t *testing.T) {
	reg := catalog.New()
	// The socket is read while a direct call runs (readSocket), however
	// long it takes: the server's pings (every StreamPing, 15 s) are
	// answered. Pings every 100 ms fail the test at once without it; a
	// test server pinging every second still dropped the socket once
	// under make test's load, the pong late.
	ts := newTestServer(t, func(c *Config) { c.Registry = reg })
	p := &parity{t: t, direct: session.New(session.Config{Registry: reg, Limits: ts.sessionLimits()}), ws: dialSession(t, ts)}
	p.in = readSocket(p.ws.ctx, p.ws.c)
	p.call("scenarios", nil)
	p.call("formats", nil)
	for _, sc := range reg.List() {
		for i, pr := range sc.Presets {
			for j, v := range sc.Variants {
				if testing.Short() && j != i%len(sc.Variants) && !(i == len(sc.Presets)-1 && j > i) {
					continue
				}
				t.Run(sc.ID+"/"+pr.ID+"/"+v.ID, func(t *testing.T) {
					p.t = t
					parityScript(p, scenario.RunSpec{Scenario: sc.ID, Preset: pr.ID, Variant: v.ID, Seed: 1})
				})
			}
		}
	}
	p.call("nope", nil)
	p.call("steps", map[string]any{"run": "r0"})
}

// searchStepsBound skips the searches of presets whose runs are longer:
// shrinking a counterexample replays it up to check.ShrinkRuns times.
// Under the race detector (make test) only the dining philosophers are
// searched; `go test ./api -run TestSessionParity` searches them all.
const searchStepsBound = 5000

func parityScript(p *parity, spec scenario.RunSpec) {
	t := p.t
	sum := decodeInto[scenario.Summary](t, p.call("open", map[string]any{"spec": spec}))
	run, n := sum.ID, sum.Steps
	p.call("steps", map[string]any{"run": run, "from": 0, "limit": 50})
	for _, kind := range []string{"message", "lock", "violation", "choice", ""} {
		p.call("find", map[string]any{"run": run, "step": -1, "kind": kind})
		p.call("find", map[string]any{"run": run, "step": n, "kind": kind, "back": true})
	}
	p.call("state", map[string]any{"run": run, "step": min(10, n-1)})
	choice := decodeInto[session.Found](t, p.call("find", map[string]any{"run": run, "step": -1, "kind": "choice"}))
	fork := run
	if choice.Found {
		alts := decodeInto[[]session.Alternative](t, p.call("alternatives", map[string]any{"run": run, "step": choice.Step}))
		p.call("state", map[string]any{"run": run, "step": choice.Step})
		for ci, a := range alts {
			for _, o := range a.Options {
				if !o.Picked && fork == run {
					child := decodeInto[scenario.Summary](t, p.call("fork", map[string]any{"run": run, "step": choice.Step, "choice": ci, "option": o.Index}))
					fork = child.ID
				}
			}
		}
		p.call("forks", map[string]any{"run": fork})
	}
	p.call("compare", map[string]any{"a": run, "b": fork})
	last := n - 1
	if len(sum.Violations) > 0 {
		last = sum.Violations[0].Step
	}
	p.call("slice", map[string]any{"run": run, "step": last})
	p.call("layout", map[string]any{"run": run, "from": 0, "to": min(n, 2000)})
	p.call("charts", map[string]any{"run": run, "width": 800})
	if raceEnabled && n > searchStepsBound {
		return // exports of long runs cost minutes under the race detector
	}
	for _, f := range session.Formats() {
		p.call("export", map[string]any{"run": fork, "format": f.ID})
	}
	if n > searchStepsBound || (raceEnabled && spec.Scenario != "dining-philosophers") {
		return
	}
	base := map[string]any{"scenario": spec.Scenario, "preset": spec.Preset, "variant": spec.Variant}
	for _, s := range []struct {
		strategy string
		budget   map[string]any
	}{
		{"bfs", map[string]any{"states": 2000}},
		{"dfs", map[string]any{"states": 2000}},
		{"random", map[string]any{"runs": 20}},
		{"pct", map[string]any{"runs": 20}},
	} {
		req := map[string]any{"strategy": s.strategy, "budget": s.budget}
		if s.strategy == "dfs" {
			// Several dfs workers may reach a state first at different
			// depths, so the deepest schedule they report differs from
			// run to run (states, transitions and the verdict do not).
			req["workers"] = 1
		}
		for k, v := range base {
			req[k] = v
		}
		p.call("search", req)
	}
}
