package api

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestRunThatCanNeverFitIs422WithItsNeeds(t *testing.T) {
	ts := newTestServer(t, func(c *Config) { c.MemoryBudget = 8 << 20 })
	res := ts.post(t, "/api/v1/runs", `{"scenario":"dining-philosophers","maxSteps":1000000,"params":{"philosophers":12}}`)
	require.Equal(t, http.StatusUnprocessableEntity, res.Status, "%s", res.Body)
	p := res.problem(t)
	assert.Equal(t, "maxSteps", p.Field)
	assert.Greater(t, p.NeedBytes, int64(8<<20))
	require.NotNil(t, p.FreeBytes)
	assert.Contains(t, p.Detail, "can never run here")
	assert.Empty(t, res.Header.Get("Retry-After"), "waiting does not help")
	assert.Zero(t, ts.mem.inUse())
}

func TestRunThatMustWaitIs503WithRetryAfter(t *testing.T) {
	ts := newTestServer(t, func(c *Config) { c.MemoryBudget = 64 << 20 })
	hog, err := ts.mem.reserve(kindSearch, 60<<20, memoryHint{})
	require.NoError(t, err)
	res := ts.post(t, "/api/v1/runs", philoSpec)
	require.Equal(t, http.StatusServiceUnavailable, res.Status, "%s", res.Body)
	p := res.problem(t)
	assert.Equal(t, "/problems/memory-busy", p.Type)
	assert.NotEmpty(t, res.Header.Get("Retry-After"))
	assert.Positive(t, p.NeedBytes)
	assert.Equal(t, int64(4<<20), *p.FreeBytes)
	hog.release()
	ts.createRun(t, philoSpec)
	assert.Equal(t, 1.0, metric(t, ts, `racetrack_memory_refused_total{kind="run",reason="busy"}`))
	assert.Equal(t, float64(64<<20), metric(t, ts, `racetrack_memory_budget_bytes`))
}

// TestCachedRunsHoldMemoryUntilEvictedAndUnused: a cached run keeps its
// memory reserved; the cache gives it back when new work needs it, but a
// run still in use (a session socket) stays counted until its last user
// goes.
func TestCachedRunsHoldMemoryUntilEvictedAndUnused(t *testing.T) {
	ts := newTestServer(t)
	run := ts.createRun(t, philoSpec)
	rec, ok := ts.timelines.peek(run.ID)
	require.True(t, ok)
	rec.drop()
	assert.Equal(t, rec.size, ts.mem.inUse(), "the cache holds the run's memory, resized to what it records")
	assert.Less(t, rec.size, int64(2<<20))

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c := dial(t, ctx, wsURL(ts, "/api/v1/session"), nil)
	sc := &sessionClient{t: t, ctx: ctx, c: c}
	require.Nil(t, sc.call("open", `{"spec":`+philoSpec+`}`).Error)
	settled(t, ts)
	assert.Equal(t, rec.size, ts.mem.inUse(), "the idle socket holds no stream share, only the run it opened")
	ts.timelines.evict(1 << 40)
	assert.Zero(t, ts.timelines.len())
	assert.Equal(t, rec.size, ts.mem.inUse(), "an evicted run a session socket holds stays counted")
	c.Close(websocket.StatusNormalClosure, "")
	require.Eventually(t, func() bool { return ts.mem.inUse() == 0 }, 5*time.Second, 10*time.Millisecond)
}

func TestCacheGivesMemoryBackToNewWork(t *testing.T) {
	ts := newTestServer(t, func(c *Config) { c.MemoryBudget = 48 << 20 })
	for seed := 1; seed <= 30; seed++ {
		ts.createRun(t, `{"scenario":"dining-philosophers","maxSteps":20000,"seed":`+itoa(seed)+`}`)
	}
	// Each run reserves its worst case (~20 MiB) while it runs, more than
	// what the cached runs leave free: the cache must make room.
	assert.LessOrEqual(t, ts.mem.inUse(), int64(48<<20))
	assert.Positive(t, ts.timelines.len())
}

