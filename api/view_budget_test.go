package api

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"runtime"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/racetrack-sim/racetrack/core/scenario"
	"github.com/racetrack-sim/racetrack/core/session"
)

// longPhilo is a run whose charts and slices are large enough to measure:
// 8,178 steps, 1,200 series samples.
const longPhilo = `{"scenario":"dining-philosophers","seed":1,"params":{"philosophers":12,"meals":100}}`

// holdAllBut reserves all of the budget but free bytes, until the test
// releases it. It first waits for the requests answered before to give
// back their own reservations (views and exports, session requests):
// they do so just after the answer is sent, and one given back under the
// hold would free memory the hold meant to take. None of these tests
// holds a view, an export or a stream at rest.
func holdAllBut(t *testing.T, ts *testServer, free int64) *grant {
	t.Helper()
	settled(t, ts)
	hold, err := ts.mem.reserve(kindRun, ts.mem.free()-free, memoryHint{what: "the test"})
	require.NoError(t, err)
	return hold
}

// settled waits until the requests answered before have given back their
// own reservations (views and exports, session requests: just after the
// answer is sent, which the client may read first), so that what stays
// reserved is what is held at rest.
func settled(t *testing.T, ts *testServer) {
	t.Helper()
	require.Eventually(t, func() bool {
		return reservedFor(t, ts, kindStream) == 0 && reservedFor(t, ts, kindExport) == 0
	}, 10*time.Second, time.Millisecond, "an answered request's reservation was not given back")
}

// reservedFor reads the budget's gauge of what kind holds.
func reservedFor(t *testing.T, ts *testServer, kind string) float64 {
	var m dto.Metric
	require.NoError(t, ts.mem.reserved.WithLabelValues(kind).Write(&m))
	return m.GetGauge().GetValue()
}

// viewNeeds is what the views of a run's last step reserve.
type viewNeeds struct {
	last                  int
	charts, slice, replay int64
}

// viewNeedsOf computes the reservations of run id's views from the run
// (its samples, its length, its world), checking that they are large
// enough to tell apart.
func viewNeedsOf(t *testing.T, ts *testServer, id string) viewNeeds {
	t.Helper()
	rec, err := ts.lookupRun(id)
	require.NoError(t, err)
	defer rec.drop()
	last := rec.tl.Len() - 1
	require.Greater(t, rec.tl.SeriesPoints(), 1000)
	require.Positive(t, rec.tl.WorldBytesAt(last))
	return viewNeeds{last: last,
		charts: chartBaseBytes + int64(rec.tl.SeriesPoints())*chartPointBytes,
		slice:  viewBaseBytes + int64(last+1)*sliceStepBytes,
		replay: viewBaseBytes + replayWorlds*rec.tl.WorldBytesAt(last)}
}

// The charts, the slice, a page of steps and the replays of state and
// alternatives reserve, before they are computed, what they grow to with
// the run or the request (its series samples, the step's causal past, the
// page's rows, the world at the step): one byte short of it
// they are a retryable 503 naming what they need, and a 200 once it is
// free.
func TestViewsReserveWhatTheyGrowTo(t *testing.T) {
	ts := newTestServer(t)
	run := ts.createRun(t, longPhilo)
	need := viewNeedsOf(t, ts, run.ID)
	last := need.last
	for _, c := range []struct {
		path string
		need int64
	}{
		{"/charts?width=1200", need.charts},
		{fmt.Sprintf("/slice?step=%d", last), need.slice},
		{"/steps?from=0&limit=1000", viewBaseBytes + 1000*stepsRowBytes},
		{fmt.Sprintf("/steps?from=%d&limit=1000", last), viewBaseBytes + 1*stepsRowBytes},
		{fmt.Sprintf("/state?step=%d", last), need.replay},
		{fmt.Sprintf("/alternatives?step=%d", last), need.replay},
	} {
		t.Run(c.path, func(t *testing.T) {
			hold := holdAllBut(t, ts, c.need-1)
			defer hold.release()
			res := ts.get(t, "/api/v1/runs/"+run.ID+c.path)
			require.Equal(t, http.StatusServiceUnavailable, res.Status, "%s", res.Body)
			assert.NotEmpty(t, res.Header.Get("Retry-After"))
			assert.Equal(t, c.need, res.problem(t).NeedBytes)
			hold.release()
			res = ts.get(t, "/api/v1/runs/"+run.ID+c.path)
			assert.Equal(t, http.StatusOK, res.Status, "%s", res.Body)
		})
	}
	// An early step's slice asks for less than the last one's.
	hold := holdAllBut(t, ts, viewBaseBytes)
	defer hold.release()
	res := ts.get(t, "/api/v1/runs/"+run.ID+"/slice?step=10")
	require.Equal(t, http.StatusServiceUnavailable, res.Status, "%s", res.Body)
	assert.Equal(t, int64(viewBaseBytes+11*sliceStepBytes), res.problem(t).NeedBytes)
}

