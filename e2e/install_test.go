package e2e

import (
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestInstallServe installs racetrack the way a user does — `go install`
// in a fresh clone of the committed tree (HEAD: uncommitted changes and
// gitignored build output such as static/app.wasm are not there), into
// an empty GOPATH and GOBIN — then starts `racetrack serve` and checks
// the page, the API and engine.json (no wasm build embedded: the page
// runs on the server engine), and, with Chromium, that the page starts
// on the server engine. The module cache is shared and the proxy switched off, so the
// test needs no network.
func TestInstallServe(t *testing.T) {
	if testing.Short() {
		t.Skip("clones and builds the repository")
	}
	tmp, clone := cloneHead(t)
	if _, err := os.Stat(filepath.Join(clone, "static", "app.wasm")); err == nil {
		t.Fatal("the clone holds static/app.wasm: build output must not be committed")
	}

	modcache := strings.TrimSpace(string(must(t, exec.Command("go", "env", "GOMODCACHE"))))
	gopath, gobin := filepath.Join(tmp, "gopath"), filepath.Join(tmp, "bin")
	install := exec.Command("go", "install", "./cmd/racetrack")
	install.Dir = clone
	install.Env = append(os.Environ(), "GOPATH="+gopath, "GOBIN="+gobin, "GOMODCACHE="+modcache, "GOPROXY=off", "GOFLAGS=-mod=readonly")
	must(t, install)
	bin := filepath.Join(gobin, "racetrack")

	if v := string(must(t, exec.Command(bin, "-version"))); !strings.HasPrefix(v, "racetrack ") {
		t.Errorf("-version says %q", v)
	}

	base := startServer(t, exec.Command(bin, "serve", "-addr", "127.0.0.1:0", "-data", filepath.Join(tmp, "racetrack.db")))

	get := func(path string) (int, string, string) {
		t.Helper()
		res, err := http.Get(base + path)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res.StatusCode, res.Header.Get("Content-Type"), string(b)
	}
	if code, _, body := get("/"); code != http.StatusOK || !strings.Contains(body, "Racetrack") {
		t.Fatalf("GET / = %d %.80q", code, body)
	}
	code, ctype, body := get("/api/v1/scenarios")
	var scenarios []struct{ ID string }
	if code != http.StatusOK || !strings.HasPrefix(ctype, "application/json") || json.Unmarshal([]byte(body), &scenarios) != nil || len(scenarios) == 0 {
		t.Fatalf("GET /api/v1/scenarios = %d %s %.120q", code, ctype, body)
	}
	var eng struct {
		Engine string `json:"engine"`
		Wasm   *bool  `json:"wasm"`
	}
	if code, _, body := get("/engine.json"); code != http.StatusOK || json.Unmarshal([]byte(body), &eng) != nil || eng.Engine != "server" || eng.Wasm == nil || *eng.Wasm {
		t.Fatalf("GET /engine.json = %d %q: want the server engine and wasm false", code, body)
	}

	// The page picks the server engine from engine.json, lists the
	// catalog, creates its first run on the server and draws it: the
	// session socket lays the diagram out on the server, so an install
	// without app.wasm has the whole debugger.
	t.Run("page", func(t *testing.T) {
		p := browser(t, 1280, 800)
		p.open(base + "/")
		if got := eval[string](p, `__rt.S.engine.name`); got != "server" {
			t.Fatalf("engine = %q, want server", got)
		}
		p.wait("the catalog", `document.querySelectorAll("#scenarios button[data-id]").length === `+strconv.Itoa(len(scenarios)), 30*time.Second)
		p.wait("a run created on the server", `__rt.S.run && /^r[0-9a-f]{20}$/.test(__rt.S.run.id)`, 30*time.Second)
		p.wait("the diagram drawn", `__rt.firstDraw > 0`, 30*time.Second)
		if errs := eval[[]string](p, `__rt.errors`); len(errs) > 0 {
			t.Fatalf("page errors: %v", errs)
		}
	})
}

// must runs cmd and returns its standard output, failing the test with
// its standard error.
func must(t *testing.T, cmd *exec.Cmd) []byte {
	t.Helper()
	out, err := cmd.Output()
	if err != nil {
		var stderr []byte
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = ee.Stderr
		}
		t.Fatalf("%s: %v\n%s", strings.Join(cmd.Args, " "), err, stderr)
	}
	return out
}
