package e2e

import (
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestServerModeSpeaksTheSocket: in server mode the page downloads no
// wasm (nor the worker), speaks one WebSocket, and a socket killed in the
// middle of a playback reconnects and goes on from the step it reached.
func TestServerModeSpeaksTheSocket(t *testing.T) {
	var mu sync.Mutex
	var paths []string
	srv := apiServer(t, func(path string) {
		mu.Lock()
		paths = append(paths, path)
		mu.Unlock()
	})
	p := browser(t, 1280, 800)
	p.open(srv.URL + "/#engine=server")
	p.wait("the first diagram", `__rt.firstDraw > 0 && __rt.loaded`, 60*time.Second)
	if got := eval[string](p, `__rt.S.engine.name`); got != "server" {
		t.Fatalf("engine %q", got)
	}

	// A long run, played slowly.
	eval[any](p, `__rt.runSpec({scenario: "vitess-messager", preset: "churn", variant: "buggy", seed: 1})`)
	p.wait("the churn run", `__rt.S.run && __rt.S.run.spec.preset === "churn" && __rt.loaded === __rt.S.run.id`, 60*time.Second)
	eval[any](p, `(() => { const s = document.querySelector("#speed"); s.value = "30"; return __rt.seek(0); })()`)
	p.click("#play")
	p.wait("playing", `__rt.S.step >= 5`, 20*time.Second)
	eval[any](p, `window.__minAfter = Infinity; window.__oldWS = __rt.S.engine.ws; __rt.S.engine.ws.close(); window.__dropAt = __rt.S.step;
		window.__watch = setInterval(() => { window.__minAfter = Math.min(window.__minAfter, __rt.S.step); }, 5)`)
	dropAt := eval[int](p, `__dropAt`)
	p.wait("the playback to go on over a new socket", fmt.Sprintf(`__rt.S.step >= %d && __rt.S.playing !== 0 && __rt.S.engine.ws && __rt.S.engine.ws !== __oldWS`, dropAt+10), 30*time.Second)
	if low := eval[float64](p, `(clearInterval(__watch), __minAfter)`); int(low) < dropAt {
		t.Errorf("after the socket dropped at step %d the cursor went back to %d", dropAt, int(low))
	}
	p.click("#play")
	p.wait("the state of the step shown", `!__rt.S.playing && __rt.S.state && __rt.S.state.step === __rt.S.step`, 20*time.Second)

	// What-if over the socket: the fork tree comes from the session.
	eval[any](p, `__rt.runSpec({scenario: "dining-philosophers", preset: "lock-level", variant: "buggy", seed: 1})`)
	p.wait("the philosophers", `__rt.S.run && __rt.S.run.spec.preset === "lock-level" && __rt.loaded === __rt.S.run.id`, 60*time.Second)
	eval[any](p, `__rt.seek(0).then(() => __rt.jump("choice"))`)
	p.wait("a choice point", `document.querySelector("#whatif li button") !== null`, 20*time.Second)
	parent := eval[string](p, `__rt.S.run.id`)
	p.click("#whatif li button")
	p.wait("the fork and its tree", fmt.Sprintf(`__rt.S.run.id !== %q && __rt.S.forks && __rt.S.forks.run === %q && __rt.S.forks.children.length === 1`, parent, parent), 30*time.Second)

	// The socket drops again: the new session learns the fork again from
	// its parent, so the tree survives.
	eval[any](p, `__rt.S.engine.ws.close()`)
	tree := eval[map[string]any](p, `__rt.S.engine.forks(__rt.S.run.id)`)
	if children, _ := tree["children"].([]any); tree["run"] != parent || len(children) != 1 {
		t.Errorf("after a reconnect the fork tree is %v, want %s with one child", tree, parent)
	}

	mu.Lock()
	defer mu.Unlock()
	sockets := 0
	for _, path := range paths {
		if strings.HasSuffix(path, "app.wasm") || strings.HasSuffix(path, "worker.js") || strings.HasSuffix(path, "wasm_exec.js") {
			t.Errorf("server mode fetched %s", path)
		}
		if path == "/api/v1/session" {
			sockets++
		}
	}
	if sockets != 3 {
		t.Errorf("the page opened %d session sockets, want 3 (one, and one after each drop)", sockets)
	}
	if errs := eval[[]string](p, `__rt.errors`); len(errs) > 0 {
		t.Errorf("page errors: %v", errs)
	}
}
