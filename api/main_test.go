package api

import (
	"context"
	"encoding/json"
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

// do sends a request, with a JSON body when body is not nil.
func (ts *testServer) do(t *testing.T, method, path string, body []byte) response {
	t.Helper()
	if body == nil {
		return ts.send(t, method, path, "", nil)
	}
	return ts.send(t, method, path, string(body), map[string]string{"Content-Type": "application/json"})
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
