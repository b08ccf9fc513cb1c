package api

import (
	"fmt"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

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
