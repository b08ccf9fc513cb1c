package api

import (
	"encoding/json"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-chi/chi/v5"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/racetrack-sim/racetrack/core/catalog"
)

const philoSpec = `{"scenario":"dining-philosophers","seed":3}`

func TestScenariosCatalog(t *testing.T) {
	ts := newTestServer(t)
	res := ts.get(t, "/api/v1/scenarios")
	require.Equal(t, http.StatusOK, res.Status)
	var raw []map[string]any
	res.json(t, &raw)
	require.Len(t, raw, 1)
	sc := raw[0]
	assert.Equal(t, "dining-philosophers", sc["id"])
	for _, k := range []string{"id", "title", "story", "links", "variants", "presets", "params", "properties"} {
		assert.Contains(t, sc, k)
	}
	params := sc["params"].([]any)
	require.NotEmpty(t, params)
	for _, p := range params {
		for _, k := range []string{"name", "type", "default", "min", "max", "unit", "help"} {
			assert.Contains(t, p.(map[string]any), k, "param %v", p)
		}
	}
	meals := params[1].(map[string]any)
	assert.Equal(t, "meals", meals["name"])
	assert.Equal(t, 1.0, meals["min"])
	assert.Equal(t, 100.0, meals["max"])
}

// TestScenariosOneAnswerOnBothWires proves the catalog has one type: the
// REST answer and the session's scenarios answer are the same bytes, for
// every scenario of the full catalog (min, max and unit present, null or
// "" where a parameter has none; rules included).
func TestScenariosOneAnswerOnBothWires(t *testing.T) {
	ts := newTestServer(t, func(c *Config) { c.Registry = catalog.New() })
	res := ts.get(t, "/api/v1/scenarios")
	require.Equal(t, http.StatusOK, res.Status)
	rep := dialSession(t, ts).call("scenarios", `{}`)
	require.Nil(t, rep.Error)
	assert.JSONEq(t, string(res.Body), string(rep.Result))
	var raw []map[string]any
	res.json(t, &raw)
	nulls, rules := 0, 0
	for _, sc := range raw {
		for _, p := range sc["params"].([]any) {
			if p.(map[string]any)["min"] == nil {
				nulls++
			}
		}
		if _, ok := sc["rules"]; ok {
			rules++
		}
	}
	assert.Positive(t, nulls, "some parameter has no range, and says so with null")
	assert.Positive(t, rules, "the rules between parameters reach REST too")
}

func TestCreateRunIsDeterministicAndFillsDefaults(t *testing.T) {
	ts := newTestServer(t)
	a := ts.createRun(t, philoSpec)
	b := ts.createRun(t, `{"seed":3,"scenario":"dining-philosophers","preset":"table","variant":"buggy"}`)
	assert.Equal(t, a, b, "the same normalised spec gives the same id and summary")
	assert.Regexp(t, `^r[0-9a-f]{20}$`, a.ID)
	assert.Equal(t, "table", a.Spec.Preset, "missing preset means the default preset")
	assert.Equal(t, "buggy", a.Spec.Variant)
	assert.Equal(t, 100_000, a.Spec.MaxSteps)
	assert.Greater(t, a.Steps, 0)
	assert.Equal(t, []string{"meals eaten"}, a.Series)
	assert.NotNil(t, a.Violations)

	res := ts.get(t, "/api/v1/runs/"+a.ID)
	require.Equal(t, http.StatusOK, res.Status)
	var got map[string]any
	res.json(t, &got)
	for _, k := range []string{"id", "spec", "steps", "endTime", "violations", "series"} {
		assert.Contains(t, got, k)
	}
	assert.Equal(t, a.ID, got["id"])
}

func TestRunFindsTheDeadlockOfTheBuggyTable(t *testing.T) {
	ts := newTestServer(t)
	var found bool
	for seed := 1; seed <= 40 && !found; seed++ {
		sum := ts.createRun(t, `{"scenario":"dining-philosophers","preset":"lock-level","seed":`+itoa(seed)+`}`)
		for _, v := range sum.Violations {
			if v.Property == "no-deadlock" {
				found = true
				assert.GreaterOrEqual(t, v.Step, 0)
				assert.NotEmpty(t, v.Message)
			}
		}
	}
	assert.True(t, found, "some seed of the untimed buggy table deadlocks")
}

func itoa(i int) string { return jsonNumber(i) }

func jsonNumber(i int) string { b, _ := json.Marshal(i); return string(b) }

