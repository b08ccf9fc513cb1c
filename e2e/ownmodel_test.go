package e2e

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/racetrack-sim/racetrack/core/catalog"
)

// The example model's facts the page must show: its scenario, its
// property, and the step of the shortest stale write (client1 checks,
// the lease expires, client2 is granted token 2 and writes, client1
// writes after its 3 steps of pause: the eighth step, index 7).
const (
	ownID       = "ownmodel"
	ownProperty = "no-stale-write"
	ownBFSStep  = 7
)

// TestOwnModel holds examples/ownmodel to what the README promises a
// model in its own module: from a clean clone of HEAD it builds as its
// own module against the clone (its replace), its tests pass, its wasm
// engine and its server build, and its server's page, on the server
// engine and on the example's own app.wasm, lists the model next to the
// built-in bugs, runs it to its violation at the step the API reports,
// and its breadth-first search finds the shortest stale write. The
// module cache is shared, so the test needs no network once the cache
// holds the example's dependencies (its go.sum names a few versions the
// root module does not use; the proxy, when there is one, fetches them).
func TestOwnModel(t *testing.T) {
	if testing.Short() {
		t.Skip("clones and builds the example module")
	}
	tmp, clone := cloneHead(t)
	mod := filepath.Join(clone, "examples", "ownmodel")
	goCmd := moduleGo(t, mod, "-mod=readonly")

	t.Run("go-test", func(t *testing.T) {
		out := string(must(t, goCmd(nil, "test", "-count=1", "./...")))
		if !strings.Contains(out, "ok  \tgithub.com/racetrack-sim/racetrack/examples/ownmodel") {
			t.Fatalf("go test in the example module:\n%s", out)
		}
	})
	build := filepath.Join(tmp, "build")
	must(t, goCmd([]string{"GOOS=js", "GOARCH=wasm"}, "build", "-o", filepath.Join(build, "app.wasm"), "./cmd/wasm"))
	goroot := strings.TrimSpace(string(must(t, goCmd(nil, "env", "GOROOT"))))
	wasmExec, err := os.ReadFile(filepath.Join(goroot, "lib", "wasm", "wasm_exec.js"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(build, "wasm_exec.js"), wasmExec, 0o644); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(tmp, "ownmodel-server")
	must(t, goCmd(nil, "build", "-o", bin, "./cmd/server"))

	base := startServer(t, exec.Command(bin, "-addr", "127.0.0.1:0", "-data", filepath.Join(tmp, "own.db"), "-wasm", build))

	// The API lists the model with the built-in bugs; a seed of the buggy
	// variant violates, at a step the page must show.
	var scenarios []struct{ ID string }
	getJSON(t, base+"/api/v1/scenarios", &scenarios)
	ids := map[string]bool{}
	for _, s := range scenarios {
		ids[s.ID] = true
	}
	builtin := catalog.New().List()
	if !ids[ownID] || len(scenarios) != len(builtin)+1 {
		t.Fatalf("the server lists %v, want %s and the %d built-in scenarios", scenarios, ownID, len(builtin))
	}
	seed, step := violatingSeed(t, base)

	for _, engine := range []string{"server", "wasm"} {
		t.Run("page-"+engine, func(t *testing.T) {
			p := browser(t, 1280, 800)
			p.open(base + "/#engine=" + engine)
			if got := eval[string](p, `__rt.S.engine.name`); got != engine {
				t.Fatalf("engine = %q, want %q", got, engine)
			}
			p.wait("the first diagram", `__rt.firstDraw > 0 && __rt.loaded`, 60*time.Second)
			if n := eval[int](p, `document.querySelectorAll("#scenarios button[data-id]").length`); n != len(builtin)+1 {
				t.Errorf("the page lists %d scenarios, want %d", n, len(builtin)+1)
			}
			if eval[int](p, `document.querySelectorAll('#scenarios button[data-id="vitess-messager"]').length`) != 1 {
				t.Error("the built-in bugs are not listed next to the example")
			}

			p.click(fmt.Sprintf(`#scenarios button[data-id=%q]`, ownID))
			p.wait("the example's story", `document.querySelector("#story h2")?.textContent.includes("Stale lease")`, 10*time.Second)
			p.click(`#variants label:has(input[value="unfenced"])`)
			p.do(chromedp.SetValue(chromedp.ID("seed"), fmt.Sprint(seed)))
			before := eval[int](p, `__rt.drawn`)
			p.click("#run")
			p.wait("the run", fmt.Sprintf(`__rt.S.run && __rt.S.run.spec.scenario === %q && __rt.S.run.spec.variant === "unfenced" && __rt.S.run.spec.seed === %d && __rt.loaded === __rt.S.run.id && __rt.drawn > %d`, ownID, seed, before), 60*time.Second)
			checkViolation(t, p, step)

			p.do(
				chromedp.SetValue(chromedp.ID("strategy"), "bfs"),
				chromedp.SetValue(chromedp.ID("budget"), "20000"),
			)
			eval[any](p, `__rt.lastSearch = null`)
			p.click("#searchgo")
			p.wait("the search result", `__rt.lastSearch && __rt.S.search === null`, 120*time.Second)
			res := eval[map[string]any](p, `__rt.lastSearch`)
			if res["found"] != true || res["property"] != ownProperty {
				t.Fatalf("bfs did not find the stale write: %v", res)
			}
			p.wait("the counterexample loaded", `__rt.S.run && __rt.S.run.violations.length > 0 && __rt.S.run.spec.schedule`, 30*time.Second)
			checkViolation(t, p, ownBFSStep)

			if errs := p.consoleErrors(); len(errs) > 0 {
				t.Errorf("console errors:\n%s", strings.Join(errs, "\n"))
			}
		})
	}
}

// checkViolation: the loaded run violates the example's property at
// step, and the property panel and the banner say so.
func checkViolation(t *testing.T, p *page, step int) {
	t.Helper()
	v := eval[struct {
		Property string `json:"property"`
		Step     int    `json:"step"`
	}](p, `__rt.S.run.violations[0]`)
	if v.Property != ownProperty || v.Step != step {
		t.Errorf("the page shows %s at step %d, want %s at step %d", v.Property, v.Step, ownProperty, step)
	}
	if eval[int](p, fmt.Sprintf(`document.querySelectorAll('#props li.bad[data-property=%q]').length`, ownProperty)) != 1 {
		t.Errorf("the property panel does not mark %s violated", ownProperty)
	}
	banner := eval[string](p, `(() => { const b = document.querySelector("#verdict"); return b.hidden ? "" : b.textContent; })()`)
	if !strings.Contains(banner, ownProperty) || !strings.Contains(banner, fmt.Sprintf("step %d", step+1)) {
		t.Errorf("banner %q does not name %s at step %d", banner, ownProperty, step+1)
	}
}

// violatingSeed finds, over the API, the first seed whose run of the
// buggy variant violates the example's property, and the step.
func violatingSeed(t *testing.T, base string) (seed, step int) {
	t.Helper()
	for seed := 1; seed <= 50; seed++ {
		body := fmt.Sprintf(`{"scenario":%q,"variant":"unfenced","seed":%d}`, ownID, seed)
		res, err := http.Post(base+"/api/v1/runs", "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		var sum struct {
			Violations []struct {
				Property string `json:"property"`
				Step     int    `json:"step"`
			} `json:"violations"`
		}
		b, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != http.StatusCreated || json.Unmarshal(b, &sum) != nil {
			t.Fatalf("POST /api/v1/runs %s = %d %s", body, res.StatusCode, b)
		}
		for _, v := range sum.Violations {
			if v.Property == ownProperty {
				return seed, v.Step
			}
		}
	}
	t.Fatalf("no seed of 50 violates %s", ownProperty)
	return 0, 0
}

func getJSON(t *testing.T, url string, v any) {
	t.Helper()
	res, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	if res.StatusCode != http.StatusOK || json.Unmarshal(b, v) != nil {
		t.Fatalf("GET %s = %d %.200s", url, res.StatusCode, b)
	}
}

// startServer starts a server command that logs "addr=http://..." and
// stops it with SIGTERM at the end of the test, which it must survive
// cleanly. It returns the base URL.
func startServer(t *testing.T, srv *exec.Cmd) string {
	t.Helper()
	stderr, err := srv.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	addrs := make(chan string, 1)
	go func() {
		re := regexp.MustCompile(`addr=(http://\S+)`)
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if m := re.FindStringSubmatch(sc.Text()); m != nil {
				addrs <- m[1]
			}
		}
		exited <- srv.Wait()
	}()
	t.Cleanup(func() {
		_ = srv.Process.Signal(syscall.SIGTERM)
		select {
		case err := <-exited:
			if err != nil {
				t.Errorf("%s after SIGTERM: %v", srv.Path, err)
			}
		case <-time.After(20 * time.Second):
			_ = srv.Process.Kill()
			t.Errorf("%s did not stop on SIGTERM", srv.Path)
		}
	})
	select {
	case base := <-addrs:
		return base
	case err := <-exited:
		t.Fatalf("%s exited: %v", srv.Path, err)
	case <-time.After(30 * time.Second):
		t.Fatalf("%s did not report its address", srv.Path)
	}
	return ""
}

