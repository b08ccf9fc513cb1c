package api

import (
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/racetrack-sim/racetrack/core/check"
	"github.com/racetrack-sim/racetrack/core/scenario"
	"github.com/racetrack-sim/racetrack/core/session"
)

func (ts *testServer) startSearch(t *testing.T, body string) string {
	t.Helper()
	res := ts.post(t, "/api/v1/searches", body)
	require.Equal(t, http.StatusAccepted, res.Status, "%s", res.Body)
	var created struct{ ID string }
	res.json(t, &created)
	require.Regexp(t, `^s[0-9a-f]{16}$`, created.ID)
	return created.ID
}

// TestSearchFindsTheDeadlockAndKeepsIt: bfs finds the philosophers'
// deadlock; the counterexample's run id resolves to a run that violates
// the property at the reported step.
func TestSearchFindsTheDeadlockAndKeepsIt(t *testing.T) {
	ts := newTestServer(t)
	id := ts.startSearch(t, `{"scenario":"dining-philosophers","preset":"lock-level","strategy":"bfs","property":"no-deadlock","params":{"philosophers":3}}`)
	st := waitSearch(t, ts, id)
	require.Equal(t, StateDone, st.State, "%+v", st)
	require.NotNil(t, st.Result)
	r := st.Result
	assert.True(t, r.Found)
	assert.Equal(t, "no-deadlock", r.Property)
	assert.Equal(t, len(r.Schedule), r.Length)
	assert.Positive(t, r.States)
	assert.Positive(t, st.Progress.States)
	assert.GreaterOrEqual(t, r.ElapsedMs, 0.0)
	// The answer is the core's: verdict, stop reason, reductions, and
	// the names REST clients read before (message, schedule, seed).
	assert.Equal(t, check.VerdictViolation, r.Verdict)
	assert.Equal(t, check.StopFound, r.Stop.Reason)
	assert.True(t, r.Reductions.Sleep)
	assert.Equal(t, r.Violation, r.Message)
	assert.NotEmpty(t, r.Message)
	assert.Equal(t, r.Counterexample.Schedule, r.Schedule)
	assert.Equal(t, r.Counterexample.Seed, r.Seed)

	res := ts.get(t, "/api/v1/runs/"+r.RunID)
	require.Equal(t, http.StatusOK, res.Status, "%s", res.Body)
	var run scenario.Summary
	res.json(t, &run)
	assert.Equal(t, r.Schedule, append([]int{}, run.Spec.Schedule...))
	var violated bool
	for _, v := range run.Violations {
		if v.Property == "no-deadlock" {
			violated = true
			assert.Equal(t, r.Step, v.Step)
		}
	}
	assert.True(t, violated, "the counterexample replays to the violation")

	// The record in the store is the one served.
	stored, err := ts.store.Search(id)
	require.NoError(t, err)
	assert.Equal(t, st.Result, stored.Result)
}

func TestSearchOfTheFixedTableIsExhaustive(t *testing.T) {
	ts := newTestServer(t)
	id := ts.startSearch(t, `{"scenario":"dining-philosophers","preset":"lock-level","variant":"fixed","strategy":"dfs","property":"no-deadlock","params":{"philosophers":3}}`)
	st := waitSearch(t, ts, id)
	require.Equal(t, StateDone, st.State, "%+v", st)
	assert.False(t, st.Result.Found)
	assert.True(t, st.Result.Exhaustive, "dfs covers every interleaving of the fixed table")
	assert.Empty(t, st.Result.RunID)
	assert.Equal(t, check.VerdictVerified, st.Result.Verdict)
	assert.Equal(t, check.StopCovered, st.Result.Stop.Reason)
}

// A search that ran out of states says so, with the limit and the field
// to raise, in its stored record too.
func TestSearchNamesTheLimitItStoppedAt(t *testing.T) {
	ts := newTestServer(t)
	id := ts.startSearch(t, `{"scenario":"dining-philosophers","preset":"lock-level","variant":"fixed","strategy":"bfs","params":{"philosophers":5},"budget":{"states":300}}`)
	st := waitSearch(t, ts, id)
	require.Equal(t, StateDone, st.State, "%+v", st)
	assert.Equal(t, check.VerdictNone, st.Result.Verdict)
	assert.Equal(t, check.Stop{Reason: check.StopStates, Limit: 300, Raise: "budget.states", Message: "stopped at 300 states: raise budget.states"}, st.Result.Stop)
	assert.Equal(t, 300, st.Progress.Budget)
	stored, err := ts.store.Search(id)
	require.NoError(t, err)
	assert.Equal(t, st.Result.Stop, stored.Result.Stop)
}

func TestSearchSecondsBudget(t *testing.T) {
	ts := newTestServer(t)
	id := ts.startSearch(t, `{"scenario":"dining-philosophers","variant":"fixed","strategy":"random","property":"no-deadlock","budget":{"runs":1000000,"seconds":0.3}}`)
	st := waitSearch(t, ts, id)
	require.Equal(t, StateDone, st.State, "%+v", st)
	assert.False(t, st.Result.Found)
	assert.GreaterOrEqual(t, st.Result.ElapsedMs, 300.0, "the time budget is measured by the server's clock")
	assert.Less(t, st.Progress.Runs, 1000000)
	assert.True(t, st.Result.TimedOut)
	assert.Equal(t, check.StopSeconds, st.Result.Stop.Reason)
	assert.Equal(t, "budget.seconds", st.Result.Stop.Raise)
	t.Logf("%d runs in %.0f ms", st.Progress.Runs, st.Result.ElapsedMs)
}

