package api

import (
	"context"
	"encoding/json"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func wsURL(ts *testServer, path string) string {
	return "ws" + strings.TrimPrefix(ts.URL, "http") + path
}

func dial(t *testing.T, ctx context.Context, url string, opts *websocket.DialOptions) *websocket.Conn {
	t.Helper()
	c, res, err := websocket.Dial(ctx, url, opts)
	if res != nil && res.Body != nil {
		res.Body.Close()
	}
	require.NoError(t, err)
	return c
}

// message is any server message of a stream.
// message is a message of a search stream.
type message struct {
	Type   string        `json:"type"`
	State  string        `json:"state"`
	Result *SearchResult `json:"result"`
}

func readMsg(t *testing.T, ctx context.Context, c *websocket.Conn) message {
	t.Helper()
	_, b, err := c.Read(ctx)
	require.NoError(t, err)
	var m message
	require.NoError(t, json.Unmarshal(b, &m), "%s", b)
	return m
}

func send(t *testing.T, ctx context.Context, c *websocket.Conn, cmd string) {
	t.Helper()
	require.NoError(t, c.Write(ctx, websocket.MessageText, []byte(cmd)))
}

// readUntil reads frames until one satisfies done, checking each.
func readUntil(t *testing.T, ctx context.Context, c *websocket.Conn, each func(message), done func(message) bool) message {
	t.Helper()
	for {
		m := readMsg(t, ctx, c)
		if each != nil {
			each(m)
		}
		if done(m) {
			return m
		}
	}
}

// waitStreams waits until the server counts n open streams of a kind.
func waitStreams(t *testing.T, ts *testServer, kind string, n int) {
	t.Helper()
	want := regexp.MustCompile(`racetrack_streams_open\{kind="` + kind + `"\} ` + strconv.Itoa(n) + `\n`)
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if want.Match(ts.get(t, "/metrics").Body) {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("streams open never reached %d", n)
}

func metric(t *testing.T, ts *testServer, name string) float64 {
	t.Helper()
	m := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(name) + ` (\S+)$`).FindSubmatch(ts.get(t, "/metrics").Body)
	require.NotNil(t, m, "metric %s", name)
	v, err := strconv.ParseFloat(string(m[1]), 64)
	require.NoError(t, err)
	return v
}

func TestStreamOriginCheck(t *testing.T) {
	ts := newTestServer(t, func(c *Config) { c.AllowOrigins = []string{"friend.example:*"} })
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	url := wsURL(ts, "/api/v1/session")

	_, res, err := websocket.Dial(ctx, url, &websocket.DialOptions{HTTPHeader: http.Header{"Origin": {"http://evil.example"}}})
	require.Error(t, err)
	require.NotNil(t, res)
	assert.Equal(t, http.StatusForbidden, res.StatusCode)
	assert.Equal(t, "application/problem+json", res.Header.Get("Content-Type"))

	c := &sessionClient{t: t, ctx: ctx, c: dial(t, ctx, url, &websocket.DialOptions{HTTPHeader: http.Header{"Origin": {"http://friend.example:5173"}}})}
	assert.Nil(t, c.call("scenarios", `{}`).Error)
	c.c.Close(websocket.StatusNormalClosure, "")

	c = &sessionClient{t: t, ctx: ctx, c: dial(t, ctx, url, &websocket.DialOptions{HTTPHeader: http.Header{"Origin": {ts.URL}}})}
	assert.Nil(t, c.call("scenarios", `{}`).Error)
	c.c.Close(websocket.StatusNormalClosure, "")
}

func TestStreamLimit(t *testing.T) {
	ts := newTestServer(t, func(c *Config) { c.MaxStreams = 1 })
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	url := wsURL(ts, "/api/v1/session")
	c := dial(t, ctx, url, nil)
	defer c.CloseNow()
	waitStreams(t, ts, "session", 1)
	_, res, err := websocket.Dial(ctx, url, nil)
	require.Error(t, err)
	require.NotNil(t, res)
	assert.Equal(t, http.StatusTooManyRequests, res.StatusCode)
	assert.Equal(t, "5", res.Header.Get("Retry-After"))
}

func TestShutdownClosesStreamsGoingAway(t *testing.T) {
	ts := newTestServer(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	sc := &sessionClient{t: t, ctx: ctx, c: dial(t, ctx, wsURL(ts, "/api/v1/session"), nil)}
	c := sc.c
	defer c.CloseNow()
	sc.call("scenarios", `{}`)
	go func() { _ = ts.Shutdown(ctx) }()
	var err error
	for err == nil {
		_, _, err = c.Read(ctx)
	}
	assert.Equal(t, websocket.StatusGoingAway, websocket.CloseStatus(err), "%v", err)
}

func TestSearchStreamReportsTheResult(t *testing.T) {
	ts := newTestServer(t)
	res := ts.post(t, "/api/v1/searches", `{"scenario":"dining-philosophers","preset":"lock-level","strategy":"bfs","property":"no-deadlock","params":{"philosophers":3}}`)
	require.Equal(t, http.StatusAccepted, res.Status, "%s", res.Body)
	var created struct{ ID string }
	res.json(t, &created)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	c := dial(t, ctx, wsURL(ts, "/api/v1/searches/"+created.ID+"/stream"), nil)
	defer c.CloseNow()
	m := readUntil(t, ctx, c, func(m message) {
		assert.Contains(t, []string{"progress", "result"}, m.Type)
	}, func(m message) bool { return m.Type == "result" })
	assert.Equal(t, StateDone, m.State)
	require.NotNil(t, m.Result)
	assert.True(t, m.Result.Found)
	assert.Equal(t, "no-deadlock", m.Result.Property)
	_, _, err := c.Read(ctx)
	assert.Equal(t, websocket.StatusNormalClosure, websocket.CloseStatus(err), "%v", err)

	// A finished search streams its stored result at once.
	c2 := dial(t, ctx, wsURL(ts, "/api/v1/searches/"+created.ID+"/stream"), nil)
	defer c2.CloseNow()
	m = readMsg(t, ctx, c2)
	assert.Equal(t, "result", m.Type)
	assert.True(t, m.Result.Found)
}

func TestStreamHandshakeErrorsAreProblems(t *testing.T) {
	ts := newTestServer(t)
	for _, c := range []struct {
		name, version, key, field string
	}{
		{"old version", "8", "dGhlIHNhbXBsZSBub25jZQ==", "Sec-WebSocket-Version"},
		{"no key", "13", "", "Sec-WebSocket-Key"},
	} {
		req, err := http.NewRequest(http.MethodGet, ts.URL+"/api/v1/session", nil)
		require.NoError(t, err)
		req.Header.Set("Connection", "Upgrade")
		req.Header.Set("Upgrade", "websocket")
		req.Header.Set("Sec-WebSocket-Version", c.version)
		if c.key != "" {
			req.Header.Set("Sec-WebSocket-Key", c.key)
		}
		res, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		res.Body.Close()
		assert.Equal(t, http.StatusBadRequest, res.StatusCode, c.name)
		assert.Equal(t, "application/problem+json", res.Header.Get("Content-Type"), c.name)
	}
}