// Charts that can never fit the server's budget are a 422 with what they
// need, and no Retry-After: waiting does not help.
func TestChartsThatNeverFitAre422(t *testing.T) {
	ts := newTestServer(t)
	run := ts.createRun(t, longPhilo)
	rec, err := ts.lookupRun(run.ID)
	require.NoError(t, err)
	defer rec.drop()
	small := newMemBudget(chartBaseBytes, prometheus.NewRegistry())
	_, err = reserveCharts(small, rec.tl, "id")
	var p *Problem
	require.ErrorAs(t, err, &p)
	assert.Equal(t, http.StatusUnprocessableEntity, p.Status)
	assert.Equal(t, "id", p.Field)
	assert.Equal(t, chartBaseBytes+int64(rec.tl.SeriesPoints())*chartPointBytes, p.NeedBytes)
	assert.Contains(t, p.Detail, "can never run here; open a shorter run")
	assert.Zero(t, p.retryAfter, "waiting does not help")
	assert.Zero(t, small.inUse())
}

// The session's views reserve what REST reserves for them: with
// the budget taken they are a retryable busy, then an answer.
func TestSessionViewsAreBudgeted(t *testing.T) {
	ts := newTestServer(t)
	sc := dialSession(t, ts)
	var sum scenario.Summary
	sc.result("open", `{"spec":`+longPhilo+`}`, &sum)
	need := viewNeedsOf(t, ts, sum.ID)
	last := need.last
	for _, c := range []struct {
		method, args string
		need         int64
	}{
		{"charts", fmt.Sprintf(`{"run":%q,"width":1200}`, sum.ID), need.charts},
		{"slice", fmt.Sprintf(`{"run":%q,"step":%d}`, sum.ID, last), need.slice},
		{"steps", fmt.Sprintf(`{"run":%q,"from":0,"limit":10000}`, sum.ID), viewBaseBytes + int64(sum.Steps)*stepsRowBytes},
		{"layout", fmt.Sprintf(`{"run":%q,"from":0}`, sum.ID), viewBaseBytes + int64(min(sum.Steps, session.MaxLayoutSteps))*viewStepBytes},
		{"state", fmt.Sprintf(`{"run":%q,"step":%d}`, sum.ID, last), need.replay},
		{"alternatives", fmt.Sprintf(`{"run":%q,"step":%d}`, sum.ID, last), need.replay},
	} {
		t.Run(c.method, func(t *testing.T) {
			hold := holdAllBut(t, ts, c.need-1)
			defer hold.release()
			r := sc.call(c.method, c.args)
			require.NotNil(t, r.Error, "%s was computed without its reservation", c.method)
			assert.Equal(t, session.CodeBusy, r.Error.Code)
			hold.release()
			r = sc.call(c.method, c.args)
			assert.Nil(t, r.Error)
		})
	}
	// A bad step is still the session's own precise error, not a refusal
	// for memory.
	r := sc.call("slice", fmt.Sprintf(`{"run":%q,"step":%d}`, sum.ID, 1<<40))
	require.NotNil(t, r.Error)
	assert.Equal(t, "step", r.Error.Field)
	assert.NotEqual(t, session.CodeBusy, r.Error.Code)
}

