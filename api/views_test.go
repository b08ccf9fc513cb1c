package api

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestDiagramSVG(t *testing.T) {
	ts := newTestServer(t)
	run := ts.createRun(t, philoSpec)
	res := ts.get(t, "/api/v1/runs/"+run.ID+"/diagram.svg?from=0&to=40")
	require.Equal(t, http.StatusOK, res.Status, "%s", res.Body)
	assert.Equal(t, "image/svg+xml", res.Header.Get("Content-Type"))
	assert.True(t, strings.HasPrefix(string(res.Body), "<svg "), "an SVG document")
	assert.Contains(t, string(res.Body), "phil0", "lanes are named after the processes")

	res = ts.get(t, "/api/v1/runs/"+run.ID+"/diagram.svg")
	require.Equal(t, http.StatusOK, res.Status, "the whole run by default")

	for _, c := range []struct {
		query, field string
		status       int
	}{
		{"from=5&to=5", "to", 422},
		{"from=x", "from", 400},
		{"to=100000", "to", 422},
	} {
		res = ts.get(t, "/api/v1/runs/"+run.ID+"/diagram.svg?"+c.query)
		require.Equal(t, c.status, res.Status, "%s: %s", c.query, res.Body)
		assert.Equal(t, c.field, res.problem(t).Field, c.query)
	}
}

func TestExportFormats(t *testing.T) {
	ts := newTestServer(t)
	run := ts.createRun(t, philoSpec)
	for _, f := range []struct{ format, media string }{
		{"json", "application/json"}, {"shiviz", "text/plain; charset=utf-8"}, {"chrome", "application/json"},
	} {
		res := ts.get(t, "/api/v1/runs/"+run.ID+"/export?format="+f.format)
		require.Equal(t, http.StatusOK, res.Status, "%s: %s", f.format, res.Body)
		assert.Equal(t, f.media, res.Header.Get("Content-Type"))
		assert.Contains(t, res.Header.Get("Content-Disposition"), run.ID)
		assert.NotEmpty(t, res.Body)
		if strings.HasPrefix(f.media, "application/json") {
			assert.True(t, json.Valid(res.Body), f.format)
		}
	}
	res := ts.get(t, "/api/v1/runs/"+run.ID+"/export?format=pdf")
	require.Equal(t, http.StatusUnprocessableEntity, res.Status)
	assert.Equal(t, "format", res.problem(t).Field)
	res = ts.get(t, "/api/v1/runs/"+run.ID+"/export")
	require.Equal(t, http.StatusBadRequest, res.Status)
	assert.Equal(t, "format", res.problem(t).Field)
}

func TestCompareBuggyAndFixed(t *testing.T) {
	ts := newTestServer(t)
	var buggy, fixed string
	for seed := 1; seed <= 40 && buggy == ""; seed++ {
		sum := ts.createRun(t, `{"scenario":"dining-philosophers","preset":"lock-level","seed":`+itoa(seed)+`}`)
		if len(sum.Violations) > 0 {
			buggy = sum.ID
			fixed = ts.createRun(t, `{"scenario":"dining-philosophers","preset":"lock-level","variant":"fixed","seed":`+itoa(seed)+`}`).ID
		}
	}
	require.NotEmpty(t, buggy, "a seed of the buggy table deadlocks")
	res := ts.get(t, "/api/v1/compare?a="+buggy+"&b="+fixed)
	require.Equal(t, http.StatusOK, res.Status, "%s", res.Body)
	var cmp struct {
		A, B    string
		Diverge int
		OnlyA   []string
		OnlyB   []string
	}
	res.json(t, &cmp)
	assert.Equal(t, buggy, cmp.A)
	assert.Equal(t, fixed, cmp.B)
	assert.GreaterOrEqual(t, cmp.Diverge, 0, "the variants part ways")
	assert.Contains(t, cmp.OnlyA, "no-deadlock", "only the buggy run deadlocks")
	assert.Empty(t, cmp.OnlyB)

	for _, c := range []struct{ query, field string }{
		{"a=" + buggy, "b"},
		{"b=" + fixed, "a"},
		{"a=" + buggy + "&b=r0123456789abcdef0123", "b"},
		{"a=nope&b=" + fixed, "a"},
	} {
		res = ts.get(t, "/api/v1/compare?"+c.query)
		assert.GreaterOrEqual(t, res.Status, 400, c.query)
		assert.Less(t, res.Status, 500, c.query)
		p := res.problem(t)
		assert.Equal(t, c.field, p.Field, c.query)
		assert.Contains(t, p.Detail, c.field)
	}
}
