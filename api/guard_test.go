package api

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/racetrack-sim/racetrack/core/scenario"
)

// send posts or gets with the given headers ("Host" sets the Host line).
func (ts *testServer) send(t *testing.T, method, path, body string, hdr map[string]string) response {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, ts.URL+path, rd)
	require.NoError(t, err)
	for k, v := range hdr {
		if k == "Host" {
			req.Host = v
			continue
		}
		req.Header.Set(k, v)
	}
	res, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	require.NoError(t, err)
	return response{Status: res.StatusCode, Header: res.Header, Body: b}
}

func TestPostBodiesMustBeDeclaredJSON(t *testing.T) {
	ts := newTestServer(t)
	for _, c := range []struct {
		ct     string
		status int
	}{
		{"", http.StatusUnsupportedMediaType},
		{"text/plain", http.StatusUnsupportedMediaType},
		{"text/plain;charset=UTF-8", http.StatusUnsupportedMediaType},
		{"multipart/form-data; boundary=x", http.StatusUnsupportedMediaType},
		{"application/json; charset=utf-8", http.StatusCreated},
	} {
		hdr := map[string]string{}
		if c.ct != "" {
			hdr["Content-Type"] = c.ct
		}
		res := ts.send(t, http.MethodPost, "/api/v1/runs", philoSpec, hdr)
		require.Equal(t, c.status, res.Status, "Content-Type %q: %s", c.ct, res.Body)
		if c.status >= 400 {
			assert.Equal(t, "Content-Type", res.problem(t).Field)
		}
	}
	res := ts.send(t, http.MethodPost, "/api/v1/searches", `{"scenario":"dining-philosophers","strategy":"random"}`, map[string]string{"Content-Type": "text/plain"})
	assert.Equal(t, http.StatusUnsupportedMediaType, res.Status)
	recs, err := ts.store.Searches()
	require.NoError(t, err)
	assert.Empty(t, recs, "a refused search leaves no record")
}

func TestCrossSiteUnsafeRequestsAreRefused(t *testing.T) {
	ts := newTestServer(t, func(c *Config) { c.AllowOrigins = []string{"localhost:5173"} })
	json := map[string]string{"Content-Type": "application/json"}
	with := func(extra map[string]string) map[string]string {
		out := map[string]string{"Content-Type": "application/json"}
		for k, v := range extra {
			out[k] = v
		}
		return out
	}
	for _, c := range []struct {
		name   string
		hdr    map[string]string
		status int
	}{
		{"no browser headers (curl)", json, http.StatusCreated},
		{"cross-site fetch", with(map[string]string{"Origin": "https://evil.example", "Sec-Fetch-Site": "cross-site"}), http.StatusForbidden},
		{"same-site but another origin", with(map[string]string{"Origin": "https://sub.example", "Sec-Fetch-Site": "same-site"}), http.StatusForbidden},
		{"old browser, foreign Origin", with(map[string]string{"Origin": "https://evil.example"}), http.StatusForbidden},
		{"same origin", with(map[string]string{"Origin": ts.URL, "Sec-Fetch-Site": "same-origin"}), http.StatusCreated},
		{"trusted dev origin", with(map[string]string{"Origin": "http://localhost:5173", "Sec-Fetch-Site": "cross-site"}), http.StatusCreated},
	} {
		res := ts.send(t, http.MethodPost, "/api/v1/runs", philoSpec, c.hdr)
		require.Equal(t, c.status, res.Status, "%s: %s", c.name, res.Body)
		if c.status == http.StatusForbidden {
			assert.Equal(t, "Origin", res.problem(t).Field, c.name)
		}
	}
	// A safe method from anywhere is served: it changes nothing.
	res := ts.send(t, http.MethodGet, "/api/v1/scenarios", "", map[string]string{"Origin": "https://evil.example", "Sec-Fetch-Site": "cross-site"})
	assert.Equal(t, http.StatusOK, res.Status)
	// DELETE is unsafe too.
	res = ts.send(t, http.MethodDelete, "/api/v1/searches/s0000000000000000", "", map[string]string{"Origin": "https://evil.example", "Sec-Fetch-Site": "cross-site"})
	assert.Equal(t, http.StatusForbidden, res.Status)
}

func TestHostHeaderIsChecked(t *testing.T) {
	ts := newTestServer(t, func(c *Config) { c.AllowedHosts = []string{"*.racetrack.example"} })
	port := ts.URL[strings.LastIndex(ts.URL, ":")+1:]
	for host, status := range map[string]int{
		"127.0.0.1:" + port:              http.StatusOK,
		"localhost:" + port:              http.StatusOK,
		"[::1]:" + port:                  http.StatusOK,
		"10.1.2.3":                       http.StatusOK,
		"a.racetrack.example:" + port:    http.StatusOK,
		"evil.example:" + port:           http.StatusMisdirectedRequest,
		"racetrack.example.evil.example": http.StatusMisdirectedRequest,
		"localhost.evil.example":         http.StatusMisdirectedRequest,
	} {
		res := ts.send(t, http.MethodGet, "/api/v1/scenarios", "", map[string]string{"Host": host})
		require.Equal(t, status, res.Status, "Host %s: %s", host, res.Body)
		if status != http.StatusOK {
			assert.Equal(t, "Host", res.problem(t).Field)
		}
	}
	// The WebSocket routes are behind the same check.
	run := ts.createRun(t, philoSpec)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, res, err := websocket.Dial(ctx, wsURL(ts, "/api/v1/runs/"+run.ID+"/stream"), &websocket.DialOptions{Host: "evil.example:" + port})
	require.Error(t, err)
	require.NotNil(t, res)
	assert.Equal(t, http.StatusMisdirectedRequest, res.StatusCode)
}

func TestStreamOriginIsCheckedBeforeTheRunIsComputed(t *testing.T) {
	ts := newTestServer(t)
	ns, _, err := ts.reg.Normalize(mustDecodeSpec(t, philoSpec))
	require.NoError(t, err)
	require.NoError(t, ts.store.PutRun(ns)) // known id, not in the cache
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, res, err := websocket.Dial(ctx, wsURL(ts, "/api/v1/session"),
		&websocket.DialOptions{HTTPHeader: http.Header{"Origin": {"http://evil.example"}}})
	require.Error(t, err)
	require.NotNil(t, res)
	assert.Equal(t, http.StatusForbidden, res.StatusCode)
	assert.Zero(t, ts.timelines.len(), "the refused stream's run was not computed")
}

func TestMethodNotAllowedSaysAllow(t *testing.T) {
	ts := newTestServer(t)
	res := ts.send(t, http.MethodDelete, "/api/v1/runs", "", nil)
	require.Equal(t, http.StatusMethodNotAllowed, res.Status)
	assert.Equal(t, "POST", res.Header.Get("Allow"))
	res = ts.send(t, http.MethodPost, "/api/v1/searches/s0123456789abcdef", "{}", map[string]string{"Content-Type": "application/json"})
	require.Equal(t, http.StatusMethodNotAllowed, res.Status)
	assert.Equal(t, "GET, DELETE", res.Header.Get("Allow"))
	res = ts.send(t, http.MethodHead, "/healthz", "", nil)
	assert.Equal(t, http.StatusOK, res.Status)
	assert.Empty(t, res.Body)
}

func mustDecodeSpec(t *testing.T, body string) scenario.RunSpec {
	t.Helper()
	spec, err := DecodeRunSpec([]byte(body))
	require.NoError(t, err)
	return spec
}