// cloneHead clones the committed tree (HEAD: uncommitted changes and
// ignored build output are left behind) into a temporary folder and
// returns the folder and the clone in it; without git the test is
// skipped.
// moduleGo runs the go command in the module at dir, as its own module
// (no workspace) with the shared module cache and the given GOFLAGS.
func moduleGo(t *testing.T, dir, goflags string) func(env []string, args ...string) *exec.Cmd {
	t.Helper()
	modcache := strings.TrimSpace(string(must(t, exec.Command("go", "env", "GOMODCACHE"))))
	return func(env []string, args ...string) *exec.Cmd {
		c := exec.Command("go", args...)
		c.Dir = dir
		c.Env = append(append(os.Environ(), "GOMODCACHE="+modcache, "GOFLAGS="+goflags, "GOWORK=off"), env...)
		return c
	}
}

func cloneHead(t *testing.T) (tmp, clone string) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	tmp = t.TempDir()
	head := strings.TrimSpace(string(must(t, exec.Command("git", "-C", root, "rev-parse", "HEAD"))))
	clone = filepath.Join(tmp, "clone")
	must(t, exec.Command("git", "clone", "-q", "--no-checkout", root, clone))
	must(t, exec.Command("git", "-C", clone, "checkout", "-q", head))
	return tmp, clone
}
