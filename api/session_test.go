package api

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/racetrack-sim/racetrack/core/check"
	"github.com/racetrack-sim/racetrack/core/scenario"
	"github.com/racetrack-sim/racetrack/core/session"
)

// reply is any message of the session socket.
type reply struct {
	ID       json.RawMessage         `json:"id"`
	Result   json.RawMessage         `json:"result"`
	Error    *session.Error          `json:"error"`
	Progress *session.SearchProgress `json:"progress"`
	Frame    *session.Frame          `json:"frame"`
}

// sessionClient speaks the session protocol in a test.
type sessionClient struct {
	t   *testing.T
	ctx context.Context
	c   *websocket.Conn
	seq int
}

func dialSession(t *testing.T, ts *testServer) *sessionClient {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
	t.Cleanup(cancel)
	c := dial(t, ctx, wsURL(ts, "/api/v1/session"), nil)
	c.SetReadLimit(-1) // exports and layouts are large
	t.Cleanup(func() { c.CloseNow() })
	return &sessionClient{t: t, ctx: ctx, c: c}
}

func (sc *sessionClient) read() reply {
	sc.t.Helper()
	_, b, err := sc.c.Read(sc.ctx)
	require.NoError(sc.t, err)
	var r reply
	require.NoError(sc.t, json.Unmarshal(b, &r), "%s", b)
	return r
}

func (sc *sessionClient) write(text string) {
	sc.t.Helper()
	require.NoError(sc.t, sc.c.Write(sc.ctx, websocket.MessageText, []byte(text)))
}

// call sends a request and returns its final reply; frames and progress
// on the way go to each.
func (sc *sessionClient) call(method, args string, each ...func(reply)) reply {
	sc.t.Helper()
	sc.seq++
	id := strconv.Itoa(sc.seq)
	sc.write(`{"id":` + id + `,"method":"` + method + `","args":` + args + `}`)
	for {
		r := sc.read()
		if string(r.ID) != id {
			continue
		}
		if r.Frame != nil || r.Progress != nil {
			for _, f := range each {
				f(r)
			}
			continue
		}
		return r
	}
}

func (sc *sessionClient) result(method, args string, v any) {
	sc.t.Helper()
	r := sc.call(method, args)
	require.Nil(sc.t, r.Error, "%s %s", method, args)
	require.NoError(sc.t, json.Unmarshal(r.Result, v))
}

func TestSessionSocketOpensStepsAndPlays(t *testing.T) {
	ts := newTestServer(t)
	sc := dialSession(t, ts)
	var sum scenario.Summary
	sc.result("open", `{"spec":`+philoSpec+`}`, &sum)
	require.Positive(t, sum.Steps)
	var page struct {
		Total, From int
		Steps       []struct{ Index int }
	}
	sc.result("steps", `{"run":"`+sum.ID+`","from":1,"limit":2}`, &page)
	assert.Equal(t, sum.Steps, page.Total)
	require.Len(t, page.Steps, 2)
	assert.Equal(t, 1, page.Steps[0].Index)

	view := map[[2]string]string{}
	prev, frames, violations := -1, 0, 0
	r := sc.call("play", `{"run":"`+sum.ID+`","step":0,"speed":5000}`, func(r reply) {
		f := r.Frame
		require.NotNil(t, f)
		assert.GreaterOrEqual(t, f.Step, prev, "play moves forwards")
		assert.Equal(t, frames == 0, f.Full, "only the first frame carries every field")
		prev = f.Step
		frames++
		violations += len(f.Violations)
		for _, c := range f.Changed {
			view[[2]string{c.Group, c.Name}] = c.Value
		}
	})
	require.Nil(t, r.Error)
	var paused session.Paused
	require.NoError(t, json.Unmarshal(r.Result, &paused))
	assert.Equal(t, sum.Steps-1, paused.Step, "play runs to the last step")
	assert.Equal(t, sum.Steps-1, prev)
	assert.Equal(t, len(sum.Violations), violations)
	var st struct {
		Groups []struct {
			ID     string
			Fields []struct{ Name, Value string }
		}
	}
	sc.result("state", fmt.Sprintf(`{"run":%q,"step":%d}`, sum.ID, prev), &st)
	for _, g := range st.Groups {
		for _, f := range g.Fields {
			assert.Equal(t, f.Value, view[[2]string{g.ID, f.Name}], "%s.%s", g.ID, f.Name)
		}
	}

	// Pause from another request stops a playback where it is.
	sc.write(`{"id":"p","method":"play","args":{"run":"` + sum.ID + `","speed":2}}`)
	require.NotNil(t, sc.read().Frame)
	sc.write(`{"id":"q","method":"pause","args":{}}`)
	var got []string
	for len(got) < 2 {
		r := sc.read()
		if r.Frame == nil {
			require.Nil(t, r.Error)
			got = append(got, string(r.ID))
		}
	}
	assert.ElementsMatch(t, []string{`"p"`, `"q"`}, got)
}