func TestSearchesReserveMemoryBeforeTheyAreAccepted(t *testing.T) {
	ts := newTestServer(t, func(c *Config) { c.MemoryBudget = 256 << 20 })
	res := ts.post(t, "/api/v1/searches", `{"scenario":"dining-philosophers","preset":"lock-level","strategy":"bfs","budget":{"states":5000000}}`)
	require.Equal(t, http.StatusUnprocessableEntity, res.Status, "%s", res.Body)
	p := res.problem(t)
	assert.Equal(t, "budget.states", p.Field)
	assert.Contains(t, p.Detail, "can never run here")
	recs, err := ts.store.Searches()
	require.NoError(t, err)
	assert.Empty(t, recs)

	// No states budget: the default is lowered to what fits.
	id := ts.startSearch(t, `{"scenario":"dining-philosophers","preset":"lock-level","variant":"fixed","strategy":"bfs","params":{"philosophers":12},"budget":{"seconds":60}}`)
	rec, err := ts.store.Search(id)
	require.NoError(t, err)
	assert.Positive(t, rec.Request.Budget.States)
	assert.Less(t, rec.Request.Budget.States, 2_000_000)
	assert.Positive(t, ts.mem.inUse())
	ts.do(t, http.MethodDelete, "/api/v1/searches/"+id, nil)
	require.Eventually(t, func() bool { return ts.mem.inUse() == 0 }, 5*time.Second, 10*time.Millisecond,
		"a finished search gives its memory back")
}

// TestFingerprintSearchesReserveWhatTheyHold: a bfs or dfs with
// fingerprints reserves tens of bytes per state and the worlds it keeps
// (a bfs worker's path, a dfs's stack of unexpanded siblings, bounded by
// the depth), not a world per state: a 2 M states budget (the default)
// is admitted by a server with 1 GiB, where a world per state asked for
// several GiB. Ten times that budget does not fit, and is refused.
func TestFingerprintSearchesReserveWhatTheyHold(t *testing.T) {
	ts := newTestServer(t, func(c *Config) { c.MemoryBudget = 1 << 30 })
	for _, search := range []string{`"strategy":"bfs"`, `"strategy":"dfs","budget":{"states":2000000,"depth":500}`} {
		id := ts.startSearch(t, `{"scenario":"dining-philosophers","preset":"lock-level","variant":"fixed","workers":1,"params":{"philosophers":12},`+search+`}`)
		reserved := ts.mem.inUse()
		assert.Less(t, reserved, int64(1<<30), search)
		assert.Greater(t, reserved, int64(2_000_000*32), "%s: at least a visited slot per state", search)
		ts.do(t, http.MethodDelete, "/api/v1/searches/"+id, nil)
		require.Eventually(t, func() bool { return ts.mem.inUse() == 0 }, 10*time.Second, 10*time.Millisecond)
	}
	res := ts.post(t, "/api/v1/searches", `{"scenario":"dining-philosophers","preset":"lock-level","variant":"fixed","strategy":"bfs","workers":1,"params":{"philosophers":12},"budget":{"states":20000000}}`)
	require.Equal(t, http.StatusUnprocessableEntity, res.Status, "%s", res.Body)
	p := res.problem(t)
	assert.Equal(t, "budget.states", p.Field)
	assert.Contains(t, p.Detail, "can never run here")
}

// TestSearchPastTheHeapLimitFailsForMemory: when the heap passes the
// limit (here: always), the running search is stopped as failed with
// the reason, and a failed search is final (never resumed).
func TestSearchPastTheHeapLimitFailsForMemory(t *testing.T) {
	ts := newTestServer(t, func(c *Config) { c.HeapLimit = 1 })
	id := ts.startSearch(t, `{"scenario":"dining-philosophers","variant":"fixed","strategy":"random","budget":{"runs":1000000,"seconds":60}}`)
	st := waitSearch(t, ts, id)
	assert.Equal(t, StateFailed, st.State)
	assert.Contains(t, st.Error, "stopped for memory")
	assert.True(t, st.final())
}

// TestWatchdogStopsTheLargestWork: past the heap limit the run or search
// holding the largest grant is stopped; a stopped run answers 503 with
// the reason (timeline.Record stops at its next snapshot).
func TestWatchdogStopsTheLargestWork(t *testing.T) {
	ts := newTestServer(t)
	small, err := ts.mem.reserve(kindRun, 1<<20, memoryHint{})
	require.NoError(t, err)
	big, err := ts.mem.reserve(kindRun, 8<<20, memoryHint{})
	require.NoError(t, err)
	a, b := ts.watchRun(small), ts.watchRun(big)
	defer ts.unwatchRun(a)
	defer ts.unwatchRun(b)
	ts.stopLargest(900<<20, 800<<20)
	assert.True(t, a.alive())
	require.False(t, b.alive())
	var p *Problem
	require.ErrorAs(t, b.refusal(), &p)
	assert.Equal(t, http.StatusServiceUnavailable, p.Status)
	assert.Contains(t, p.Detail, "stopped for memory")
	assert.Contains(t, p.Detail, "maxSteps")
	assert.Positive(t, p.retryAfter)
}
