package api

import (
	"encoding/json"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/racetrack-sim/racetrack/core/session"
	"github.com/racetrack-sim/racetrack/internal/cluster"
)

// Without a cluster, "distributed": true is a 422 naming the field.
func TestDistributedSearchNeedsACluster(t *testing.T) {
	ts := newTestServer(t)
	res := ts.post(t, "/api/v1/searches", `{"scenario":"dining-philosophers","preset":"lock-level","strategy":"bfs","distributed":true}`)
	require.Equal(t, http.StatusUnprocessableEntity, res.Status, "%s", res.Body)
	assert.Equal(t, "distributed", res.problem(t).Field)
}

// A distributed search on an embedded cluster reports what the same
// search reports locally.
func TestDistributedSearchGivesTheLocalAnswer(t *testing.T) {
	node, err := cluster.StartNode(testRegistry(), cluster.NodeOptions{Dir: t.TempDir(), Workers: 2})
	require.NoError(t, err)
	defer node.Close()
	ts := newTestServer(t, func(c *Config) { c.Cluster = node })
	for _, body := range []string{
		`{"scenario":"dining-philosophers","preset":"lock-level","strategy":"bfs","params":{"philosophers":3}%s}`,
		`{"scenario":"dining-philosophers","preset":"lock-level","strategy":"random","seed":4,"budget":{"runs":200}%s}`,
	} {
		local := waitSearch(t, ts, ts.startSearch(t, fmt.Sprintf(body, "")))
		dist := waitSearch(t, ts, ts.startSearch(t, fmt.Sprintf(body, `,"distributed":true`)))
		require.Equal(t, StateDone, dist.State, "%+v", dist)
		require.NotNil(t, dist.Result)
		assert.Equal(t, local.Result.Found, dist.Result.Found)
		assert.Equal(t, local.Result.Schedule, dist.Result.Schedule)
		assert.Equal(t, local.Result.RunID, dist.Result.RunID)
		assert.True(t, dist.Result.Found, "the buggy philosophers deadlock")
	}
}

// A search with "distributed": true over the session socket runs as a
// server job on the cluster and answers as a local session search does:
// the same result for the same request, progress on the request's id,
// and a cancel that stops it.
func TestSessionSocketDistributedSearch(t *testing.T) {
	node, err := cluster.StartNode(testRegistry(), cluster.NodeOptions{Dir: t.TempDir(), Workers: 2})
	require.NoError(t, err)
	defer node.Close()
	ts := newTestServer(t, func(c *Config) { c.Cluster = node })
	assert.Contains(t, string(ts.get(t, "/healthz").Body), `"distributed":true`, "the page learns it may offer distributed searches")
	sc := dialSession(t, ts)

	for _, body := range []string{
		`{"scenario":"dining-philosophers","preset":"lock-level","strategy":"bfs","params":{"philosophers":3}%s}`,
		`{"scenario":"dining-philosophers","preset":"lock-level","strategy":"random","seed":4,"budget":{"runs":200}%s}`,
	} {
		var local, dist session.SearchResult
		r := sc.call("search", fmt.Sprintf(body, ""))
		require.Nil(t, r.Error)
		require.NoError(t, json.Unmarshal(r.Result, &local))
		r = sc.call("search", fmt.Sprintf(body, `,"distributed":true`))
		require.Nil(t, r.Error, "%+v", r.Error)
		require.NoError(t, json.Unmarshal(r.Result, &dist))
		require.True(t, local.Found, "the buggy philosophers deadlock")
		assert.Equal(t, local.Found, dist.Found)
		assert.Equal(t, local.Verdict, dist.Verdict)
		assert.Equal(t, local.Length, dist.Length)
		assert.Equal(t, local.States, dist.States)
		assert.Equal(t, local.Counterexample, dist.Counterexample)
		assert.False(t, dist.Cancelled)
	}

	progressed := false
	sc.write(`{"id":"d","method":"search","args":{"scenario":"dining-philosophers","preset":"lock-level","variant":"fixed","strategy":"random","budget":{"runs":1000000},"distributed":true}}`)
	for {
		r := sc.read()
		require.Nil(t, r.Error, "%+v", r.Error)
		if r.Progress != nil && r.Progress.Runs > 0 {
			progressed = true
			assert.Equal(t, 1000000, r.Progress.Budget)
			break
		}
	}
	sc.write(`{"id":"c","method":"cancel","args":{"id":"d"}}`)
	for done := 0; done < 2; {
		r := sc.read()
		if r.Progress != nil {
			continue
		}
		require.Nil(t, r.Error, "%+v", r.Error)
		done++
		switch string(r.ID) {
		case `"c"`:
			var c session.Cancelled
			require.NoError(t, json.Unmarshal(r.Result, &c))
			assert.True(t, c.Running, "the distributed search was running")
		case `"d"`:
			var res session.SearchResult
			require.NoError(t, json.Unmarshal(r.Result, &res))
			assert.True(t, res.Cancelled)
			assert.Less(t, res.Runs, 1000000)
		}
	}
	assert.True(t, progressed)

	// A socket that closes cancels its distributed search.
	other := dialSession(t, ts)
	other.write(`{"id":1,"method":"search","args":{"scenario":"dining-philosophers","preset":"lock-level","variant":"fixed","strategy":"random","budget":{"runs":999999},"distributed":true}}`)
	for r := other.read(); r.Progress == nil; r = other.read() {
		require.Nil(t, r.Error, "%+v", r.Error)
	}
	require.NoError(t, other.c.Close(websocket.StatusNormalClosure, ""))
	require.Eventually(t, func() bool {
		recs, err := ts.store.Searches()
		require.NoError(t, err)
		for _, rec := range recs {
			if rec.Request.Budget.Runs == 999999 {
				return rec.State == StateCancelled
			}
		}
		return false
	}, 20*time.Second, 50*time.Millisecond, "the search of a closed socket is cancelled")
}

// Without a cluster the socket refuses "distributed": true, naming the
// field and saying how to get one.
func TestSessionSocketDistributedNeedsACluster(t *testing.T) {
	ts := newTestServer(t)
	sc := dialSession(t, ts)
	r := sc.call("search", `{"scenario":"dining-philosophers","preset":"lock-level","strategy":"bfs","distributed":true}`)
	require.NotNil(t, r.Error)
	assert.Equal(t, "distributed", r.Error.Field)
	assert.Contains(t, r.Error.Message, "-nats")
}
