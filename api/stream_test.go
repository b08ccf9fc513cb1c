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
type message struct {
	Type string `json:"type"`
	Frame
	Length int            `json:"length"`
	Field  string         `json:"field"`
	Detail string         `json:"detail"`
	State  string         `json:"state"`
	Result *SearchResult  `json:"result"`
	Run    map[string]any `json:"run"`
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

func TestRunStreamPlaysStepsAndSeeks(t *testing.T) {
	ts := newTestServer(t)
	run := ts.createRun(t, philoSpec)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c := dial(t, ctx, wsURL(ts, "/api/v1/runs/"+run.ID+"/stream"), nil)
	defer c.CloseNow()

	hello := readMsg(t, ctx, c)
	require.Equal(t, "hello", hello.Type)
	assert.Equal(t, run.Steps, hello.Length)
	assert.Equal(t, run.ID, hello.Run["id"])

	first := readMsg(t, ctx, c)
	require.Equal(t, "frame", first.Type)
	assert.Equal(t, 0, first.Step)
	assert.True(t, first.Full)
	assert.NotEmpty(t, first.Changed, "the first frame carries every field")
	view := map[[2]string]string{}
	apply := func(m message) {
		for _, f := range m.Changed {
			view[[2]string{f.Group, f.Name}] = f.Value
		}
	}
	apply(first)

	send(t, ctx, c, `{"op":"speed","value":2000}`)
	send(t, ctx, c, `{"op":"play"}`)
	prev, edges, violations := 0, 0, 0
	last := readUntil(t, ctx, c, func(m message) {
		require.Equal(t, "frame", m.Type, "%+v", m)
		assert.GreaterOrEqual(t, m.Step, prev, "play moves forwards")
		prev = m.Step
		edges += len(m.Edges)
		violations += len(m.Violations)
		apply(m)
		for _, e := range m.Edges {
			assert.Less(t, e.From, e.To, "an edge points forwards in the run")
		}
	}, func(m message) bool { return m.End })
	assert.Equal(t, run.Steps-1, last.Step, "play runs to the last step")
	assert.False(t, last.Playing, "play stops at the end")
	assert.Positive(t, edges, "frames carry causal edges")
	assert.Equal(t, len(run.Violations), violations)

	// The view built from frames equals the state at the last step.
	var sv struct {
		Groups []struct {
			ID     string
			Fields []struct{ Name, Value string }
		}
	}
	ts.get(t, "/api/v1/runs/"+run.ID+"/state?step="+strconv.Itoa(last.Step)).json(t, &sv)
	for _, g := range sv.Groups {
		for _, f := range g.Fields {
			assert.Equal(t, f.Value, view[[2]string{g.ID, f.Name}], "%s.%s", g.ID, f.Name)
		}
	}

	send(t, ctx, c, `{"op":"seek","step":5}`)
	m := readUntil(t, ctx, c, apply, func(m message) bool { return m.Type == "frame" && m.Step == 5 })
	assert.False(t, m.Playing)
	assert.NotEmpty(t, m.Changed, "seeking back changes fields")
	send(t, ctx, c, `{"op":"step","n":-1}`)
	m = readUntil(t, ctx, c, apply, func(m message) bool { return m.Type == "frame" })
	assert.Equal(t, 4, m.Step)
	send(t, ctx, c, `{"op":"step"}`)
	m = readUntil(t, ctx, c, apply, func(m message) bool { return m.Type == "frame" })
	assert.Equal(t, 5, m.Step)

	send(t, ctx, c, `{"op":"seek","step":99999}`)
	m = readMsg(t, ctx, c)
	assert.Equal(t, "error", m.Type)
	assert.Equal(t, "step", m.Field)
	send(t, ctx, c, `{"op":"jump"}`)
	m = readMsg(t, ctx, c)
	assert.Equal(t, "error", m.Type)
	assert.Equal(t, "op", m.Field)
	send(t, ctx, c, `{"op":`)
	m = readMsg(t, ctx, c)
	assert.Equal(t, "error", m.Type)
	assert.Equal(t, "body", m.Field)

	require.NoError(t, c.Close(websocket.StatusNormalClosure, ""))
	waitStreams(t, ts, 0)
}

// waitStreams waits until the server counts n open streams.
func waitStreams(t *testing.T, ts *testServer, n int) {
	t.Helper()
	want := regexp.MustCompile(`racetrack_streams_open\{kind="run"\} ` + strconv.Itoa(n) + `\n`)
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

// TestRunStreamCutsOffSlowClient plays a long run at full speed to a
// client that never reads: the server must not slow down or buffer
// without bound, and cuts the client off.
func TestRunStreamCutsOffSlowClient(t *testing.T) {
	ts := newTestServer(t, func(c *Config) {
		c.StreamWriteTimeout = 200 * time.Millisecond
		c.FrameInterval = time.Millisecond
	})
	run := ts.createRun(t, `{"scenario":"dining-philosophers","seed":1,"params":{"philosophers":12,"meals":60}}`)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	c := dial(t, ctx, wsURL(ts, "/api/v1/runs/"+run.ID+"/stream?speed=100000"), nil)
	defer c.CloseNow()
	send(t, ctx, c, `{"op":"play"}`)

	deadline := time.Now().Add(45 * time.Second)
	for metric(t, ts, "racetrack_stream_slow_clients_closed_total") < 1 {
		require.True(t, time.Now().Before(deadline), "the slow client was never cut off")
		// Restart play when it reaches the end, without ever reading.
		_ = c.Write(ctx, websocket.MessageText, []byte(`{"op":"play"}`))
		time.Sleep(20 * time.Millisecond)
	}
	waitStreams(t, ts, 0)
	c.SetReadLimit(-1)
	var err error
	for err == nil {
		_, _, err = c.Read(ctx)
	}
	st := websocket.CloseStatus(err)
	t.Logf("the cut-off client's last read: %v", err)
	assert.NotEqual(t, websocket.StatusNormalClosure, st, "a cut-off client does not see a normal closure: %v", err)
	if st != -1 {
		assert.Equal(t, websocket.StatusPolicyViolation, st)
	}
}

func TestStreamOriginCheck(t *testing.T) {
	ts := newTestServer(t, func(c *Config) { c.AllowOrigins = []string{"friend.example:*"} })
	run := ts.createRun(t, philoSpec)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	url := wsURL(ts, "/api/v1/runs/"+run.ID+"/stream")

	_, res, err := websocket.Dial(ctx, url, &websocket.DialOptions{HTTPHeader: http.Header{"Origin": {"http://evil.example"}}})
	require.Error(t, err)
	require.NotNil(t, res)
	assert.Equal(t, http.StatusForbidden, res.StatusCode)
	assert.Equal(t, "application/problem+json", res.Header.Get("Content-Type"))

	c := dial(t, ctx, url, &websocket.DialOptions{HTTPHeader: http.Header{"Origin": {"http://friend.example:5173"}}})
	assert.Equal(t, "hello", readMsg(t, ctx, c).Type)
	c.Close(websocket.StatusNormalClosure, "")

	same := strings.Replace(ts.URL, "127.0.0.1", "127.0.0.1", 1)
	c = dial(t, ctx, url, &websocket.DialOptions{HTTPHeader: http.Header{"Origin": {same}}})
	assert.Equal(t, "hello", readMsg(t, ctx, c).Type)
	c.Close(websocket.StatusNormalClosure, "")
}

func TestStreamLimit(t *testing.T) {
	ts := newTestServer(t, func(c *Config) { c.MaxStreams = 1 })
	run := ts.createRun(t, philoSpec)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	url := wsURL(ts, "/api/v1/runs/"+run.ID+"/stream")
	c := dial(t, ctx, url, nil)
	defer c.CloseNow()
	readMsg(t, ctx, c)
	_, res, err := websocket.Dial(ctx, url, nil)
	require.Error(t, err)
	require.NotNil(t, res)
	assert.Equal(t, http.StatusTooManyRequests, res.StatusCode)
	assert.Equal(t, "5", res.Header.Get("Retry-After"))
}

func TestShutdownClosesStreamsGoingAway(t *testing.T) {
	ts := newTestServer(t)
	run := ts.createRun(t, philoSpec)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c := dial(t, ctx, wsURL(ts, "/api/v1/runs/"+run.ID+"/stream"), nil)
	defer c.CloseNow()
	readMsg(t, ctx, c)
	readMsg(t, ctx, c)
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
	run := ts.createRun(t, philoSpec)
	for _, c := range []struct {
		name, version, key, field string
	}{
		{"old version", "8", "dGhlIHNhbXBsZSBub25jZQ==", "Sec-WebSocket-Version"},
		{"no key", "13", "", "Sec-WebSocket-Key"},
	} {
		req, err := http.NewRequest(http.MethodGet, ts.URL+"/api/v1/runs/"+run.ID+"/stream", nil)
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