// TestErrorClasses sends every kind of bad input and checks that it is a
// 4xx problem naming the field.
func TestErrorClasses(t *testing.T) {
	ts := newTestServer(t, func(c *Config) { c.MaxRunSteps = 200_000 })
	run := ts.createRun(t, philoSpec)
	big := `{"scenario":"dining-philosophers","schedule":[` + strings.Repeat("0,", 600_000) + `0]}`
	cases := []struct {
		name, method, path, body string
		status                   int
		field                    string
	}{
		{"malformed JSON", "POST", "/api/v1/runs", `{"scenario":`, 400, "body"},
		{"not an object", "POST", "/api/v1/runs", `[1,2]`, 400, "body"},
		{"empty body", "POST", "/api/v1/runs", ``, 400, "body"},
		{"trailing data", "POST", "/api/v1/runs", `{"scenario":"dining-philosophers"} {}`, 400, "body"},
		{"unknown field", "POST", "/api/v1/runs", `{"scenario":"dining-philosophers","sede":1}`, 400, "sede"},
		{"wrong type", "POST", "/api/v1/runs", `{"scenario":"dining-philosophers","seed":"one"}`, 400, "seed"},
		{"negative seed", "POST", "/api/v1/runs", `{"scenario":"dining-philosophers","seed":-1}`, 400, "seed"},
		{"huge seed", "POST", "/api/v1/runs", `{"scenario":"dining-philosophers","seed":9007199254740993}`, 422, "seed"},
		{"unknown scenario", "POST", "/api/v1/runs", `{"scenario":"nope"}`, 422, "scenario"},
		{"missing scenario", "POST", "/api/v1/runs", `{}`, 422, "scenario"},
		{"unknown preset", "POST", "/api/v1/runs", `{"scenario":"dining-philosophers","preset":"nope"}`, 422, "preset"},
		{"unknown variant", "POST", "/api/v1/runs", `{"scenario":"dining-philosophers","variant":"nope"}`, 422, "variant"},
		{"unknown param", "POST", "/api/v1/runs", `{"scenario":"dining-philosophers","params":{"forks":2}}`, 422, "params.forks"},
		{"param out of range", "POST", "/api/v1/runs", `{"scenario":"dining-philosophers","params":{"meals":1000}}`, 422, "params.meals"},
		{"param wrong type", "POST", "/api/v1/runs", `{"scenario":"dining-philosophers","params":{"timed":"yes"}}`, 422, "params.timed"},
		{"maxSteps over the cap", "POST", "/api/v1/runs", `{"scenario":"dining-philosophers","maxSteps":300000}`, 422, "maxSteps"},
		{"maxSteps negative", "POST", "/api/v1/runs", `{"scenario":"dining-philosophers","maxSteps":-5}`, 422, "maxSteps"},
		{"maxTime out of range", "POST", "/api/v1/runs", `{"scenario":"dining-philosophers","maxTime":1e12}`, 422, "maxTime"},
		{"negative choice", "POST", "/api/v1/runs", `{"scenario":"dining-philosophers","schedule":[0,-1]}`, 422, "schedule[1]"},
		{"schedule too long", "POST", "/api/v1/runs", `{"scenario":"dining-philosophers","schedule":[` + strings.Repeat("0,", 500) + `0]}`, 422, "schedule"},
		{"choice out of range", "POST", "/api/v1/runs", `{"scenario":"dining-philosophers","schedule":[99999]}`, 422, "schedule"},
		{"body over 1 MiB", "POST", "/api/v1/runs", big, 413, "body"},
		{"unknown run", "GET", "/api/v1/runs/r0123456789abcdef0123", "", 404, "id"},
		{"malformed run id", "GET", "/api/v1/runs/..%2f..%2fetc", "", 404, "id"},
		{"steps bad from", "GET", "/api/v1/runs/" + run.ID + "/steps?from=x", "", 400, "from"},
		{"steps from past end", "GET", "/api/v1/runs/" + run.ID + "/steps?from=100000", "", 422, "from"},
		{"steps limit zero", "GET", "/api/v1/runs/" + run.ID + "/steps?limit=0", "", 422, "limit"},
		{"state missing step", "GET", "/api/v1/runs/" + run.ID + "/state", "", 400, "step"},
		{"state step past end", "GET", "/api/v1/runs/" + run.ID + "/state?step=100000", "", 422, "step"},
		{"state step negative", "GET", "/api/v1/runs/" + run.ID + "/state?step=-1", "", 422, "step"},
		{"unknown search", "GET", "/api/v1/searches/s0123456789abcdef", "", 404, "id"},
		{"search unknown field", "POST", "/api/v1/searches", `{"scenario":"dining-philosophers","strategy":"bfs","budget":{"steps":1}}`, 400, "budget.steps"},
		{"search bad strategy", "POST", "/api/v1/searches", `{"scenario":"dining-philosophers","strategy":"magic"}`, 422, "strategy"},
		{"search negative budget", "POST", "/api/v1/searches", `{"scenario":"dining-philosophers","strategy":"random","budget":{"runs":-1}}`, 422, "budget.runs"},
		{"search too many seconds", "POST", "/api/v1/searches", `{"scenario":"dining-philosophers","strategy":"random","budget":{"seconds":1e9}}`, 422, "budget.seconds"},
		{"search unknown scenario", "POST", "/api/v1/searches", `{"scenario":"nope","strategy":"random"}`, 422, "scenario"},
		{"search negative workers", "POST", "/api/v1/searches", `{"scenario":"dining-philosophers","strategy":"bfs","workers":-1}`, 422, "workers"},
		{"search too many workers", "POST", "/api/v1/searches", `{"scenario":"dining-philosophers","strategy":"bfs","workers":1025}`, 422, "workers"},
		{"search wrong type", "POST", "/api/v1/searches", `{"scenario":"dining-philosophers","strategy":"random","budget":{"seconds":"10"}}`, 400, "budget.seconds"},
		{"unknown route", "GET", "/api/v1/nope", "", 404, "path"},
		{"wrong method", "PUT", "/api/v1/runs", `{}`, 405, "method"},
		{"session without upgrade", "GET", "/api/v1/session", "", 426, "Upgrade"},
		{"layout past the end", "GET", "/api/v1/runs/" + run.ID + "/layout?from=0&to=999999", "", 422, "to"},
		{"find an unknown kind", "GET", "/api/v1/runs/" + run.ID + "/find?kind=bogus", "", 422, "kind"},
		{"alternatives without a step", "GET", "/api/v1/runs/" + run.ID + "/alternatives", "", 400, "step"},
		{"fork of an option that does not exist", "POST", "/api/v1/runs/" + run.ID + "/forks", `{"step":0,"choice":9,"option":0}`, 422, "option"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var body []byte
			if c.body != "" || c.method == "POST" {
				body = []byte(c.body)
			}
			res := ts.do(t, c.method, c.path, body)
			require.Equal(t, c.status, res.Status, "body: %.300s", res.Body)
			p := res.problem(t)
			assert.Equal(t, c.field, p.Field, "detail: %s", p.Detail)
			assert.Contains(t, p.Detail, strings.Split(c.field, "[")[0], "the detail names the field")
			assert.NotContains(t, p.Detail, "goroutine")
		})
	}
}

