// Package e2e drives the real page in headless Chromium (chromedp) against
// httptest servers: the static folder alone (wasm engine) and cmd/server's
// API (server engine). Without Chromium the tests skip, except in CI
// (CI=true), where they fail.
package e2e

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	cdplog "github.com/chromedp/cdproto/log"
	cdpruntime "github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/racetrack-sim/racetrack/api"
	"github.com/racetrack-sim/racetrack/core/catalog"
)

var screenshots = flag.Bool("screenshots", false, "write the README screenshots to docs/screenshots/*.png")

// root is the repository root (the tests run in e2e/).
const root = ".."

func chromePath(t *testing.T) string {
	t.Helper()
	cands := []string{os.Getenv("CHROME"), "/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome", "/usr/bin/google-chrome-stable"}
	for _, c := range cands {
		if c == "" {
			continue
		}
		if fi, err := os.Stat(c); err == nil && !fi.IsDir() {
			return c
		}
	}
	if os.Getenv("CI") == "true" {
		t.Fatal("CI=true but no Chromium found (set CHROME or install Debian's chromium)")
	}
	t.Skip("no Chromium found (install Debian's chromium or set CHROME); skipping the browser tests")
	return ""
}

var (
	assetsOnce sync.Once
	assetsDir  string
	assetsErr  error
)

// assets builds app.wasm from the current tree into a temporary folder next
// to wasm_exec.js, so the test never runs a stale build.
func assets(t *testing.T) string {
	t.Helper()
	chromePath(t) // skip (or fail in CI) before building anything
	assetsOnce.Do(func() {
		dir, err := os.MkdirTemp("", "racetrack-e2e-")
		if err != nil {
			assetsErr = err
			return
		}
		goroot := runtime.GOROOT()
		if out, err := exec.Command("go", "env", "GOROOT").Output(); err == nil {
			goroot = strings.TrimSpace(string(out))
		}
		src, err := os.ReadFile(filepath.Join(goroot, "lib", "wasm", "wasm_exec.js"))
		if err != nil {
			assetsErr = err
			return
		}
		if err := os.WriteFile(filepath.Join(dir, "wasm_exec.js"), src, 0o644); err != nil {
			assetsErr = err
			return
		}
		// What make dist writes: the page then never probes for the API.
		if err := os.WriteFile(filepath.Join(dir, "engine.json"), []byte(`{"engine": "wasm"}`+"\n"), 0o644); err != nil {
			assetsErr = err
			return
		}
		cmd := exec.Command("go", "build", "-trimpath", "-ldflags=-s -w", "-o", filepath.Join(dir, "app.wasm"), "./wasm")
		cmd.Dir = root
		cmd.Env = append(os.Environ(), "GOOS=js", "GOARCH=wasm")
		if out, err := cmd.CombinedOutput(); err != nil {
			assetsErr = fmt.Errorf("building app.wasm: %v\n%s", err, out)
			return
		}
		assetsDir = dir
	})
	if assetsErr != nil {
		t.Fatal(assetsErr)
	}
	return assetsDir
}

// staticServer serves what make dist builds: the built assets over web/,
// the page with no API.
func staticServer(t *testing.T) *httptest.Server {
	return staticServerOf(t, filepath.Join(root, "web"))
}

