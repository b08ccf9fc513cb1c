package api

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const (
	fullToken     = "full-token-0123456789abcdef"
	readOnlyToken = "read-only-token-0123456789"
)

func withAuth(protectProbes bool) func(*Config) {
	return func(c *Config) {
		c.Auth = &Auth{Tokens: []Token{{Secret: fullToken}, {Secret: readOnlyToken, ReadOnly: true}}, ProtectProbes: protectProbes}
	}
}

// authReq makes a request with an optional bearer token and cookie, without
// following redirects.
func authReq(t *testing.T, method, url, bearer string, cookie *http.Cookie, body string) *http.Response {
	t.Helper()
	var rd *strings.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	var req *http.Request
	var err error
	if rd != nil {
		req, err = http.NewRequest(method, url, rd)
		req.Header.Set("Content-Type", "application/json")
	} else {
		req, err = http.NewRequest(method, url, nil)
	}
	require.NoError(t, err)
	if bearer != "" {
		req.Header.Set("Authorization", "Bearer "+bearer)
	}
	if cookie != nil {
		req.AddCookie(cookie)
	}
	c := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	res, err := c.Do(req)
	require.NoError(t, err)
	res.Body.Close()
	return res
}

// Without a token nothing but the probes answers; a wrong token, a
// token's prefix or a token in another header are refused alike.
func TestAuthRequiresAToken(t *testing.T) {
	ts := newTestServer(t, withAuth(false))
	for _, bearer := range []string{"", "wrong", fullToken[:10], fullToken + "x"} {
		res := authReq(t, http.MethodGet, ts.URL+"/api/v1/scenarios", bearer, nil, "")
		assert.Equal(t, http.StatusUnauthorized, res.StatusCode, "token %q", bearer)
		assert.Contains(t, res.Header.Get("WWW-Authenticate"), "Bearer")
	}
	res := authReq(t, http.MethodPost, ts.URL+"/api/v1/runs", "", nil, philoSpec)
	assert.Equal(t, http.StatusUnauthorized, res.StatusCode, "a run without a token")
	assert.Equal(t, http.StatusOK, authReq(t, http.MethodGet, ts.URL+"/api/v1/scenarios", fullToken, nil, "").StatusCode)
	assert.Equal(t, http.StatusCreated, authReq(t, http.MethodPost, ts.URL+"/api/v1/runs", fullToken, nil, philoSpec).StatusCode)
	assert.Equal(t, http.StatusOK, authReq(t, http.MethodGet, ts.URL+"/healthz", "", nil, "").StatusCode, "probes stay open by default")
	assert.Equal(t, http.StatusOK, authReq(t, http.MethodGet, ts.URL+"/metrics", "", nil, "").StatusCode)
}

// With ProtectProbes the probes need the token too.
func TestAuthCanProtectTheProbes(t *testing.T) {
	ts := newTestServer(t, withAuth(true))
	assert.Equal(t, http.StatusUnauthorized, authReq(t, http.MethodGet, ts.URL+"/metrics", "", nil, "").StatusCode)
	assert.Equal(t, http.StatusOK, authReq(t, http.MethodGet, ts.URL+"/metrics", fullToken, nil, "").StatusCode)
}

// The login URL sets an HttpOnly, SameSite cookie and redirects to the
// page without the token in the address; a share link with the token
// redirects to itself. The cookie then opens the page and the API.
func TestLoginURLSetsTheCookie(t *testing.T) {
	ts := newTestServer(t, withAuth(false))
	res := authReq(t, http.MethodGet, ts.URL+"/login?token="+fullToken, "", nil, "")
	require.Equal(t, http.StatusSeeOther, res.StatusCode)
	assert.Equal(t, "/", res.Header.Get("Location"))
	var cookie *http.Cookie
	for _, c := range res.Cookies() {
		if c.Name == AuthCookie {
			cookie = c
		}
	}
	require.NotNil(t, cookie)
	assert.True(t, cookie.HttpOnly)
	assert.Equal(t, http.SameSiteStrictMode, cookie.SameSite)
	assert.Equal(t, http.StatusOK, authReq(t, http.MethodGet, ts.URL+"/api/v1/scenarios", "", cookie, "").StatusCode)

	share := authReq(t, http.MethodGet, ts.URL+"/?run=r0123&token="+fullToken, "", nil, "")
	require.Equal(t, http.StatusSeeOther, share.StatusCode)
	assert.Equal(t, "/?run=r0123", share.Header.Get("Location"), "a share link keeps its own query")

	bad := authReq(t, http.MethodGet, ts.URL+"/login?token=wrong", "", nil, "")
	assert.Equal(t, http.StatusUnauthorized, bad.StatusCode)
	assert.Empty(t, bad.Cookies())
}

