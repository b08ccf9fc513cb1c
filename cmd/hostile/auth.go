package main

import (
	"context"
	"net/http"
	"strings"
	"time"

	"github.com/coder/websocket"

	"github.com/racetrack-sim/racetrack/api"
	"github.com/racetrack-sim/racetrack/internal/harness"
)

// authAttacks play issue 29's unauthenticated peer against a server that
// requires tokens, as one bound beyond loopback does (here on
// 127.0.0.1, its tokens given).
func (s *suite) authAttacks() {
	const full, readOnly = "hostile-full-token-0123456789", "hostile-read-only-token-0123"
	srv, err := harness.StartInProcess(func(c *api.Config) {
		c.Auth = &api.Auth{Tokens: []api.Token{{Secret: full}, {Secret: readOnly, ReadOnly: true}}}
	})
	if err != nil {
		s.record("auth: start a server with tokens", "it starts", err.Error(), false)
		return
	}
	defer srv.Stop()
	spec := `{"scenario":"dining-philosophers","seed":1}`
	search := `{"scenario":"dining-philosophers","strategy":"random","budget":{"runs":100}}`
	trace := `{"format":"shiviz","log":"a x\na {\"a\":1}\n"}`
	validation := `{"spec":{"scenario":"dining-philosophers","params":{"timed":false}}}`
	req := func(method, path, body, token string) int {
		var rd *strings.Reader
		if body == "" {
			rd = strings.NewReader("")
		} else {
			rd = strings.NewReader(body)
		}
		r, _ := http.NewRequest(method, srv.URL+path, rd)
		if body != "" {
			r.Header.Set("Content-Type", "application/json")
		}
		if token != "" {
			r.Header.Set("Authorization", "Bearer "+token)
		}
		res, err := s.client.Do(r)
		if err != nil {
			return 0
		}
		res.Body.Close()
		return res.StatusCode
	}
	for _, c := range []struct {
		name, method, path, body, token string
		want                            int
	}{
		{"auth: create a run without a token", "POST", "/api/v1/runs", spec, "", 401},
		{"auth: start a search without a token", "POST", "/api/v1/searches", search, "", 401},
		{"auth: cancel a search without a token", "DELETE", "/api/v1/searches/s0123456789abcdef", "", "", 401},
		{"auth: list scenarios with a wrong token", "GET", "/api/v1/scenarios", "", "hostile-full-token-012345678", 401},
		{"auth: a token's prefix", "GET", "/api/v1/scenarios", "", full[:12], 401},
		{"auth: read-only token creates a run", "POST", "/api/v1/runs", spec, readOnly, 403},
		{"auth: read-only token starts a search", "POST", "/api/v1/searches", search, readOnly, 403},
		{"auth: import a log without a token", "POST", "/api/v1/traces", trace, "", 401},
		{"auth: read-only token imports a log", "POST", "/api/v1/traces", trace, readOnly, 403},
		{"auth: full token imports a log", "POST", "/api/v1/traces", trace, full, 201},
		{"auth: validate a log without a token", "POST", "/api/v1/traces/log-0123456789abcdef/validations", validation, "", 401},
		{"auth: read-only token validates a log", "POST", "/api/v1/traces/log-0123456789abcdef/validations", validation, readOnly, 403},
		{"auth: read-only token lists scenarios", "GET", "/api/v1/scenarios", "", readOnly, 200},
		{"auth: /healthz without a token", "GET", "/healthz", "", "", 200},
	} {
		got := req(c.method, c.path, c.body, c.token)
		s.record(c.name, http.StatusText(c.want), http.StatusText(got), got == c.want)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	conn, res, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(srv.URL, "http")+"/api/v1/session", nil)
	if conn != nil {
		conn.Close(websocket.StatusNormalClosure, "")
	}
	status := 0
	if res != nil {
		status = res.StatusCode
	}
	s.record("auth: session socket without a token", "Unauthorized", http.StatusText(status), err != nil && status == 401)
}