// staticServerOf is staticServer with the page's files from web.
func staticServerOf(t *testing.T, web string) *httptest.Server {
	dirs := []string{assets(t), web}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		name := filepath.Clean("/" + r.URL.Path)
		if strings.HasSuffix(r.URL.Path, "/") {
			name = filepath.Join(name, "index.html")
		}
		for _, d := range dirs {
			p := filepath.Join(d, filepath.FromSlash(name))
			if fi, err := os.Stat(p); err == nil && !fi.IsDir() {
				http.ServeFile(w, r, p)
				return
			}
		}
		http.NotFound(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// apiServer is cmd/server's handler with the same static folders; each
// request's path goes to the watchers first.
func apiServer(t *testing.T, watch ...func(path string)) *httptest.Server {
	return apiServerOf(t, filepath.Join(root, "web"), watch...)
}

// apiServerOf is apiServer with the page's files from web.
func apiServerOf(t *testing.T, web string, watch ...func(path string)) *httptest.Server {
	return apiServerFull(t, web, nil, watch...)
}

// apiServerWith is apiServer with a cluster for distributed searches
// (nil: none).
func apiServerWith(t *testing.T, cluster api.Cluster, watch ...func(path string)) *httptest.Server {
	return apiServerFull(t, filepath.Join(root, "web"), cluster, watch...)
}

func apiServerFull(t *testing.T, web string, cluster api.Cluster, watch ...func(path string)) *httptest.Server {
	store, err := api.OpenStore(filepath.Join(t.TempDir(), "runs.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	s, err := api.New(api.Config{Registry: catalog.New(), Store: store, Logger: logger, Static: []fs.FS{os.DirFS(web), os.DirFS(assets(t))}, // web/engine.json says "auto"
		Cluster: cluster})
	if err != nil {
		t.Fatal(err)
	}
	h := s.Handler()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		for _, f := range watch {
			f(r.URL.Path)
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// browser starts a fresh headless Chromium and returns its tab; flags are
// added to Chromium's command line.
func browser(t *testing.T, width, height int, flags ...chromedp.ExecAllocatorOption) *page {
	t.Helper()
	path := chromePath(t)
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(path),
		chromedp.Headless,
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(width, height),
	}
	opts = append(opts, flags...)
	actx, cancelA := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelB := chromedp.NewContext(actx)
	ctx, cancelC := context.WithTimeout(ctx, 4*time.Minute)
	t.Cleanup(func() { cancelC(); cancelB(); cancelA() })
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(int64(width), int64(height))); err != nil {
		t.Fatal(err)
	}
	p := &page{t: t, ctx: ctx}
	// The Log domain reports what the console shows besides console.*:
	// failed loads, CSP violations, deprecations.
	logs := chromedp.Events(ctx, cdplog.EntryAdded)
	if _, err := chromedp.Call(ctx, cdplog.Enable, cdp.Empty{}); err != nil {
		t.Fatal(err)
	}
	go func() {
		for ev, err := range logs {
			if err != nil {
				return
			}
			e := ev.Entry
			// A 422 is how the server engine answers an invalid parameter:
			// the page shows it next to the field.
			if e.Level == cdplog.EntryLevelError && !strings.Contains(e.Text, "status of 422") {
				p.addConsole(fmt.Sprintf("log %s: %s %s", e.Source, e.Text, e.URL))
			}
		}
	}()
	exceptions := chromedp.Events(ctx, cdpruntime.ExceptionThrown)
	console := chromedp.Events(ctx, cdpruntime.ConsoleAPICalled)
	go func() {
		for ev, err := range exceptions {
			if err != nil {
				return
			}
			p.addConsole("exception: " + ev.ExceptionDetails.Text + describeException(ev.ExceptionDetails))
		}
	}()
	go func() {
		for ev, err := range console {
			if err != nil {
				return
			}
			if ev.Type == cdpruntime.ConsoleAPICalledTypeError || ev.Type == cdpruntime.ConsoleAPICalledTypeWarning {
				var parts []string
				for _, a := range ev.Args {
					parts = append(parts, string(a.Value)+a.Description)
				}
				p.addConsole(string(ev.Type) + ": " + strings.Join(parts, " "))
			}
		}
	}()
	return p
}

func describeException(d *cdpruntime.ExceptionDetails) string {
	if d.Exception != nil {
		return " " + d.Exception.Description
	}
	return ""
}

// page is one tab under test.
type page struct {
	t   *testing.T
	ctx context.Context

	mu      sync.Mutex
	console []string
}

func (p *page) addConsole(s string) {
	p.mu.Lock()
	p.console = append(p.console, s)
	p.mu.Unlock()
}

// consoleErrors lists the console errors and exceptions so far.
func (p *page) consoleErrors() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.console...)
}

func (p *page) do(actions ...chromedp.Action[chromedp.Void]) {
	p.t.Helper()
	if err := chromedp.Do(p.ctx, actions...); err != nil {
		p.t.Fatal(err)
	}
}

// eval evaluates js (awaiting a promise) and decodes the result into T.
func eval[T any](p *page, js string) T {
	p.t.Helper()
	v, err := chromedp.Run(p.ctx, chromedp.Evaluate[T](js, chromedp.EvalAwaitPromise))
	if err != nil {
		p.t.Fatalf("evaluating %s: %v", js, err)
	}
	return v
}

// wait polls a JS predicate until it is truthy.
func (p *page) wait(what, js string, timeout time.Duration) {
	p.t.Helper()
	if _, err := chromedp.Run(p.ctx, chromedp.Poll[chromedp.Void](js, chromedp.WithPollingTimeout(timeout), chromedp.WithPollingInterval(20*time.Millisecond))); err != nil {
		state := eval[json.RawMessage](p, `JSON.stringify({errors: window.__rt && __rt.errors, form: document.querySelector("#formerror")?.textContent, status: document.querySelector("#searchstatus")?.textContent, toast: document.querySelector("#toast")?.textContent, run: window.__rt && __rt.S.run && __rt.S.run.id, loaded: window.__rt && __rt.loaded})`)
		p.t.Fatalf("waiting for %s (%s): %v; page: %s", what, js, err, state)
	}
}

// click scrolls the element to the middle of the window (clear of the
// sticky header) and clicks it like a person would.
func (p *page) click(css string) {
	p.t.Helper()
	eval[any](p, fmt.Sprintf(`document.querySelector(%q).scrollIntoView({block: "center"})`, css))
	p.do(chromedp.Click(chromedp.CSS(css)))
}

func (p *page) open(url string) {
	p.t.Helper()
	p.do(chromedp.Navigate(url))
	p.wait("the page to start", `window.__rt && __rt.ready`, 60*time.Second)
}
