package serve

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"io"
	iofs "io/fs"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"testing/fstest"
	"time"

	"github.com/coder/websocket"

	"github.com/racetrack-sim/racetrack/core/bank"
	"github.com/racetrack-sim/racetrack/core/catalog"
	"github.com/racetrack-sim/racetrack/core/scenario"
	"github.com/racetrack-sim/racetrack/static"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func builtin() Config { return Config{Registry: catalog.New(), Wasm: static.Wasm()} }

// syncBuffer collects the server's log.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// start runs the server until the returned stop is called; stop returns
// run's error.
func start(t *testing.T, data string, extra ...string) (string, func() error) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	addrs := make(chan string, 1)
	done := make(chan error, 1)
	var log syncBuffer
	go func() {
		args := append([]string{"-addr", "127.0.0.1:0", "-data", data}, extra...)
		done <- Run(ctx, builtin(), "server", args, &log, func(a string) { addrs <- a })
	}()
	select {
	case a := <-addrs:
		return "http://" + a, func() error {
			cancel()
			return <-done
		}
	case err := <-done:
		cancel()
		t.Fatalf("server did not start: %v\n%s", err, log.String())
	}
	return "", nil
}

// TestGracefulShutdownAndRestart: a SIGTERM-like stop closes open streams
// with going-away and returns cleanly; a new server on the same store
// resolves the run id handed out before.
func TestGracefulShutdownAndRestart(t *testing.T) {
	data := filepath.Join(t.TempDir(), "server.db")
	base, stop := start(t, data, "-static", t.TempDir())

	res, err := http.Post(base+"/api/v1/runs", "application/json", strings.NewReader(`{"scenario":"dining-philosophers","seed":5}`))
	require.NoError(t, err)
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	require.Equal(t, http.StatusCreated, res.StatusCode, "%s", body)
	var sum struct{ ID string }
	require.NoError(t, json.Unmarshal(body, &sum))

	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	c, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(base, "http")+"/api/v1/session", nil)
	require.NoError(t, err)
	defer c.CloseNow()
	require.NoError(t, c.Write(ctx, websocket.MessageText, []byte(`{"id":1,"method":"open","args":{"spec":{"scenario":"dining-philosophers","seed":5}}}`)))
	_, _, err = c.Read(ctx)
	require.NoError(t, err)
	require.NoError(t, c.Write(ctx, websocket.MessageText, []byte(`{"id":2,"method":"play","args":{"run":"`+sum.ID+`","speed":1}}`)))
	_, b, err := c.Read(ctx)
	require.NoError(t, err)
	require.Contains(t, string(b), `"frame"`, "a playback is streaming when the server stops")

	stopped := make(chan error, 1)
	go func() { stopped <- stop() }()
	for err == nil {
		_, _, err = c.Read(ctx)
	}
	assert.Equal(t, websocket.StatusGoingAway, websocket.CloseStatus(err), "%v", err)
	require.NoError(t, <-stopped, "a graceful stop is not an error")

	base, stop = start(t, data)
	defer func() { require.NoError(t, stop()) }()
	res, err = http.Get(base + "/api/v1/runs/" + sum.ID)
	require.NoError(t, err)
	res.Body.Close()
	assert.Equal(t, http.StatusOK, res.StatusCode, "the run id resolves after a restart")
	http.DefaultClient.CloseIdleConnections()
}

func TestBadCommandLine(t *testing.T) {
	db := filepath.Join(t.TempDir(), "x.db")
	for _, args := range [][]string{{"-nope"}, {"stray"}, {"-addr", "127.0.0.1:0", "extra"},
		{"-data", db, "-nats-lost-after", "100ms"}, {"-data", db, "-nats-replicas", "9"}} {
		err := Run(context.Background(), builtin(), "server", args, io.Discard, nil)
		var ue *UsageError
		assert.ErrorAs(t, err, &ue, "%q", args)
	}
	assert.ErrorIs(t, Run(context.Background(), builtin(), "server", []string{"-h"}, io.Discard, nil), flag.ErrHelp)
}

// TestWithoutWasmBuild: a binary that carries no app.wasm (a plain go
// install) still serves the page, and its engine.json tells the page to
// use the server engine.
func TestWithoutWasmBuild(t *testing.T) {
	fss := Files(nil)
	b, err := iofs.ReadFile(fss[0], "engine.json")
	require.NoError(t, err)
	var eng struct {
		Engine string `json:"engine"`
		Wasm   *bool  `json:"wasm"`
	}
	require.NoError(t, json.Unmarshal(b, &eng))
	assert.Equal(t, "server", eng.Engine)
	require.NotNil(t, eng.Wasm)
	assert.False(t, *eng.Wasm)
	for _, name := range []string{"index.html", "js/app.js", "worker.js"} {
		found := false
		for _, fsys := range fss {
			if _, err := iofs.Stat(fsys, name); err == nil {
				found = true
			}
		}
		assert.True(t, found, "%s is served", name)
	}
	withWasm := Files(fstest.MapFS{"app.wasm": {Data: []byte("\x00asm")}})
	b, err = iofs.ReadFile(withWasm[0], "engine.json")
	require.NoError(t, err)
	assert.Contains(t, string(b), `"auto"`, "with a wasm build the page picks its engine as before")
}

