package api

import (
	"encoding/json"
	"fmt"
	"net/http"
	"runtime"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/racetrack-sim/racetrack/core/scenario"
	"github.com/racetrack-sim/racetrack/core/session"
)

// longPhilo is a run whose charts and slices are large enough to measure:
// 8,178 steps, 1,200 series samples.
const longPhilo = `{"scenario":"dining-philosophers","seed":1,"params":{"philosophers":12,"meals":100}}`

// holdAllBut reserves all of the budget but free bytes, until the test
// releases it.
func holdAllBut(t *testing.T, ts *testServer, free int64) *grant {
	t.Helper()
	hold, err := ts.mem.reserve(kindRun, ts.mem.free()-free, memoryHint{what: "the test"})
	require.NoError(t, err)
	return hold
}

// The charts, the slice and a page of steps reserve, before they are
// computed, what they grow to with the run or the request (its series
// samples, the step's causal past, the page's rows): one byte short of it
// they are a retryable 503 naming what they need, and a 200 once it is
// free.
func TestViewsReserveWhatTheyGrowTo(t *testing.T) {
	ts := newTestServer(t)
	run := ts.createRun(t, longPhilo)
	rec, err := ts.lookupRun(run.ID)
	require.NoError(t, err)
	points := rec.tl.SeriesPoints()
	last := run.Steps - 1
	world := rec.tl.WorldBytesAt(last)
	rec.drop()
	require.Greater(t, points, 1000)
	require.Positive(t, world)
	for _, c := range []struct {
		path string
		need int64
	}{
		{"/charts?width=1200", chartBaseBytes + int64(points)*chartPointBytes},
		{fmt.Sprintf("/slice?step=%d", last), viewBaseBytes + int64(last+1)*sliceStepBytes},
		{"/steps?from=0&limit=1000", viewBaseBytes + 1000*stepsRowBytes},
		{fmt.Sprintf("/steps?from=%d&limit=1000", last), viewBaseBytes + 1*stepsRowBytes},
		{fmt.Sprintf("/state?step=%d", last), viewBaseBytes + replayWorlds*world},
		{fmt.Sprintf("/alternatives?step=%d", last), viewBaseBytes + replayWorlds*world},
	} {
		t.Run(c.path, func(t *testing.T) {
			hold := holdAllBut(t, ts, c.need-1)
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

// The session's charts, slice and steps reserve what REST reserves: with
// the budget taken they are a retryable busy, then an answer.
func TestSessionViewsAreBudgeted(t *testing.T) {
	ts := newTestServer(t)
	sc := dialSession(t, ts)
	var sum scenario.Summary
	sc.result("open", `{"spec":`+longPhilo+`}`, &sum)
	rec, err := ts.lookupRun(sum.ID)
	require.NoError(t, err)
	points := rec.tl.SeriesPoints()
	last := sum.Steps - 1
	world := rec.tl.WorldBytesAt(last)
	rec.drop()
	for _, c := range []struct {
		method, args string
		need         int64
	}{
		{"charts", fmt.Sprintf(`{"run":%q,"width":1200}`, sum.ID), chartBaseBytes + int64(points)*chartPointBytes},
		{"slice", fmt.Sprintf(`{"run":%q,"step":%d}`, sum.ID, last), viewBaseBytes + int64(last+1)*sliceStepBytes},
		{"steps", fmt.Sprintf(`{"run":%q,"from":0,"limit":10000}`, sum.ID), viewBaseBytes + int64(sum.Steps)*stepsRowBytes},
		{"state", fmt.Sprintf(`{"run":%q,"step":%d}`, sum.ID, last), viewBaseBytes + replayWorlds*world},
		{"alternatives", fmt.Sprintf(`{"run":%q,"step":%d}`, sum.ID, last), viewBaseBytes + replayWorlds*world},
	} {
		t.Run(c.method, func(t *testing.T) {
			hold := holdAllBut(t, ts, c.need-1)
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
