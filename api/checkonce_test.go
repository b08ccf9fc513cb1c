package api

import (
	"net/http"
	"reflect"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/racetrack-sim/racetrack/core/philo"
	"github.com/racetrack-sim/racetrack/core/scenario"
	"github.com/racetrack-sim/racetrack/core/session"
	"github.com/racetrack-sim/racetrack/core/sim"
	"github.com/racetrack-sim/racetrack/core/timeline"
)

// countingRegistry is the philosophers with a rule that counts how often
// a spec is normalised (Normalize applies every rule once) and a New
// that counts the models built.
func countingRegistry(normalised, built *atomic.Int64) *scenario.Registry {
	sc := philo.Scenario()
	sc.Rules = append(append([]scenario.Rule(nil), sc.Rules...), scenario.Rule{Params: []string{"philosophers"}, Help: "counts normalisations",
		Broken: func(scenario.Values) string { normalised.Add(1); return "" }})
	build := sc.New
	sc.New = func(variant string, v scenario.Values) (sim.Model, error) { built.Add(1); return build(variant, v) }
	return scenario.NewRegistry(sc)
}

// One request is checked once: POST /runs normalises its spec once and
// builds its model once (the memory estimate and the recording share the
// world); POST /searches normalises once however its memory is reserved.
func TestARequestIsCheckedOnce(t *testing.T) {
	var normalised, built atomic.Int64
	ts := newTestServer(t, func(c *Config) { c.Registry = countingRegistry(&normalised, &built) })
	normalised.Store(0)
	built.Store(0)

	res := ts.post(t, "/api/v1/runs", `{"scenario":"dining-philosophers","preset":"lock-level","seed":16}`)
	require.Equal(t, http.StatusCreated, res.Status, "%s", res.Body)
	assert.Equal(t, int64(1), normalised.Load(), "normalisations of one POST /runs")
	assert.Equal(t, int64(1), built.Load(), "models built for one POST /runs")

	normalised.Store(0)
	id := ts.startSearch(t, `{"scenario":"dining-philosophers","preset":"lock-level","variant":"fixed","strategy":"bfs","params":{"philosophers":3}}`)
	st := waitSearch(t, ts, id)
	require.Equal(t, StateDone, st.State, "%+v", st)
	assert.Equal(t, int64(1), normalised.Load(), "normalisations of one POST /searches (plan, memory, run, keep)")

	normalised.Store(0)
	built.Store(0)
	res = ts.post(t, "/api/v1/searches", `{"scenario":"dining-philosophers","strategy":"bfs","budget":{"states":-1},"params":{"philosophers":3},"property":"nope"}`)
	require.Equal(t, http.StatusUnprocessableEntity, res.Status, "%s", res.Body)
	p := res.problem(t)
	fields := map[string]bool{}
	for _, e := range p.Errors {
		fields[e.Field] = true
	}
	assert.True(t, fields["budget.states"] && fields["property"], "the bounds and the catalog both reported: %+v", p.Errors)
	assert.Equal(t, int64(1), normalised.Load(), "normalisations of one refused POST /searches")
	assert.Equal(t, int64(0), built.Load(), "a refused search builds no model")
}

// What runs a spec takes the checked type, which only Registry.Check
// makes: the zero value (an unchecked spec) cannot build a world, and the
// recording, the server's executor and a session's runs take nothing
// else.
func TestOnlyACheckedSpecRuns(t *testing.T) {
	normal := reflect.TypeFor[scenario.Normal]()
	for i := range normal.NumField() {
		assert.False(t, normal.Field(i).IsExported(), "scenario.Normal.%s is exported: a caller could fill it in unchecked", normal.Field(i).Name)
	}
	_, err := scenario.Normal{}.World(scenario.Options{})
	assert.ErrorIs(t, err, scenario.ErrNotChecked)

	for name, fn := range map[string]any{
		"Server.execute":   (*Server).execute,
		"session.Record":   session.Record,
		"timeline.Prepare": timeline.Prepare,
		"session.Runs.Get": session.Runs.Get,
	} {
		ft := reflect.TypeOf(fn)
		takes := false
		for i := range ft.NumIn() {
			takes = takes || ft.In(i) == normal
			assert.NotEqual(t, reflect.TypeFor[scenario.RunSpec](), ft.In(i), "%s takes an unchecked RunSpec", name)
		}
		assert.True(t, takes, "%s does not take a scenario.Normal", name)
	}
	// A search is planned once: the server's jobs take the planned search,
	// whose explorer only check.New makes.
	plan := reflect.TypeFor[searchPlan]()
	f, ok := plan.FieldByName("search")
	require.True(t, ok)
	assert.Equal(t, reflect.TypeFor[*session.Search](), f.Type)
}
