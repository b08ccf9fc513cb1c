package api

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"

	"github.com/racetrack-sim/racetrack/core/scenario"
)

// fuzzServer is a server with an in-memory-sized store for fuzzing the
// request decoders through the real handlers.
func fuzzServer(f *testing.F) *testServer {
	f.Helper()
	st, err := OpenStore(f.TempDir() + "/fuzz.db")
	if err != nil {
		f.Fatal(err)
	}
	srv, err := New(Config{Registry: testRegistry(), Store: st, Logger: discardLogger(), MaxRunSteps: 100_000})
	if err != nil {
		f.Fatal(err)
	}
	ts := &testServer{Server: srv, store: st, http: httptest.NewUnstartedServer(nil)}
	f.Cleanup(ts.stop)
	return ts
}

// checkClientError fails unless err is nil or a 4xx problem.
func checkClientError(t *testing.T, err error) {
	t.Helper()
	if err == nil {
		return
	}
	var p *Problem
	var fe *scenario.FieldError
	switch {
	case errors.As(err, &p):
		if p.Status < 400 || p.Status > 499 || p.Detail == "" {
			t.Fatalf("problem %+v is not a 4xx with a detail", p)
		}
	case errors.As(err, &fe):
		if fe.Field == "" {
			t.Fatalf("field error without a field: %v", fe)
		}
	default:
		t.Fatalf("error %v is neither a problem nor a field error", err)
	}
}

func FuzzDecodeRunSpec(f *testing.F) {
	for _, s := range []string{philoSpec, `{}`, `{"scenario":"dining-philosophers","params":{"meals":1e300}}`,
		`{"scenario":"dining-philosophers","schedule":[1,2,3],"maxSteps":10}`, `{"seed":-0}`, `nul`, `{"params":{"a":[]}}`,
		`{"scenario":"dining-philosophers","preset":"lock-level","variant":"fixed","maxTime":0.5}`} {
		f.Add([]byte(s))
	}
	ts := fuzzServer(f)
	f.Fuzz(func(t *testing.T, body []byte) {
		spec, err := DecodeRunSpec(body)
		checkClientError(t, err)
		if err != nil {
			return
		}
		_, err = ts.rules.Normalize(spec)
		checkClientError(t, problemOf(err))
	})
}

// FuzzCreateRun drives POST /api/v1/runs end to end: never a 5xx.
func FuzzCreateRun(f *testing.F) {
	for _, s := range []string{philoSpec, `{"scenario":"dining-philosophers","schedule":[0,0,0,0,0,0,0,0,9]}`,
		`{"scenario":"dining-philosophers","params":{"philosophers":2,"meals":1},"maxSteps":5}`, `[]`, `{"scenario":1}`} {
		f.Add([]byte(s))
	}
	ts := fuzzServer(f)
	f.Fuzz(func(t *testing.T, body []byte) {
		req := httptest.NewRequest(http.MethodPost, "/api/v1/runs", bytes.NewReader(body))
		rec := httptest.NewRecorder()
		ts.Handler().ServeHTTP(rec, req)
		if rec.Code >= 500 {
			t.Fatalf("status %d for %q: %s", rec.Code, body, rec.Body)
		}
	})
}

func FuzzDecodeSearchRequest(f *testing.F) {
	for _, s := range []string{`{"scenario":"dining-philosophers","strategy":"bfs"}`,
		`{"scenario":"dining-philosophers","strategy":"random","budget":{"runs":5,"seconds":0.1},"seed":3}`,
		`{"scenario":"dining-philosophers","strategy":"pct","budget":{"states":-1}}`, `{"budget":null}`, `{"budget":{"x":1}}`,
		`{"scenario":"dining-philosophers","strategy":"dfs","property":"nope","params":{"meals":"x"}}`} {
		f.Add([]byte(s))
	}
	ts := fuzzServer(f)
	f.Fuzz(func(t *testing.T, body []byte) {
		req, err := DecodeSearchRequest(body)
		checkClientError(t, err)
		if err != nil {
			return
		}
		_, err = ts.planSearch(req)
		checkClientError(t, problemOf(err))
	})
}

// FuzzQueryParameters drives the GET routes' query decoders: never a 5xx.
func FuzzQueryParameters(f *testing.F) {
	f.Add("steps", "from", "3", "limit", "10")
	f.Add("state", "step", "-1", "", "")
	f.Add("diagram.svg", "from", "2", "to", "999999999999999999999")
	f.Add("export", "format", "shiviz", "", "")
	f.Add("find", "step", "1", "kind", "choice")
	f.Add("layout", "from", "1", "to", "0")
	f.Add("alternatives", "step", "3", "", "")
	f.Add("find", "back", "maybe", "kind", "lock")
	ts := fuzzServer(f)
	rec, err := ts.newRun(scenario.RunSpec{Scenario: "dining-philosophers", Seed: 1, MaxSteps: 2000})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, route, k1, v1, k2, v2 string) {
		q := url.Values{}
		q.Set(k1, v1)
		q.Set(k2, v2)
		u := &url.URL{Path: "/api/v1/runs/" + rec.id + "/" + route, RawQuery: q.Encode()}
		req := httptest.NewRequest(http.MethodGet, "/", nil)
		req.URL = u
		req.RequestURI = u.String()
		w := httptest.NewRecorder()
		ts.Handler().ServeHTTP(w, req)
		if w.Code >= 500 {
			t.Fatalf("status %d for %s: %s", w.Code, u, w.Body)
		}
	})
}