// TestSearchQueueLimitAndCancel fills the one worker and the one queue
// slot, gets a 429 with Retry-After, then cancels both jobs.
func TestSearchQueueLimitAndCancel(t *testing.T) {
	ts := newTestServer(t, func(c *Config) { c.SearchWorkers, c.SearchQueue = 1, 1 })
	long := `{"scenario":"dining-philosophers","variant":"fixed","strategy":"random","budget":{"runs":1000000,"seconds":60}}`
	running := ts.startSearch(t, long)
	require.Eventually(t, func() bool {
		st, _, err := ts.searchStatus(running)
		return err == nil && st.State == StateRunning
	}, 10*time.Second, 5*time.Millisecond)
	queued := ts.startSearch(t, long)
	res := ts.post(t, "/api/v1/searches", long)
	require.Equal(t, http.StatusTooManyRequests, res.Status, "%s", res.Body)
	assert.Equal(t, "5", res.Header.Get("Retry-After"))
	res.problem(t)

	for _, id := range []string{queued, running} {
		res = ts.do(t, http.MethodDelete, "/api/v1/searches/"+id, nil)
		require.Equal(t, http.StatusOK, res.Status, "%s", res.Body)
		var st SearchStatus
		res.json(t, &st)
		assert.Equal(t, StateCancelled, st.State, id)
		stored, err := ts.store.Search(id)
		require.NoError(t, err)
		assert.Equal(t, StateCancelled, stored.State, "the cancel is stored")
	}
	// Cancelling a finished search changes nothing.
	res = ts.do(t, http.MethodDelete, "/api/v1/searches/"+running, nil)
	require.Equal(t, http.StatusOK, res.Status)
	assert.Contains(t, string(res.Body), `"state":"cancelled"`)
	assert.Equal(t, 1.0, metric(t, ts, `racetrack_searches_total{state="rejected"}`))
	assert.Equal(t, 2.0, metric(t, ts, `racetrack_searches_total{state="cancelled"}`))
}

// TestUnfinishedSearchResumesAfterRestart stops a server while a search
// is queued; the next server on the same store runs it to the end.
func TestUnfinishedSearchResumesAfterRestart(t *testing.T) {
	path := t.TempDir() + "/resume.db"
	ts := startTestServer(t, path, func(c *Config) { c.SearchWorkers, c.SearchQueue = 1, 4 })
	blocker := ts.startSearch(t, `{"scenario":"dining-philosophers","variant":"fixed","strategy":"random","budget":{"runs":1000000,"seconds":60}}`)
	waiting := ts.startSearch(t, `{"scenario":"dining-philosophers","preset":"lock-level","strategy":"bfs","params":{"philosophers":3}}`)
	ts.stop()

	ts2 := startTestServer(t, path)
	st := waitSearch(t, ts2, waiting)
	assert.Equal(t, StateDone, st.State)
	assert.True(t, st.Result.Found)
	res := ts2.do(t, http.MethodDelete, "/api/v1/searches/"+blocker, nil)
	require.Equal(t, http.StatusOK, res.Status)
	assert.Regexp(t, `"state":"(cancelled|done)"`, string(res.Body))
}

func TestSearchReductionsDefaultToTheStrategys(t *testing.T) {
	ts := newTestServer(t)
	plan, err := ts.Server.planSearch(session.SearchRequest{Scenario: "dining-philosophers", Preset: "lock-level", Variant: "fixed", Strategy: "dfs"})
	require.NoError(t, err)
	require.Equal(t, check.DefaultReductions("dfs"), plan.explorer().Config().Reductions)
	off := check.Reductions{}
	plan, err = ts.Server.planSearch(session.SearchRequest{Scenario: "dining-philosophers", Preset: "lock-level", Variant: "fixed", Strategy: "dfs", Reductions: &off})
	require.NoError(t, err)
	require.Equal(t, off, plan.explorer().Config().Reductions)
}

// A timed preset under bfs: with valueSamples the search finds the
// deadlock and says the values were sampled; a horizon bounds a fixed
// variant's search, which ends neither exhaustive nor found; without
// valueSamples the search fails naming it.
func TestTimedPresetSearch(t *testing.T) {
	ts := newTestServer(t)
	id := ts.startSearch(t, `{"scenario":"dining-philosophers","preset":"table","variant":"buggy","strategy":"bfs","valueSamples":3}`)
	st := waitSearch(t, ts, id)
	require.Equal(t, StateDone, st.State, "%+v", st)
	assert.True(t, st.Result.Found)
	assert.True(t, st.Result.Sampled)
	assert.Equal(t, 3, st.Request.ValueSamples)

	id = ts.startSearch(t, `{"scenario":"dining-philosophers","preset":"table","variant":"fixed","strategy":"bfs","valueSamples":2,"budget":{"horizonMs":8,"states":100000}}`)
	st = waitSearch(t, ts, id)
	require.Equal(t, StateDone, st.State, "%+v", st)
	assert.False(t, st.Result.Found)
	assert.False(t, st.Result.Exhaustive)
	assert.True(t, st.Result.Sampled)
	assert.Equal(t, int64(8), st.Request.Budget.HorizonMs)

	id = ts.startSearch(t, `{"scenario":"dining-philosophers","preset":"table","strategy":"bfs"}`)
	st = waitSearch(t, ts, id)
	require.Equal(t, StateFailed, st.State, "%+v", st)
	assert.Contains(t, st.Error, "valueSamples")

	res := ts.post(t, "/api/v1/searches", `{"scenario":"dining-philosophers","preset":"table","strategy":"bfs","valueSamples":1}`)
	require.Equal(t, http.StatusUnprocessableEntity, res.Status, "%s", res.Body)
	assert.Contains(t, string(res.Body), "valueSamples")
}
