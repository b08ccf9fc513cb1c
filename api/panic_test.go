package api

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/racetrack-sim/racetrack/core/philo"
	"github.com/racetrack-sim/racetrack/core/scenario"
	"github.com/racetrack-sim/racetrack/core/sim"
)

// brokenModel panics on its first step: a bug in a model must fail the
// request (or the search) that met it, never the server.
type brokenModel struct{ sim.Model }

func (brokenModel) Handle(*sim.World, *sim.Proc, *sim.Event) sim.Action {
	panic("model bug: secret internal detail")
}

func brokenRegistry() *scenario.Registry {
	sc := philo.Scenario()
	sc.ID = "broken"
	inner := sc.New
	sc.New = func(variant string, v scenario.Values) (sim.Model, error) {
		m, err := inner(variant, v)
		return brokenModel{m}, err
	}
	return scenario.NewRegistry(philo.Scenario(), sc)
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
