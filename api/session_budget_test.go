package api

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/racetrack-sim/racetrack/core/scenario"
	"github.com/racetrack-sim/racetrack/core/session"
)

// A temporary memory shortage reaches the session as a retryable busy,
// never as a validation error on a field.
func TestSessionShortageIsBusy(t *testing.T) {
	p := newProblem(http.StatusServiceUnavailable, "memory-busy", "Not enough free memory", "maxSteps", "this run needs 3 GiB, 1 GiB is free")
	p.retryAfter = 2
	var se *session.Error
	require.ErrorAs(t, sessionErrorOf(p), &se)
	assert.Equal(t, session.CodeBusy, se.Code)
	assert.Contains(t, se.Message, "retry after 2 s")
}

// A session socket that sends nothing is closed after SessionIdle.
func TestIdleSessionIsClosed(t *testing.T) {
	ts := newTestServer(t, func(c *Config) { c.SessionIdle = 200 * time.Millisecond })
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c := dial(t, ctx, wsURL(ts, "/api/v1/session"), nil)
	defer c.CloseNow()
	start := time.Now()
	_, _, err := c.Read(ctx)
	require.Error(t, err)
	assert.Less(t, time.Since(start), 5*time.Second, "closed for idleness, not by the test's deadline")
	assert.Equal(t, websocket.StatusNormalClosure, websocket.CloseStatus(err), "a normal close frame, not a cut connection or an internal error: %v", err)
	assert.Contains(t, err.Error(), "idle", "the close frame says why")
}

// Idle sockets hold no memory: more of them than the budget has room
// for streams all open, and REST work still fits beside them.
func TestIdleSocketsHoldNoBudget(t *testing.T) {
	ts := newTestServer(t, func(c *Config) { c.MemoryBudget = 64 << 20 })
	sockets := int(ts.cfg.MemoryBudget/streamBytes) + 8
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for i := 0; i < sockets; i++ {
		c := dial(t, ctx, wsURL(ts, "/api/v1/session"), nil)
		defer c.CloseNow()
	}
	assert.Equal(t, ts.cfg.MemoryBudget, ts.mem.free(), "%d idle sockets reserve nothing", sockets)
	res := ts.do(t, http.MethodPost, "/api/v1/runs", []byte(philoSpec))
	assert.Equal(t, http.StatusCreated, res.Status, "%s", res.Body)
}

// A session search goes through the same memory admission as POST
// /searches: one that can never fit is refused naming budget.states,
// before it runs.
func TestSessionSearchIsAdmitted(t *testing.T) {
	ts := newTestServer(t, func(c *Config) { c.MemoryBudget = 64 << 20 })
	sc := dialSession(t, ts)
	r := sc.call("search", `{"scenario":"dining-philosophers","preset":"lock-level","variant":"fixed","strategy":"bfs","budget":{"states":100000000}}`)
	require.NotNil(t, r.Error, "a search far beyond the budget ran: %s", r.Result)
	assert.Equal(t, "budget.states", r.Error.Field)
	assert.Contains(t, r.Error.Message, "memory")
}

// The SVG diagram and the layout reserve their window's memory first:
// with the budget taken, they are a retryable 503, not an allocation.
func TestDiagramIsBudgeted(t *testing.T) {
	ts := newTestServer(t)
	run := ts.createRun(t, philoSpec)
	hold, err := ts.mem.reserve(kindRun, ts.mem.free()-viewBaseBytes, memoryHint{what: "the test"})
	require.NoError(t, err)
	for _, path := range []string{"/diagram.svg?from=0&to=20", "/layout?from=0&to=20"} {
		res := ts.get(t, "/api/v1/runs/"+run.ID+path)
		assert.Equal(t, http.StatusServiceUnavailable, res.Status, "%s: %s", path, res.Body)
		assert.NotEmpty(t, res.Header.Get("Retry-After"), path)
	}
	hold.release()
	res := ts.get(t, "/api/v1/runs/"+run.ID+"/diagram.svg?from=0&to=20")
	assert.Equal(t, http.StatusOK, res.Status)
}

// A recording for a client that left stops at once.
func TestRecordingStopsWhenTheClientLeaves(t *testing.T) {
	ts := newTestServer(t)
	ctx, cancel := context.WithCancelCause(context.Background())
	cancel(errors.New("gone"))
	var spec scenario.RunSpec
	require.NoError(t, json.Unmarshal([]byte(`{"scenario":"dining-philosophers","seed":9,"params":{"philosophers":12,"meals":100}}`), &spec))
	ns, err := ts.reg.Check(spec)
	require.NoError(t, err)
	_, err = ts.executeFor(ctx, ns)
	assert.ErrorIs(t, err, errClientClosed)
}

// A session export reserves its size first: with the budget taken it is
// a retryable busy, then a result once memory is back.
func TestSessionExportIsBudgeted(t *testing.T) {
	ts := newTestServer(t)
	sc := dialSession(t, ts)
	var sum scenario.Summary
	sc.result("open", `{"spec":`+philoSpec+`}`, &sum)
	hold, err := ts.mem.reserve(kindRun, ts.mem.free()-exportBytes, memoryHint{what: "the test"})
	require.NoError(t, err)
	r := sc.call("export", `{"run":"`+sum.ID+`","format":"json"}`)
	require.NotNil(t, r.Error, "the export was built without a reservation")
	assert.Equal(t, session.CodeBusy, r.Error.Code)
	hold.release()
	r = sc.call("export", `{"run":"`+sum.ID+`","format":"json"}`)
	assert.Nil(t, r.Error)
}

// A session search whose unnamed states budget admission lowers runs
// with the lowered budget: the request re-encodes to what it decodes from.
func TestAdmittedSearchRequestRoundTrips(t *testing.T) {
	in := `{"scenario":"dining-philosophers","preset":"lock-level","variant":"fixed","strategy":"bfs","budget":{"states":12345},"seed":7}`
	sr, err := session.DecodeSearchRequest([]byte(in))
	require.NoError(t, err)
	b, err := json.Marshal(sr)
	require.NoError(t, err)
	again, err := session.DecodeSearchRequest(b)
	require.NoError(t, err, "%s", b)
	assert.Equal(t, sr, again)
}

// A run the socket holds is served as held after the cache evicted it
// (as a shortage of memory makes it do), not recorded and counted again.
func TestHeldRunIsNotRecordedTwice(t *testing.T) {
	ts := newTestServer(t)
	sc := dialSession(t, ts)
	var sum scenario.Summary
	sc.result("open", `{"spec":`+philoSpec+`}`, &sum)
	settled(t, ts)
	held := ts.mem.inUse()
	require.Positive(t, held)
	ts.timelines.evict(1 << 40)
	require.Zero(t, ts.timelines.len())
	require.Nil(t, sc.call("steps", `{"run":"`+sum.ID+`","from":0,"limit":5}`).Error)
	require.Nil(t, sc.call("open", `{"spec":`+philoSpec+`}`).Error)
	settled(t, ts)
	assert.Equal(t, held, ts.mem.inUse(), "the held run stays counted once")
	assert.Zero(t, ts.timelines.len(), "and is not recorded again into the cache")
}
