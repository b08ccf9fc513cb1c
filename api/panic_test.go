package api

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/racetrack-sim/racetrack/core/philo"
	"github.com/racetrack-sim/racetrack/core/scenario"
	"github.com/racetrack-sim/racetrack/core/scenario/scenariotest"
)

func brokenRegistry() *scenario.Registry {
	return scenario.NewRegistry(philo.Scenario(), scenariotest.Broken(philo.Scenario(), "broken", "model bug: secret internal detail"))
}

func TestModelPanicFailsOnlyItsRequest(t *testing.T) {
	ts := newTestServer(t, func(c *Config) { c.Registry = brokenRegistry() })
	for range 2 {
		res := ts.post(t, "/api/v1/runs", `{"scenario":"broken","seed":1}`)
		require.Equal(t, http.StatusInternalServerError, res.Status)
		p := res.problem(t)
		assert.NotContains(t, p.Detail, "secret")
		assert.NotEmpty(t, p.RequestID)
	}
	assert.Equal(t, http.StatusCreated, ts.post(t, "/api/v1/runs", philoSpec).Status, "the server goes on")

	id := ts.startSearch(t, `{"scenario":"broken","strategy":"random","budget":{"runs":10}}`)
	st := waitSearch(t, ts, id)
	assert.Equal(t, StateFailed, st.State)
	assert.NotContains(t, st.Error, "secret")
}