func TestUnsupportedMediaType(t *testing.T) {
	ts := newTestServer(t)
	req, err := http.NewRequest(http.MethodPost, ts.URL+"/api/v1/runs", strings.NewReader(philoSpec))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	res, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	res.Body.Close()
	assert.Equal(t, http.StatusUnsupportedMediaType, res.StatusCode)
}

func TestPanicIsAnOpaque500(t *testing.T) {
	ts := newTestServer(t)
	h := withLogger(discardLogger())(recoverer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { panic("secret internal detail") })))
	rec := newRecorder()
	h.ServeHTTP(rec, mustRequest(t, ts.URL+"/x"))
	assert.Equal(t, http.StatusInternalServerError, rec.Code)
	assert.Equal(t, "application/problem+json", rec.Header().Get("Content-Type"))
	assert.NotContains(t, rec.Body.String(), "secret")
}

func TestStepsAndState(t *testing.T) {
	ts := newTestServer(t)
	run := ts.createRun(t, philoSpec)
	res := ts.get(t, "/api/v1/runs/"+run.ID+"/steps?from=2&limit=5")
	require.Equal(t, http.StatusOK, res.Status, "%s", res.Body)
	var page struct {
		From  int
		Total int
		Steps []map[string]any
	}
	res.json(t, &page)
	assert.Equal(t, 2, page.From)
	assert.Equal(t, run.Steps, page.Total)
	require.Len(t, page.Steps, 5)
	assert.Equal(t, 2.0, page.Steps[0]["index"])

	res = ts.get(t, "/api/v1/runs/"+run.ID+"/steps?from="+itoa(run.Steps))
	require.Equal(t, http.StatusOK, res.Status)
	res.json(t, &page)
	assert.Empty(t, page.Steps)

	res = ts.get(t, "/api/v1/runs/"+run.ID+"/state?step=10")
	require.Equal(t, http.StatusOK, res.Status, "%s", res.Body)
	var sv struct {
		Step   int
		Groups []struct {
			ID     string
			Fields []map[string]any
		}
	}
	res.json(t, &sv)
	assert.Equal(t, 10, sv.Step)
	assert.NotEmpty(t, sv.Groups)
}