// The reservations cover what the views allocate (answer encoded
// included), measured on a long run; the figures in view_budget.go come
// from here. Allocations are measured without the race detector only.
func TestViewReservationsCoverTheirAllocations(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector changes what is allocated")
	}
	ts := newTestServer(t)
	run := ts.createRun(t, longPhilo)
	rec, err := ts.lookupRun(run.ID)
	require.NoError(t, err)
	defer rec.drop()
	last := rec.tl.Len() - 1
	allocated := func(f func() (any, error)) int64 {
		const times = 20
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		for range times {
			v, err := f()
			require.NoError(t, err)
			_, err = json.Marshal(v)
			require.NoError(t, err)
		}
		runtime.ReadMemStats(&after)
		return int64(after.TotalAlloc-before.TotalAlloc) / times
	}
	charts := allocated(func() (any, error) { return session.Charts(rec.tl, 4000) })
	slice := allocated(func() (any, error) { return session.CausalSlice(rec.tl, last) })
	steps := allocated(func() (any, error) { return session.Steps(rec.tl, 0, 1000) })
	state := allocated(func() (any, error) { return session.StateAt(rec.tl, last) })
	assert.Less(t, state, viewBaseBytes+replayWorlds*rec.tl.WorldBytesAt(last), "state")
	assert.Less(t, steps, int64(viewBaseBytes+1000*stepsRowBytes), "steps")
	assert.Less(t, charts, chartBaseBytes+int64(rec.tl.SeriesPoints())*chartPointBytes, "charts")
	assert.Less(t, slice, viewBaseBytes+int64(last+1)*sliceStepBytes, "slice")
	t.Logf("charts %d B for %d samples; slice %d B at step %d; 1,000 steps %d B; state %d B (a world %d B)", charts, rec.tl.SeriesPoints(), slice, last, steps, state, rec.tl.WorldBytesAt(last))

	// A comparison is the first divergence and one verdict a property:
	// runs 80 times longer allocate about as much.
	short := [2]scenario.Summary{ts.createRun(t, philoSpec), ts.createRun(t, `{"scenario":"dining-philosophers","seed":4}`)}
	long := [2]scenario.Summary{run, ts.createRun(t, `{"scenario":"dining-philosophers","seed":2,"params":{"philosophers":12,"meals":100}}`)}
	compare := func(pair [2]scenario.Summary) int64 {
		var recs [2]*recording
		for i := range pair {
			r, err := ts.lookupRun(pair[i].ID)
			require.NoError(t, err)
			defer r.drop()
			recs[i] = r
		}
		return allocated(func() (any, error) { return session.CompareRuns(recs[0].tl, recs[1].tl) })
	}
	require.Greater(t, long[0].Steps, 30*short[0].Steps)
	small, big := compare(short), compare(long)
	assert.Less(t, big, 2*small+4096, "compare: %d B on short runs, %d B on long ones", small, big)
	t.Logf("compare %d B (%d steps), %d B (%d steps)", small, short[0].Steps, big, long[0].Steps)
}

// A view of a run the socket no longer holds and the cache evicted is
// reserved all the same: admission records the run again through the
// session (within the run's own reservation) and reserves the view by it,
// rather than charging a stream's share.
func TestViewOfAnEvictedRunIsReserved(t *testing.T) {
	ts := newTestServer(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	runs := &serverRuns{s: ts.Server, ctx: ctx}
	defer runs.dropAll()
	sc := &sessionConn{s: ts.Server, ctx: ctx, runs: runs,
		sess: session.New(session.Config{Registry: ts.reg, Runs: runs, Limits: ts.sessionLimits()})}
	open := func(spec string) scenario.Summary {
		v, err := sc.sess.Call("1", "open", json.RawMessage(`{"spec":`+spec+`}`))
		require.NoError(t, err)
		return v.(scenario.Summary)
	}
	long := open(longPhilo)
	need := viewNeedsOf(t, ts, long.ID)
	for seed := 1; seed <= heldRuns; seed++ {
		open(fmt.Sprintf(`{"scenario":"dining-philosophers","seed":%d}`, seed))
	}
	ts.timelines.evict(1 << 40)
	_, held := runs.recording(long.ID)
	require.False(t, held, "the long run is neither held nor cached")

	g, ok, err := sc.admitView("charts", []byte(fmt.Sprintf(`{"run":%q,"width":1200}`, long.ID)))
	require.NoError(t, err)
	require.True(t, ok, "admission reserved nothing for the charts")
	defer g.release()
	assert.Equal(t, need.charts, g.n)
}

// A comparison holds nothing that grows beyond its two runs, and those
// are reserved: with the cache evicted and the budget taken, comparing
// two long runs is a retryable 503 for the run it must record again, not
// an allocation; with memory back it answers.
func TestCompareReservesItsRuns(t *testing.T) {
	ts := newTestServer(t)
	a := ts.createRun(t, longPhilo)
	b := ts.createRun(t, `{"scenario":"dining-philosophers","seed":2,"params":{"philosophers":12,"meals":100}}`)
	ts.timelines.evict(1 << 40)
	require.Zero(t, ts.mem.inUse())
	hold := holdAllBut(t, ts, viewBaseBytes)
	path := "/api/v1/compare?a=" + a.ID + "&b=" + b.ID
	res := ts.get(t, path)
	require.Equal(t, http.StatusServiceUnavailable, res.Status, "%s", res.Body)
	assert.NotEmpty(t, res.Header.Get("Retry-After"))
	assert.Greater(t, res.problem(t).NeedBytes, int64(viewBaseBytes))
	hold.release()
	assert.Equal(t, http.StatusOK, ts.get(t, path).Status)
}