// A read-only token views and exports runs but starts nothing: no POST,
// no DELETE, no session socket.
func TestReadOnlyTokenStartsNothing(t *testing.T) {
	ts := newTestServer(t, withAuth(false))
	run := authReq(t, http.MethodPost, ts.URL+"/api/v1/runs", fullToken, nil, philoSpec)
	require.Equal(t, http.StatusCreated, run.StatusCode)
	loc := run.Header.Get("Location")
	require.NotEmpty(t, loc)
	assert.Equal(t, http.StatusOK, authReq(t, http.MethodGet, ts.URL+loc, readOnlyToken, nil, "").StatusCode, "view a run")
	assert.Equal(t, http.StatusOK, authReq(t, http.MethodGet, ts.URL+loc+"/export?format=json", readOnlyToken, nil, "").StatusCode, "export a run")
	assert.Equal(t, http.StatusForbidden, authReq(t, http.MethodPost, ts.URL+"/api/v1/runs", readOnlyToken, nil, philoSpec).StatusCode, "start a run")
	assert.Equal(t, http.StatusForbidden, authReq(t, http.MethodPost, ts.URL+"/api/v1/searches", readOnlyToken, nil, `{}`).StatusCode, "start a search")
	assert.Equal(t, http.StatusForbidden, authReq(t, http.MethodDelete, ts.URL+"/api/v1/searches/s0123456789abcdef", readOnlyToken, nil, "").StatusCode, "cancel a search")
	assert.Equal(t, http.StatusForbidden, authReq(t, http.MethodGet, ts.URL+"/api/v1/session", readOnlyToken, nil, "").StatusCode, "open a session")
}

// The session WebSocket takes the bearer header and refuses a dial
// without it.
func TestSessionSocketNeedsTheToken(t *testing.T) {
	ts := newTestServer(t, withAuth(false))
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_, res, err := websocket.Dial(ctx, wsURL(ts, "/api/v1/session"), nil)
	require.Error(t, err)
	require.NotNil(t, res)
	assert.Equal(t, http.StatusUnauthorized, res.StatusCode)
	c, _, err := websocket.Dial(ctx, wsURL(ts, "/api/v1/session"), &websocket.DialOptions{HTTPHeader: http.Header{"Authorization": {"Bearer " + fullToken}}})
	require.NoError(t, err)
	c.Close(websocket.StatusNormalClosure, "")
}

// No token configured: nothing changes (loopback).
func TestNoAuthOnLoopbackIsUnchanged(t *testing.T) {
	ts := newTestServer(t)
	assert.Equal(t, http.StatusOK, authReq(t, http.MethodGet, ts.URL+"/api/v1/scenarios", "", nil, "").StatusCode)
}

// Tokens match only whole: equal digests, in constant time.
func TestTokenMatch(t *testing.T) {
	ds := digestTokens([]Token{{Secret: "aaaaaaaaaaaaaaaa"}, {Secret: "bbbbbbbbbbbbbbbb", ReadOnly: true}})
	d, ok := match(ds, "bbbbbbbbbbbbbbbb")
	assert.True(t, ok)
	assert.True(t, d.readOnly)
	for _, s := range []string{"", "a", "aaaaaaaaaaaaaaa", "aaaaaaaaaaaaaaaaa"} {
		_, ok := match(ds, s)
		assert.False(t, ok, s)
	}
}