func TestEvictedRunIsRecomputed(t *testing.T) {
	ts := newTestServer(t, func(c *Config) { c.TimelineBytes = 1 })
	run := ts.createRun(t, philoSpec)
	assert.Equal(t, 0, ts.timelines.len(), "a timeline over the budget is not kept")
	res := ts.get(t, "/api/v1/runs/"+run.ID)
	require.Equal(t, http.StatusOK, res.Status)
	var again map[string]any
	res.json(t, &again)
	assert.Equal(t, run.ID, again["id"])
	assert.Equal(t, float64(run.Steps), again["steps"])
}

func TestHealthzMetricsAndHeaders(t *testing.T) {
	ts := newTestServer(t)
	res := ts.get(t, "/healthz")
	require.Equal(t, http.StatusOK, res.Status)
	assert.Contains(t, string(res.Body), `"ok"`)
	assert.Contains(t, string(res.Body), `"distributed":false`, "no cluster: the page offers no distributed search")
	assert.Contains(t, res.Header.Get("Content-Security-Policy"), "default-src 'self'")
	assert.Equal(t, "nosniff", res.Header.Get("X-Content-Type-Options"))
	assert.NotEmpty(t, res.Header.Get("X-Request-Id")+"x")

	ts.createRun(t, philoSpec)
	ts.post(t, "/api/v1/runs", `{"scenario":"nope"}`)
	res = ts.get(t, "/metrics")
	require.Equal(t, http.StatusOK, res.Status)
	body := string(res.Body)
	for _, want := range []string{
		`racetrack_http_requests_total{code="201",method="POST",route="/api/v1/runs"} 1`,
		`racetrack_http_requests_total{code="422",method="POST",route="/api/v1/runs"} 1`,
		`racetrack_runs_total{result="executed"} 1`,
		`racetrack_http_request_duration_seconds_bucket`,
		`racetrack_streams_open`,
		`racetrack_search_queue_length 0`,
	} {
		assert.Contains(t, body, want)
	}
}

// TestOpenAPICoversRoutes fails when a registered route is missing from
// the OpenAPI document (or the document names a route that is gone).
func TestOpenAPICoversRoutes(t *testing.T) {
	ts := newTestServer(t, func(c *Config) { c.Static = []fs.FS{os.DirFS(t.TempDir())} })
	res := ts.get(t, "/api/openapi.json")
	require.Equal(t, http.StatusOK, res.Status)
	var doc struct {
		OpenAPI string                    `json:"openapi"`
		Paths   map[string]map[string]any `json:"paths"`
	}
	res.json(t, &doc)
	assert.Equal(t, "3.1.0", doc.OpenAPI)
	seen := map[string]bool{}
	err := chi.Walk(ts.handler.(chi.Routes), func(method, route string, _ http.Handler, _ ...func(http.Handler) http.Handler) error {
		if route == "/*" {
			return nil // the browser app's files
		}
		route = strings.TrimSuffix(route, "/")
		ops, ok := doc.Paths[route]
		if assert.True(t, ok, "route %s is missing from openapi.json", route) {
			assert.Contains(t, ops, strings.ToLower(method), "%s %s is missing from openapi.json", method, route)
		}
		seen[route] = true
		return nil
	})
	require.NoError(t, err)
	for p := range doc.Paths {
		assert.True(t, seen[p], "openapi.json documents %s, which is not a route", p)
	}
}

func TestStaticFiles(t *testing.T) {
	web, static := t.TempDir(), t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(web, "index.html"), []byte("<h1>racetrack</h1>"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(static, "app.wasm"), []byte("\x00asm"), 0o644))
	ts := newTestServer(t, func(c *Config) { c.Static = []fs.FS{os.DirFS(web), os.DirFS(static)} })
	res := ts.get(t, "/")
	require.Equal(t, http.StatusOK, res.Status)
	assert.Contains(t, string(res.Body), "racetrack")
	assert.Contains(t, res.Header.Get("Content-Security-Policy"), "'wasm-unsafe-eval'")
	for _, p := range []string{"/app.wasm", "/static/app.wasm"} {
		res = ts.get(t, p)
		require.Equal(t, http.StatusOK, res.Status, p)
		assert.Equal(t, "application/wasm", res.Header.Get("Content-Type"))
	}
	res = ts.do(t, http.MethodHead, "/", nil)
	assert.Equal(t, http.StatusOK, res.Status, "HEAD works on the page")
	res = ts.get(t, "/../../etc/passwd")
	assert.Equal(t, http.StatusNotFound, res.Status)
	res = ts.get(t, "/api/v1/nope")
	assert.Equal(t, http.StatusNotFound, res.Status)
	assert.Equal(t, "application/problem+json", res.Header.Get("Content-Type"))
}
