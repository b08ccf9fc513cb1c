package api

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/racetrack-sim/racetrack/core/philo"
	"github.com/racetrack-sim/racetrack/core/scenario"
)

func TestMain(m *testing.M) {
	if os.Getenv(killChildEnv) != "" {
		killChild()
		return
	}
	goleak.VerifyTestMain(m)
}

// testRegistry holds only the example model, so these tests do not move
// when scenarios are added to the catalog.
func testRegistry() *scenario.Registry { return scenario.NewRegistry(philo.Scenario()) }

type testServer struct {
	*Server
	URL   string
	http  *httptest.Server
	store *Store
	path  string
}

// newTestServer starts a server on a fresh store (or on path, if given
// through cfg.Store being nil and storePath set by the caller).
func newTestServer(t *testing.T, opts ...func(*Config)) *testServer {
	t.Helper()
	return startTestServer(t, filepath.Join(t.TempDir(), "racetrack.db"), opts...)
}

func startTestServer(t *testing.T, path string, opts ...func(*Config)) *testServer {
	t.Helper()
	st, err := OpenStore(path)
	require.NoError(t, err)
	cfg := Config{Registry: testRegistry(), Store: st, Logger: slog.New(slog.DiscardHandler)}
	for _, o := range opts {
		o(&cfg)
	}
	srv, err := New(cfg)
	require.NoError(t, err)
	hs := httptest.NewServer(srv.Handler())
	ts := &testServer{Server: srv, URL: hs.URL, http: hs, store: st, path: path}
	t.Cleanup(ts.stop)
	return ts
}

// stop shuts the server down and closes its store; it is idempotent.
func (ts *testServer) stop() {
	if ts.http == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_ = ts.Shutdown(ctx)
	ts.http.Close()
	_ = ts.store.Close()
	ts.http = nil
}

type response struct {
	Status int
	Header http.Header
	Body   []byte
}

func (r response) json(t *testing.T, v any) {
	t.Helper()
	require.NoError(t, json.Unmarshal(r.Body, v), "body: %s", r.Body)
}

func (r response) problem(t *testing.T) Problem {
	t.Helper()
	require.Equal(t, "application/problem+json", r.Header.Get("Content-Type"), "body: %s", r.Body)
	var p Problem
	r.json(t, &p)
	require.Equal(t, r.Status, p.Status)
	require.NotEmpty(t, p.Title)
	require.NotEmpty(t, p.Detail)
	return p
}

func (ts *testServer) do(t *testing.T, method, path string, body []byte) response {
	t.Helper()
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequest(method, ts.URL+path, rd)
	require.NoError(t, err)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	res, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	require.NoError(t, err)
	return response{Status: res.StatusCode, Header: res.Header, Body: b}
}

func (ts *testServer) get(t *testing.T, path string) response {
	return ts.do(t, http.MethodGet, path, nil)
}

func (ts *testServer) post(t *testing.T, path, body string) response {
	return ts.do(t, http.MethodPost, path, []byte(body))
}

// createRun posts spec and returns its summary.
func (ts *testServer) createRun(t *testing.T, spec string) scenario.Summary {
	t.Helper()
	res := ts.post(t, "/api/v1/runs", spec)
	require.Equal(t, http.StatusCreated, res.Status, "body: %s", res.Body)
	var sum scenario.Summary
	res.json(t, &sum)
	return sum
}
