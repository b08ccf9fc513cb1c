package e2e

import (
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
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

// inspectorJS compares the inspector's rows with the state the page holds
// (group titles, field names, values with units, the changed highlight, in
// order) and that state with one the engine computes afresh for the step,
// and returns what differs ("" when nothing does).
const inspectorJS = `(async () => {
	const st = __rt.S.state;
	if (!st || st.step !== __rt.S.step) return "the state shown is of step " + (st && st.step) + ", the cursor at " + __rt.S.step;
	const want = [];
	for (const g of st.groups) {
		want.push("# " + g.title);
		for (const f of g.fields) want.push((f.changed ? "* " : "  ") + f.name + " = " + f.value + (f.unit ? " " + f.unit : ""));
	}
	const got = [];
	for (const g of document.querySelectorAll("#inspector .group")) {
		got.push("# " + g.querySelector("h3").textContent);
		for (const tr of g.querySelectorAll("tr")) got.push((tr.classList.contains("changed") ? "* " : "  ") + tr.cells[0].textContent + " = " + tr.cells[1].textContent);
	}
	for (let i = 0; i < Math.max(want.length, got.length); i++) {
		if (want[i] !== got[i]) return "row " + i + ": the inspector shows " + JSON.stringify(got[i]) + ", the state " + JSON.stringify(want[i]);
	}
	if (document.querySelector("#statestep").textContent !== "after step " + (st.step + 1)) return "heading " + document.querySelector("#statestep").textContent;
	const fresh = await __rt.S.engine.state(__rt.S.run.id, st.step);
	if (JSON.stringify(fresh) !== JSON.stringify(st)) return "the state kept for step " + st.step + " differs from the engine's answer";
	return "";
})()`

// TestInspectorFollowsSteps walks a run with the keyboard forwards, then
// backwards, then by jumps, in both engines: the inspector is patched at
// each step (rows kept by field name, states fetched ahead), so after
// every step its rows must be exactly those of the step's state, and that
// state the one the engine computes for the step.
func TestInspectorFollowsSteps(t *testing.T) {
	for _, eng := range []string{"server", "wasm"} {
		t.Run(eng, func(t *testing.T) {
			p := enginePage(t, eng)
			eval[any](p, `__rt.runSpec({scenario: "vitess-messager", preset: "churn", variant: "buggy", seed: 1})`)
			p.wait("the churn run", `__rt.S.run && __rt.S.run.spec.preset === "churn" && __rt.loaded === __rt.S.run.id`, 60*time.Second)
			eval[any](p, `__rt.seek(95).then(() => document.activeElement && document.activeElement.blur())`)
			check := func(how string) {
				t.Helper()
				if d := eval[string](p, inspectorJS); d != "" {
					t.Fatalf("after %s, at step %d: %s", how, eval[int](p, `__rt.S.step`), d)
				}
			}
			at := 95
			move := func(key string, d int, n int, opts ...chromedp.KeyOption) {
				t.Helper()
				for i := 0; i < n; i++ {
					at += d
					p.do(chromedp.KeyEvent(key, opts...))
					p.wait("the step's state", fmt.Sprintf(`__rt.S.step === %d && __rt.S.state && __rt.S.state.step === %d`, at, at), 10*time.Second)
					check(fmt.Sprintf("a key to step %d", at))
				}
			}
			move(kb.ArrowRight, 1, 40)
			move(kb.ArrowLeft, -1, 15)
			shift := chromedp.KeyModifiers(chromedp.ModifierShift)
			move(kb.ArrowRight, 10, 8, shift)
			move(kb.ArrowLeft, -10, 8, shift)
			for _, s := range []int{400, 12, 13, 1000, 999} {
				at = s
				eval[any](p, fmt.Sprintf(`__rt.seek(%d)`, s))
				check(fmt.Sprintf("a seek to step %d", s))
			}
			// The first step of each run of keys may wait for its state;
			// the others find it fetched ahead (by the moves' stride).
			if hits := eval[int](p, `__rt.stateHits`); hits < 60 {
				t.Errorf("%d steps of 71 found their state fetched ahead", hits)
			}
			if errs := p.consoleErrors(); len(errs) > 0 {
				t.Errorf("console: %v", errs)
			}
		})
	}
}

// TestSearchWorkersInThePage: the page's engines take a search's workers
// option: the wasm worker runs a search on one worker and says so when
// asked for more (naming the field); the server runs it on the workers
// asked for, with the same answer.
func TestSearchWorkersInThePage(t *testing.T) {
	type outcome struct {
		Found   bool
		States  int
		Length  int
		Field   string
		Message string
	}
	search := func(p *page, workers int) outcome {
		return eval[outcome](p, fmt.Sprintf(`__rt.S.engine.search({scenario: "dining-philosophers", preset: "lock-level", strategy: "bfs", budget: {states: 20000}, workers: %d}, () => {}).promise
			.then((r) => ({Found: r.found, States: r.states, Length: r.length}), (e) => ({Field: e.field, Message: e.message}))`, workers))
	}
	for _, eng := range []string{"wasm", "server"} {
		t.Run(eng, func(t *testing.T) {
			p := enginePage(t, eng)
			one := search(p, 1)
			if !one.Found || one.Field != "" {
				t.Fatalf("workers 1: %+v, want the deadlock found", one)
			}
			two := search(p, 2)
			if eng == "wasm" {
				if two.Field != "workers" || !strings.Contains(two.Message, "runs a search on one worker") {
					t.Errorf("workers 2 in the wasm worker: %+v, want an error on workers saying it runs a search on one", two)
				}
			} else if !two.Found || two.States != one.States || two.Length != one.Length {
				t.Errorf("workers 2 on the server: %+v; on 1: %+v", two, one)
			}
			if neg := search(p, -1); neg.Field != "workers" || !strings.Contains(neg.Message, "outside [0, ") {
				t.Errorf("workers -1: %+v, want an error on workers", neg)
			}
			if errs := p.consoleErrors(); len(errs) > 0 {
				t.Errorf("console: %v", errs)
			}
		})
	}
}

// enginePage opens the page with the given engine: the wasm worker on a
// static server, or the server engine on the API server.
func enginePage(t *testing.T, eng string) *page {
	base := staticServer(t).URL
	if eng == "server" {
		base = apiServer(t).URL
	}
	p := browser(t, 1280, 800)
	p.open(base + "/#engine=" + eng)
	return p
}
