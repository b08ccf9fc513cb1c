package api

import (
	"bytes"
	"context"
	"io"
	"io/fs"
	"net/http"
	"os"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers/legacy"
	"github.com/go-chi/chi/v5"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/racetrack-sim/racetrack/core/session"
)

func init() {
	// Bodies that are not JSON, checked as strings.
	openapi3filter.RegisterBodyDecoder("image/svg+xml", openapi3filter.PlainBodyDecoder)
	openapi3filter.RegisterBodyDecoder("text/html", openapi3filter.PlainBodyDecoder)
}

// conformanceCase is one request; {run} and {search} stand for the ids
// of a run and a search the test creates first.
type conformanceCase struct {
	method, path, body, contentType string
	status                          int
}

// TestResponsesConformToOpenAPI sends requests to every route — the
// successes and each documented failure the test can provoke — and
// validates every response (status, headers, body against the schema)
// with kin-openapi's openapi3filter against /api/openapi.json. It fails
// when a chi route has no case.
func TestResponsesConformToOpenAPI(t *testing.T) {
	ts := newTestServer(t, func(c *Config) {
		c.Static = []fs.FS{os.DirFS(t.TempDir())}
		c.MaxBodyBytes = 4 << 10
		c.MaxTraceBytes = 256 << 10
	})
	ctx := context.Background()
	loader := openapi3.NewLoader()
	doc, err := loader.LoadFromData(openAPIDocument)
	require.NoError(t, err)
	require.NoError(t, doc.Validate(ctx), "the OpenAPI document itself")
	doc.Servers = openapi3.Servers{{URL: ts.URL}}
	router, err := legacy.NewRouter(doc)
	require.NoError(t, err)

	run := ts.createRun(t, `{"scenario":"dining-philosophers","preset":"lock-level","seed":16}`)
	other := ts.createRun(t, `{"scenario":"dining-philosophers","preset":"lock-level","variant":"fixed","seed":16}`)
	res := ts.post(t, "/api/v1/searches", `{"scenario":"dining-philosophers","preset":"lock-level","strategy":"bfs"}`)
	require.Equal(t, http.StatusAccepted, res.Status, "%s", res.Body)
	var job struct{ ID string }
	res.json(t, &job)
	trace := ts.importLog(t, session.TraceLog{Log: cartLog})
	untimed := ts.createRun(t, `{"scenario":"dining-philosophers","seed":4,"params":{"timed":false}}`)
	ownLog := ts.importLog(t, session.TraceLog{Format: "json", Log: string(ts.get(t, "/api/v1/runs/"+untimed.ID+"/export?format=json").Body)})
	unknownRun, unknownSearch := "r"+strings.Repeat("0", 20), "s"+strings.Repeat("0", 16)
	big := `{"scenario":"dining-philosophers","params":{"x":"` + strings.Repeat("a", 5000) + `"}}`

	cases := []conformanceCase{
		{"GET", "/healthz", "", "", 200},
		{"HEAD", "/healthz", "", "", 200},
		{"GET", "/metrics", "", "", 200},
		{"GET", "/api/openapi.json", "", "", 200},
		{"GET", "/problems/invalid", "", "", 200},
		{"GET", "/problems/no-such-type", "", "", 404},
		{"GET", "/api/v1/scenarios", "", "", 200},
		{"GET", "/api/v1/formats", "", "", 200},
		{"POST", "/api/v1/runs", `{"scenario":"dining-philosophers","seed":3}`, "application/json", 201},
		{"POST", "/api/v1/runs", `{"scenario":`, "application/json", 400},
		{"POST", "/api/v1/runs", `{"scenario":"dining-philosophers","preset":"x","maxSteps":-1}`, "application/json", 422},
		{"POST", "/api/v1/runs", `{}`, "text/html", 415},
		{"POST", "/api/v1/runs", big, "application/json", 413},
		{"POST", "/api/v1/traces", `{"format":"shiviz","log":"a x\na {\"a\":1}\nb y\nb {\"a\":1, \"b\":1}\n"}`, "application/json", 201},
		{"POST", "/api/v1/traces", `{"log":`, "application/json", 400},
		{"POST", "/api/v1/traces", `{"format":"ndjson","log":"{\"node\":\"a\",\"kind\":\"receive\",\"msg\":1}\n"}`, "application/json", 422},
		{"POST", "/api/v1/traces", `{}`, "text/html", 415},
		{"POST", "/api/v1/traces", `{"log":"` + strings.Repeat("a", 257<<10) + `"}`, "application/json", 413},
		{"GET", "/api/v1/runs/{trace}/steps", "", "", 200},
		{"POST", "/api/v1/traces/{ownlog}/validations", `{"spec":{"scenario":"dining-philosophers","seed":4,"params":{"timed":false}},"mapping":"identity"}`, "application/json", 200},
		{"POST", "/api/v1/traces/{ownlog}/validations", `{"spec":`, "application/json", 400},
		{"POST", "/api/v1/traces/{ownlog}/validations", `{"spec":{"scenario":"dining-philosophers"},"mapping":"nope"}`, "application/json", 422},
		{"POST", "/api/v1/traces/log-0123456789abcdef/validations", `{"spec":{"scenario":"dining-philosophers"}}`, "application/json", 404},
		{"POST", "/api/v1/traces/{ownlog}/validations", `{}`, "text/html", 415},
		{"GET", "/api/v1/runs/{trace}", "", "", 200},
		{"GET", "/api/v1/runs/{run}", "", "", 200},
		{"GET", "/api/v1/runs/" + unknownRun, "", "", 404},
		{"GET", "/api/v1/runs/{run}/steps?from=2&limit=5", "", "", 200},
		{"GET", "/api/v1/runs/{run}/steps?from=x", "", "", 400},
		{"GET", "/api/v1/runs/{run}/steps?limit=5000", "", "", 422},
		{"GET", "/api/v1/runs/" + unknownRun + "/steps", "", "", 404},
		{"GET", "/api/v1/runs/{run}/state?step=3", "", "", 200},
		{"GET", "/api/v1/runs/{run}/state", "", "", 400},
		{"GET", "/api/v1/runs/{run}/state?step=999999", "", "", 422},
		{"GET", "/api/v1/runs/" + unknownRun + "/state?step=1", "", "", 404},
		{"GET", "/api/v1/runs/{run}/diagram.svg", "", "", 200},
		{"GET", "/api/v1/runs/{run}/diagram.svg?from=x", "", "", 400},
		{"GET", "/api/v1/runs/{run}/diagram.svg?from=5&to=2", "", "", 422},
		{"GET", "/api/v1/runs/" + unknownRun + "/diagram.svg", "", "", 404},
		{"GET", "/api/v1/runs/{run}/export?format=json", "", "", 200},
		{"GET", "/api/v1/runs/{run}/export?format=shiviz", "", "", 200},
		{"GET", "/api/v1/runs/{run}/export?format=chrome", "", "", 200},
		{"GET", "/api/v1/runs/{run}/export", "", "", 400},
		{"GET", "/api/v1/runs/{run}/export?format=png", "", "", 422},
		{"GET", "/api/v1/runs/" + unknownRun + "/export?format=json", "", "", 404},
		{"GET", "/api/v1/runs/{run}/alternatives?step=3", "", "", 200},
		{"GET", "/api/v1/runs/{run}/alternatives", "", "", 400},
		{"GET", "/api/v1/runs/{run}/alternatives?step=999999", "", "", 422},
		{"GET", "/api/v1/runs/" + unknownRun + "/alternatives?step=1", "", "", 404},
		{"GET", "/api/v1/runs/{run}/slice?step=3", "", "", 200},
		{"GET", "/api/v1/runs/{run}/slice", "", "", 400},
		{"GET", "/api/v1/runs/" + unknownRun + "/slice?step=1", "", "", 404},
		{"GET", "/api/v1/runs/{run}/find?kind=choice", "", "", 200},
		{"GET", "/api/v1/runs/{run}/find?step=x", "", "", 400},
		{"GET", "/api/v1/runs/{run}/find?kind=bogus", "", "", 422},
		{"GET", "/api/v1/runs/" + unknownRun + "/find", "", "", 404},
		{"GET", "/api/v1/runs/{run}/layout?from=0&to=5", "", "", 200},
		{"GET", "/api/v1/runs/{run}/layout?from=x", "", "", 400},
		{"GET", "/api/v1/runs/{run}/layout?from=5&to=2", "", "", 422},
		{"GET", "/api/v1/runs/" + unknownRun + "/layout", "", "", 404},
		{"GET", "/api/v1/runs/{run}/charts?width=640", "", "", 200},
		{"GET", "/api/v1/runs/{run}/charts?width=x", "", "", 400},
		{"GET", "/api/v1/runs/" + unknownRun + "/charts", "", "", 404},
		{"POST", "/api/v1/runs/{run}/forks", `{"step":0,"choice":0,"option":1}`, "application/json", 201},
		{"POST", "/api/v1/runs/{run}/forks", `{"step":`, "application/json", 400},
		{"POST", "/api/v1/runs/{run}/forks", `{"step":0,"choice":9,"option":0}`, "application/json", 422},
		{"POST", "/api/v1/runs/" + unknownRun + "/forks", `{}`, "application/json", 404},
		{"GET", "/api/v1/runs/{run}/forks", "", "", 200},
		{"GET", "/api/v1/runs/" + unknownRun + "/forks", "", "", 404},
		{"GET", "/api/v1/session", "", "", 426},
		{"GET", "/api/v1/compare?a={run}&b=" + other.ID, "", "", 200},
		{"GET", "/api/v1/compare?a={run}", "", "", 400},
		{"GET", "/api/v1/compare?a={run}&b=" + unknownRun, "", "", 404},
		{"POST", "/api/v1/searches", `{"scenario":"dining-philosophers","preset":"lock-level","strategy":"dfs"}`, "application/json", 202},
		{"POST", "/api/v1/searches", `{"scenario":"dining-philosophers","strategy":"bfs","speed":1}`, "application/json", 400},
		{"POST", "/api/v1/searches", `{"scenario":"dining-philosophers","strategy":"bogo","property":"x"}`, "application/json", 422},
		{"POST", "/api/v1/searches", `{}`, "text/html", 415},
		{"POST", "/api/v1/searches", big, "application/json", 413},
		{"GET", "/api/v1/searches/{search}", "", "", 200},
		{"GET", "/api/v1/searches/" + unknownSearch, "", "", 404},
		{"GET", "/api/v1/searches/{search}/stream", "", "", 426},
		{"GET", "/api/v1/searches/" + unknownSearch + "/stream", "", "", 426},
		{"DELETE", "/api/v1/searches/{search}", "", "", 200},
		{"DELETE", "/api/v1/searches/" + unknownSearch, "", "", 404},
	}

	covered := map[string]bool{}
	for _, c := range cases {
		path := strings.NewReplacer("{run}", run.ID, "{search}", job.ID, "{trace}", trace.ID, "{ownlog}", ownLog.ID).Replace(c.path)
		name := c.method + " " + path
		req, err := http.NewRequest(c.method, ts.URL+path, strings.NewReader(c.body))
		require.NoError(t, err)
		if c.contentType != "" {
			req.Header.Set("Content-Type", c.contentType)
		}
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		require.NoError(t, err)
		if !assert.Equal(t, c.status, resp.StatusCode, "%s: %s", name, body) {
			continue
		}
		route, params, err := router.FindRoute(req)
		if !assert.NoError(t, err, "%s: no operation in openapi.json", name) {
			continue
		}
		covered[strings.ToUpper(c.method)+" "+route.Path] = true
		req.Body = io.NopCloser(strings.NewReader(c.body))
		input := &openapi3filter.ResponseValidationInput{
			RequestValidationInput: &openapi3filter.RequestValidationInput{Request: req, PathParams: params, Route: route},
			Status:                 resp.StatusCode,
			Header:                 resp.Header,
			Body:                   io.NopCloser(bytes.NewReader(body)),
			Options:                &openapi3filter.Options{IncludeResponseStatus: true, MultiError: true},
		}
		if err := openapi3filter.ValidateResponse(ctx, input); err != nil {
			t.Errorf("%s: %d response does not conform: %v\nbody: %.300s", name, resp.StatusCode, err, body)
		}
	}

	err = chi.Walk(ts.handler.(chi.Routes), func(method, route string, _ http.Handler, _ ...func(http.Handler) http.Handler) error {
		if route == "/*" {
			return nil // the browser app's files
		}
		route = strings.TrimSuffix(route, "/")
		assert.True(t, covered[method+" "+route], "no conformance case for %s %s", method, route)
		return nil
	})
	require.NoError(t, err)

	// The validator is live: a body that breaks the schema, and a status
	// the document does not list, are rejected.
	req, err := http.NewRequest(http.MethodPost, ts.URL+"/api/v1/runs", nil)
	require.NoError(t, err)
	route, params, err := router.FindRoute(req)
	require.NoError(t, err)
	for status, body := range map[int]string{201: `{"id": 5}`, 418: `{}`} {
		input := &openapi3filter.ResponseValidationInput{
			RequestValidationInput: &openapi3filter.RequestValidationInput{Request: req, PathParams: params, Route: route},
			Status:                 status,
			Header:                 http.Header{"Content-Type": {"application/json"}},
			Body:                   io.NopCloser(strings.NewReader(body)),
			Options:                &openapi3filter.Options{IncludeResponseStatus: true},
		}
		assert.Error(t, openapi3filter.ValidateResponse(ctx, input), "%d %s passes", status, body)
	}
}
