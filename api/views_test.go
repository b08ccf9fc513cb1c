package api

import (
	"encoding/json"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/racetrack-sim/racetrack/core/session"
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

// TestForkTreeOverREST: forks made with POST /runs/{id}/forks form the
// tree GET /runs/{id}/forks shows from any of its runs (core/session's
// ForkTree over the store's records), also after a restart; a run no
// fork touched is a tree of one; a bad id is refused naming the field.
func TestForkTreeOverREST(t *testing.T) {
	path := filepath.Join(t.TempDir(), "racetrack.db")
	ts := startTestServer(t, path)
	root := ts.createRun(t, `{"scenario":"dining-philosophers","preset":"lock-level","seed":16}`)
	fork := func(run string) forked {
		t.Helper()
		var f struct{ Step int }
		ts.get(t, "/api/v1/runs/"+run+"/find?kind=choice").json(t, &f)
		res := ts.get(t, "/api/v1/runs/"+run+"/alternatives?step="+itoa(f.Step))
		var alts []struct {
			Options []struct {
				Index  int
				Picked bool
			}
		}
		res.json(t, &alts)
		require.NotEmpty(t, alts, "a choice at step %d", f.Step)
		opt := -1
		for _, o := range alts[0].Options {
			if !o.Picked {
				opt = o.Index
				break
			}
		}
		res = ts.post(t, "/api/v1/runs/"+run+"/forks", `{"step":`+itoa(f.Step)+`,"choice":0,"option":`+itoa(opt)+`}`)
		require.Equal(t, http.StatusCreated, res.Status, "%s", res.Body)
		var out forked
		res.json(t, &out)
		return out
	}
	child := fork(root.ID)
	grand := fork(child.Run.ID)
	// Once the requests are done only the cache holds the runs.
	for _, id := range []string{root.ID, child.Run.ID, grand.Run.ID} {
		require.Eventually(t, func() bool {
			rec, ok := ts.timelines.peek(id)
			if !ok {
				return false
			}
			rec.mu.Lock()
			refs := rec.refs
			rec.mu.Unlock()
			rec.drop()
			return refs == 2 // the cache's and this peek's
		}, 5*time.Second, 5*time.Millisecond, "run %s is still held after its requests", id)
	}
	tree := func(run string) session.ForkNode {
		t.Helper()
		res := ts.get(t, "/api/v1/runs/"+run+"/forks")
		require.Equal(t, http.StatusOK, res.Status, "%s", res.Body)
		var n session.ForkNode
		res.json(t, &n)
		return n
	}
	check := func(n session.ForkNode, when string) {
		t.Helper()
		require.Equal(t, root.ID, n.Run, when)
		assert.Nil(t, n.Fork, when)
		assert.Equal(t, len(root.Violations), n.Violations, when)
		assert.Equal(t, root.ID, n.Spec.ID(), "%s: the root's spec opens it", when)
		require.Len(t, n.Children, 1, when)
		c := n.Children[0]
		assert.Equal(t, child.Run.ID, c.Run, when)
		require.NotNil(t, c.Fork, when)
		assert.Equal(t, session.ForkEdge{Parent: root.ID, Step: child.Fork.Step, Choice: 0, Option: child.Fork.Option, Text: child.Fork.Text}, *c.Fork, when)
		assert.Equal(t, len(child.Run.Violations), c.Violations, when)
		require.Len(t, c.Children, 1, when)
		assert.Equal(t, grand.Run.ID, c.Children[0].Run, when)
		assert.Equal(t, child.Run.ID, c.Children[0].Fork.Parent, when)
		assert.Empty(t, c.Children[0].Children, when)
	}
	for _, run := range []string{root.ID, child.Run.ID, grand.Run.ID} {
		check(tree(run), "from "+run)
	}
	// Forking the same option again adds no second edge.
	res := ts.post(t, "/api/v1/runs/"+root.ID+"/forks", `{"step":`+itoa(child.Fork.Step)+`,"choice":0,"option":`+itoa(child.Fork.Option)+`}`)
	require.Equal(t, http.StatusCreated, res.Status, "%s", res.Body)
	check(tree(grand.Run.ID), "after forking again")

	// The records outlive the process.
	ts.stop()
	ts = startTestServer(t, path)
	check(tree(child.Run.ID), "after a restart")

	alone := ts.createRun(t, `{"scenario":"dining-philosophers","seed":5}`)
	n := tree(alone.ID)
	assert.Equal(t, alone.ID, n.Run)
	assert.Empty(t, n.Children)
	assert.Nil(t, n.Fork)

	for _, c := range []struct {
		id     string
		status int
	}{{"nope", 404}, {"r" + strings.Repeat("0", 20), 404}} {
		res := ts.get(t, "/api/v1/runs/"+c.id+"/forks")
		require.Equal(t, c.status, res.Status, "%s: %s", c.id, res.Body)
		p := res.problem(t)
		assert.Equal(t, "id", p.Field, c.id)
		assert.Contains(t, p.Detail, "run", c.id)
	}
}

// TestFormatsList: GET /formats is core/session's list, and every format
// it names exports a run; a method it does not serve is refused naming
// the method.
func TestFormatsList(t *testing.T) {
	ts := newTestServer(t)
	res := ts.get(t, "/api/v1/formats")
	require.Equal(t, http.StatusOK, res.Status, "%s", res.Body)
	var got []session.Format
	res.json(t, &got)
	require.Equal(t, session.Formats(), got)
	run := ts.createRun(t, philoSpec)
	for _, f := range got {
		res := ts.get(t, "/api/v1/runs/"+run.ID+"/export?format="+f.ID)
		require.Equal(t, http.StatusOK, res.Status, "%s: %s", f.ID, res.Body)
		assert.Equal(t, f.Media, res.Header.Get("Content-Type"), f.ID)
		assert.Contains(t, res.Header.Get("Content-Disposition"), f.Suffix, f.ID)
	}
	res = ts.post(t, "/api/v1/formats", `{}`)
	require.Equal(t, http.StatusMethodNotAllowed, res.Status, "%s", res.Body)
	assert.Equal(t, "method", res.problem(t).Field)
}