// FuzzCreateTrace drives POST /api/v1/traces end to end (the request
// decoder, the regular expressions, the importers, the budget): never a
// 5xx, a refusal always a problem naming a field, and an import's id
// always opens as a run.
func FuzzCreateTrace(f *testing.F) {
	for _, s := range []string{`{"format":"shiviz","log":"a x\na {\"a\":1}\nb y\nb {\"a\":1, \"b\":1}\n"}`,
		`{"format":"shiviz","parser":"(?<host>\\w+) (?<clock>{.*}) (?<event>.*)","log":"a {\"a\":1} hi"}`,
		`{"format":"shiviz","delimiter":"^=== (?<trace>.*) ===$","log":"=== 1 ===\na x\na {\"a\":1}\n=== 2 ===\nb y\nb {\"b\":1}"}`,
		`{"format":"ndjson","log":"{\"node\":\"a\",\"kind\":\"send\",\"msg\":1,\"to\":\"b\"}\n{\"node\":\"b\",\"kind\":\"receive\",\"msg\":1}\n"}`,
		`{"format":"json","log":"{\"id\":\"r1\"}"}`, `{"parser":"(a+)+$","log":"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa!"}`,
		`{"log":7}`, `{"format":"xml"}`, `[]`, `{"log":"x","id":"log-0"}`} {
		f.Add([]byte(s))
	}
	ts := fuzzServer(f)
	first := fuzzRequest(ts, http.MethodPost, tracesPath, []byte(`{"format":"shiviz","log":"a x\na {\"a\":1}\n"}`))
	if first.Code != http.StatusCreated {
		f.Fatalf("a valid log: %d %s", first.Code, first.Body)
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		rec := fuzzRequest(ts, http.MethodPost, tracesPath, body)
		switch {
		case rec.Code >= 500:
			t.Fatalf("status %d for %q: %s", rec.Code, body, rec.Body)
		case rec.Code == http.StatusCreated:
			loc := rec.Header().Get("Location")
			get := fuzzRequest(ts, http.MethodGet, loc+"/steps", nil)
			if get.Code != http.StatusOK {
				t.Fatalf("%s after importing %q: %d %s", loc, body, get.Code, get.Body)
			}
		case !bytes.Contains(rec.Body.Bytes(), []byte(`"field":`)):
			t.Fatalf("%d for %q names no field: %s", rec.Code, body, rec.Body)
		}
	})
}

// FuzzCreateValidation drives POST /api/v1/traces/{id}/validations with
// arbitrary bodies against a model's own exported run: never a 5xx, and
// every refusal names a field.
func FuzzCreateValidation(f *testing.F) {
	for _, s := range []string{`{"spec":{"scenario":"dining-philosophers","seed":4,"params":{"timed":false}},"mapping":"identity"}`,
		`{"spec":{"scenario":"dining-philosophers","params":{"timed":false,"philosophers":3}},"maxStates":10}`,
		`{"spec":{"scenario":"dining-philosophers"},"mapping":"x"}`, `{"spec":null}`, `{"maxStates":1e30}`, `[]`} {
		f.Add([]byte(s))
	}
	ts := fuzzServer(f)
	run, err := ts.newRun(scenario.RunSpec{Scenario: "dining-philosophers", Seed: 4, Params: map[string]any{"timed": false}})
	if err != nil {
		f.Fatal(err)
	}
	exp := fuzzRequest(ts, http.MethodGet, "/api/v1/runs/"+run.id+"/export?format=json", nil)
	body, _ := json.Marshal(map[string]string{"format": "json", "log": exp.Body.String()})
	imp := fuzzRequest(ts, http.MethodPost, tracesPath, body)
	var opened struct{ ID string }
	if err := json.Unmarshal(imp.Body.Bytes(), &opened); err != nil || imp.Code != http.StatusCreated {
		f.Fatalf("import: %d %s", imp.Code, imp.Body)
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		rec := fuzzRequest(ts, http.MethodPost, tracesPath+"/"+opened.ID+"/validations", body)
		switch {
		case rec.Code >= 500:
			t.Fatalf("status %d for %q: %s", rec.Code, body, rec.Body)
		case rec.Code != http.StatusOK && !bytes.Contains(rec.Body.Bytes(), []byte(`"field":`)):
			t.Fatalf("%d for %q names no field: %s", rec.Code, body, rec.Body)
		}
	})
}

// fuzzRequest serves one request as a client on loopback sends it: the
// host a loopback server answers, and a JSON body's media type; its
// context ends with it, as a server's does (what it held is let go).
func fuzzRequest(ts *testServer, method, path string, body []byte) *httptest.ResponseRecorder {
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	req := httptest.NewRequestWithContext(ctx, method, "http://127.0.0.1"+path, rd)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	rec := httptest.NewRecorder()
	ts.Handler().ServeHTTP(rec, req)
	return rec
}