// TestSessionSocketBadInput sends what a broken or hostile client might:
// each gets an error naming the problem, on its id when it has one, and
// the socket keeps answering.
func TestSessionSocketBadInput(t *testing.T) {
	ts := newTestServer(t, func(c *Config) { c.MaxBodyBytes = 4096 })
	sc := dialSession(t, ts)
	cases := []struct {
		text, id, code, field string
	}{
		{`{"id":1,"method":"nope","args":{}}`, `1`, session.CodeMethod, "method"},
		{`{"id":2,"method":"open","args":{"spec":{"scenario":"nope"}}}`, `2`, session.CodeInvalid, "spec.scenario"},
		{`{"id":3,"method":"steps","args":{"run":"r0"}}`, `3`, session.CodeNotFound, "run"},
		{`{"id":4,"method":"steps","args":[1]}`, `4`, session.CodeBadRequest, "args"},
		{`{"id":5,"method":`, `null`, session.CodeBadRequest, "args"},
		{`not json`, `null`, session.CodeBadRequest, "args"},
		{`{"method":"scenarios"}`, `null`, session.CodeBadRequest, "id"},
		{`{"id":{"x":1},"method":"scenarios"}`, `null`, session.CodeBadRequest, "id"},
		{`{"id":"` + strings.Repeat("x", 8000) + `"}`, `null`, session.CodeTooLarge, "message"},
	}
	for _, c := range cases {
		sc.write(c.text)
		r := sc.read()
		require.NotNil(t, r.Error, "%.60s", c.text)
		assert.Equal(t, c.id, string(r.ID), "%.60s", c.text)
		assert.Equal(t, c.code, r.Error.Code, "%.60s: %s", c.text, r.Error.Message)
		assert.Equal(t, c.field, r.Error.Field, "%.60s: %s", c.text, r.Error.Message)
		assert.NotEmpty(t, r.Error.Message)
	}
	require.NoError(t, sc.c.Write(sc.ctx, websocket.MessageBinary, []byte("{}")))
	assert.Equal(t, "message", sc.read().Error.Field)

	// A flood: every request is answered, with a result or busy.
	const flood = 300
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := range flood {
			if sc.c.Write(sc.ctx, websocket.MessageText, []byte(`{"id":"f`+strconv.Itoa(i)+`","method":"formats"}`)) != nil {
				return
			}
		}
	}()
	answered, busy := 0, 0
	for answered < flood {
		r := sc.read()
		answered++
		if r.Error != nil {
			assert.Equal(t, session.CodeBusy, r.Error.Code)
			busy++
		}
	}
	wg.Wait()
	t.Logf("flood of %d requests: %d answered busy", flood, busy)
	var formats []session.Format
	sc.result("formats", `{}`, &formats)
	assert.NotEmpty(t, formats, "the socket still works")
}

func TestSessionSocketSearchProgressAndCancel(t *testing.T) {
	ts := newTestServer(t)
	sc := dialSession(t, ts)
	var res session.SearchResult
	r := sc.call("search", `{"scenario":"dining-philosophers","preset":"lock-level","strategy":"bfs","budget":{"states":20000}}`)
	require.Nil(t, r.Error)
	require.NoError(t, json.Unmarshal(r.Result, &res))
	assert.True(t, res.Found)
	assert.True(t, res.Reductions.Sleep, "bfs takes its default reductions")

	sc.write(`{"id":"s","method":"search","args":{"scenario":"dining-philosophers","preset":"lock-level","variant":"fixed","strategy":"random","budget":{"runs":1000000}}}`)
	for {
		r := sc.read()
		if r.Progress != nil {
			break
		}
	}
	sc.write(`{"id":"c","method":"cancel","args":{"id":"s"}}`)
	for done := 0; done < 2; {
		r := sc.read()
		if r.Progress != nil {
			continue
		}
		require.Nil(t, r.Error)
		done++
		if string(r.ID) == `"s"` {
			require.NoError(t, json.Unmarshal(r.Result, &res))
			assert.True(t, res.Cancelled)
			assert.Less(t, res.Runs, 1000000)
		}
	}
}

// TestSessionSearchWorkers: a search over the socket runs on the workers
// it asks for (internal/parallel, as the server's search jobs), with the
// same answer as on one; a negative or too large count is refused on its
// request id, naming workers, and the socket goes on.
func TestSessionSearchWorkers(t *testing.T) {
	var mu sync.Mutex
	seen := map[int]int{}
	inner := sessionStep
	sessionStep = func(x *check.Explorer, n, workers int) check.Progress {
		mu.Lock()
		seen[workers]++
		mu.Unlock()
		return inner(x, n, workers)
	}
	t.Cleanup(func() { sessionStep = inner })
	ts := newTestServer(t)
	sc := dialSession(t, ts)
	req := func(w int) string {
		return `{"scenario":"dining-philosophers","preset":"lock-level","strategy":"bfs","budget":{"states":20000},"workers":` + strconv.Itoa(w) + `}`
	}
	var results []session.SearchResult
	for _, w := range []int{1, 2} {
		r := sc.call("search", req(w))
		require.Nil(t, r.Error, "workers %d", w)
		var res session.SearchResult
		require.NoError(t, json.Unmarshal(r.Result, &res))
		require.True(t, res.Found, "workers %d: bfs finds the deadlock", w)
		results = append(results, res)
		mu.Lock()
		assert.Positive(t, seen[w], "workers %d: no slice ran on %d workers", w, w)
		mu.Unlock()
	}
	assert.Equal(t, results[0].States, results[1].States, "states on 1 and 2 workers")
	assert.Equal(t, results[0].Length, results[1].Length, "counterexample length on 1 and 2 workers")
	for _, c := range []struct {
		workers int
		want    string
	}{{-1, "is -1, outside [0, 1024]"}, {check.MaxWorkers + 1, "outside [0, 1024] (0: one per CPU)"}} {
		r := sc.call("search", req(c.workers))
		require.NotNil(t, r.Error, "workers %d", c.workers)
		assert.Equal(t, "workers", r.Error.Field, "workers %d", c.workers)
		assert.Contains(t, r.Error.Message, c.want, "workers %d", c.workers)
	}
	require.Nil(t, sc.call("scenarios", `{}`).Error, "the socket works on")
}