// TestRunLimitBelowAPresetIsAConfigError: a step limit that would refuse
// a shipped preset's defaults stops the server at startup, naming the
// preset; the default limit admits every preset.
func TestRunLimitBelowAPresetIsAConfigError(t *testing.T) {
	err := Run(context.Background(), builtin(), "server", []string{"-addr", "127.0.0.1:0", "-data", filepath.Join(t.TempDir(), "s.db"), "-max-run-steps", "500000"}, io.Discard, nil)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "scylla-mv-backlog/steady-hot-shard")
	base, stop := start(t, filepath.Join(t.TempDir(), "server.db"))
	defer func() { require.NoError(t, stop()) }()
	res, err := http.Post(base+"/api/v1/runs", "application/json", strings.NewReader(`{"scenario":"scylla-mv-backlog","preset":"steady-hot-shard","maxSteps":5}`))
	require.NoError(t, err)
	res.Body.Close()
	assert.Equal(t, http.StatusCreated, res.StatusCode)
	http.DefaultClient.CloseIdleConnections()
}

// TestServesTheEmbeddedPage: without -static the binary serves the page
// and the wasm build it carries, whatever the working directory.
func TestServesTheEmbeddedPage(t *testing.T) {
	base, stop := start(t, filepath.Join(t.TempDir(), "server.db"))
	defer func() { require.NoError(t, stop()) }()
	get := func(p string) (int, string) {
		res, err := http.Get(base + p)
		require.NoError(t, err)
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res.StatusCode, string(b)
	}
	code, body := get("/")
	require.Equal(t, http.StatusOK, code)
	assert.Contains(t, body, "Racetrack")
	code, _ = get("/js/app.js")
	assert.Equal(t, http.StatusOK, code)
	code, _ = get("/embed.go")
	assert.Equal(t, http.StatusNotFound, code, "the embedding package's source is not served")
	if static.Built() {
		code, _ = get("/app.wasm")
		assert.Equal(t, http.StatusOK, code)
	} else {
		t.Log("no app.wasm built into this test binary (run make wasm first); skipping that check")
	}
}

func TestParseBytes(t *testing.T) {
	for in, want := range map[string]int64{"1073741824": 1 << 30, "4GiB": 4 << 30, "512MiB": 512 << 20, "2G": 2 << 30, "1.5GB": 1_500_000_000, "64 KiB": 64 << 10} {
		got, err := parseBytes(in)
		require.NoError(t, err, in)
		assert.Equal(t, want, got, in)
	}
	for _, bad := range []string{"", "GiB", "-1", "4XB", "0"} {
		_, err := parseBytes(bad)
		assert.Error(t, err, bad)
	}
	b, err := memoryBudget("")
	require.NoError(t, err)
	assert.Positive(t, b)
}

func TestMemoryBudgetIsInMetrics(t *testing.T) {
	url, stop := start(t, filepath.Join(t.TempDir(), "m.db"), "-memory-budget", "2GiB")
	defer func() { require.NoError(t, stop()) }()
	res, err := http.Get(url + "/metrics")
	require.NoError(t, err)
	b, _ := io.ReadAll(res.Body)
	res.Body.Close()
	assert.Contains(t, string(b), "racetrack_memory_budget_bytes 1.28849018", "60 % of 2 GiB is for work")
}

func TestSecondServerOnTheSameDataSaysItIsLocked(t *testing.T) {
	data := filepath.Join(t.TempDir(), "shared.db")
	_, stop := start(t, data)
	defer func() { require.NoError(t, stop()) }()
	var log syncBuffer
	err := Run(context.Background(), builtin(), "server", []string{"-addr", "127.0.0.1:0", "-data", data}, &log, nil)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "locked by another process")
	assert.NotContains(t, err.Error(), "timeout")
}

// TestServesItsOwnRegistryAndWasm: a server built for another registry
// lists only its scenarios and serves the wasm build it was given (the
// -wasm directory over Config.Wasm), never the one this module embeds.
func TestServesItsOwnRegistryAndWasm(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "app.wasm"), []byte("\x00asm-from-the-flag"), 0o644))
	cfg := Config{Registry: scenario.NewRegistry(bank.Scenario()), Wasm: fstest.MapFS{"app.wasm": {Data: []byte("\x00asm-from-config")}}}
	for _, c := range []struct {
		args []string
		want string
	}{{nil, "\x00asm-from-config"}, {[]string{"-wasm", dir}, "\x00asm-from-the-flag"}} {
		ctx, cancel := context.WithCancel(context.Background())
		addrs, done := make(chan string, 1), make(chan error, 1)
		go func() {
			args := append([]string{"-addr", "127.0.0.1:0", "-data", filepath.Join(t.TempDir(), "s.db")}, c.args...)
			done <- Run(ctx, cfg, "bank", args, io.Discard, func(a string) { addrs <- a })
		}()
		base := "http://" + <-addrs
		get := func(p string) string {
			res, err := http.Get(base + p)
			require.NoError(t, err)
			defer res.Body.Close()
			b, _ := io.ReadAll(res.Body)
			require.Equal(t, http.StatusOK, res.StatusCode, "%s: %s", p, b)
			return string(b)
		}
		var list []struct{ ID string }
		require.NoError(t, json.Unmarshal([]byte(get("/api/v1/scenarios")), &list))
		assert.Equal(t, []struct{ ID string }{{"bank-overdraft"}}, list)
		assert.Equal(t, c.want, get("/app.wasm"), "%q", c.args)
		assert.Contains(t, get("/engine.json"), `"auto"`, "with a wasm build the page picks its engine")
		cancel()
		require.NoError(t, <-done)
		http.DefaultClient.CloseIdleConnections()
	}
	err := Run(context.Background(), cfg, "bank", []string{"-wasm", t.TempDir()}, io.Discard, nil)
	var ue *UsageError
	require.ErrorAs(t, err, &ue)
	assert.Contains(t, err.Error(), "no app.wasm")
	assert.Error(t, Run(context.Background(), Config{}, "bank", nil, io.Discard, nil), "a nil registry")
}
