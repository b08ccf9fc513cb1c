package e2e

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// loadAvg is the machine's load average (Linux), printed with the figures
// because a busy machine stretches every main-thread task.
func loadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "unknown"
	}
	return strings.Join(f[:3], " ") + fmt.Sprintf(" on %d CPUs", runtime.NumCPU())
}

var (
	perf       = flag.Bool("perf", false, "measure the page in the browser and log the figures")
	perfBefore = flag.String("perf.before", "", "with -perf: also measure the page (web/) of this git revision, in the same run, for a ratio")
)

// perfSteps is how many steps server-step times per engine and page.
const perfSteps = 300

// webAt writes the web/ folder of a git revision to a temporary folder.
func webAt(t *testing.T, rev string) string {
	t.Helper()
	dir := t.TempDir()
	cmd := exec.Command("sh", "-c", `git archive "$REV" web | tar -x -C "$DIR"`)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "REV="+rev, "DIR="+dir)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git archive %s web: %v\n%s", rev, err, out)
	}
	return filepath.Join(dir, "web")
}

func ahead(r stepTimes) string {
	if r.Ahead < 0 {
		return "not counted by this page"
	}
	return fmt.Sprintf("%d of %d steps", r.Ahead, r.Keys)
}

// figure is a median, p95 and maximum in milliseconds.
type figure struct{ Median, P95, Max float64 }

func (f figure) String() string {
	return fmt.Sprintf("median %.1f ms, p95 %.1f ms, max %.1f ms", f.Median, f.P95, f.Max)
}

// stepTimes are the figures of measureSteps: Painted, from the key press
// to the end of the painted frame; Shown, to the inspector showing the
// step; Frame, the frame's own work (from its animation-frame callbacks
// through style, layout and paint); Work, Shown plus Frame: Painted
// without the wait for the display's next frame (headless Chromium paints
// at 60 Hz, so that wait adds 0-16.7 ms to any page).
type stepTimes struct {
	Painted, Work, Shown, Frame figure
	InputDelay                  float64
	// N is the steps timed, of Keys pressed.
	N, Keys int
	// Ahead counts the steps whose state the page had fetched ahead
	// (-1: a page that does not count them).
	Ahead int
}

// measureSteps times n steps of the churn run as a person takes them:
// each is a real ArrowRight key press (Chromium's input pipeline, through
// the page's keyboard handler), timed from the key event's time stamp to
// the end of the first frame painted after the inspector shows the new
// step ("after step N", written with the state), found by a
// MutationObserver, so the page's own code needs no probe and an older
// page is measured the same way. With every 0 each step starts once the
// previous one is painted; otherwise a key is pressed every so often
// (a held key), and a step the next key overtakes is not timed.
func measureSteps(t *testing.T, eng, web string, n int, every time.Duration) stepTimes {
	t.Helper()
	base := staticServerOf(t, web).URL
	if eng == "server" {
		base = apiServerOf(t, web).URL
	}
	p := browser(t, 1280, 800)
	p.open(base + "/#engine=" + eng)
	eval[any](p, `__rt.runSpec({scenario: "vitess-messager", preset: "churn", variant: "buggy", seed: 1})`)
	p.wait("the churn run", `__rt.S.run && __rt.S.run.spec.preset === "churn" && __rt.loaded === __rt.S.run.id`, 60*time.Second)
	eval[any](p, `(async () => {
		await __rt.seek(100);
		document.activeElement && document.activeElement.blur();
		const R = window.__perf = {t0: 0, target: -1, times: [], delays: [], done: null, hits0: __rt.stateHits || 0};
		addEventListener("keydown", (e) => {
			if (e.key !== "ArrowRight") return;
			R.t0 = e.timeStamp;
			R.delays.push(performance.now() - e.timeStamp);
			R.target = __rt.S.step + 1;
		}, true);
		const el = document.querySelector("#statestep");
		new MutationObserver(() => {
			if (R.target < 0 || el.textContent !== "after step " + (R.target + 1)) return;
			const t0 = R.t0;
			R.target = -1;
			// rAF runs before the frame's style, layout and paint; a message
			// posted there arrives once that frame is painted.
			const shown = performance.now();
			requestAnimationFrame(() => {
				const raf = performance.now();
				const ch = new MessageChannel();
				ch.port1.onmessage = () => {
					const end = performance.now();
					R.times.push({total: end - t0, shown: shown - t0, frame: end - raf, work: shown - t0 + end - raf});
					if (R.done) R.done();
				};
				ch.port2.postMessage(0);
			});
		}).observe(el, {childList: true, characterData: true, subtree: true});
		R.wait = (k) => new Promise((resolve, reject) => {
			const timer = setTimeout(() => reject(new Error("step " + k + " of the run was not shown within 10 s")), 10000);
			const f = () => (R.times.length >= k ? (clearTimeout(timer), resolve()) : (R.done = f));
			f();
		});
	})()`)
	for i := 1; i <= n; i++ {
		t0 := time.Now()
		p.do(chromedp.KeyEvent(kb.ArrowRight))
		if every == 0 {
			eval[any](p, fmt.Sprintf(`__perf.wait(%d)`, i))
		} else {
			time.Sleep(every - time.Since(t0))
		}
	}
	p.wait("the last step shown", fmt.Sprintf(`__rt.S.state && __rt.S.state.step === %d`, 100+n), 10*time.Second)
	time.Sleep(100 * time.Millisecond) // its frame
	if eval[int](p, `__perf.times.length`) == 0 {
		t.Fatalf("%s engine: no step was timed", eng)
	}
	r := eval[stepTimes](p, `(() => {
		const q = (a, f) => { a = [...a].sort((x, y) => x - y); return a[Math.min(a.length - 1, Math.ceil(f * a.length) - 1)]; };
		const t = __perf.times;
		const col = (k) => t.map((x) => x[k]);
		const fig = (k) => ({Median: q(col(k), 0.5), P95: q(col(k), 0.95), Max: q(col(k), 1)});
		const ahead = __rt.stateHits === undefined ? -1 : __rt.stateHits - __perf.hits0;
		return {Painted: fig("total"), Work: fig("work"), Shown: fig("shown"), Frame: fig("frame"), InputDelay: q(__perf.delays, 0.5), N: t.length, Ahead: ahead};
	})()`)
	r.Keys = n
	if got := eval[int](p, `__rt.S.step`); got != 100+n {
		t.Fatalf("%s engine: the page is at step %d after %d steps from 100", eng, got, n)
	}
	return r
}

// TestPerformance measures the page in the browser with the Performance
// API and logs the figures the README reports (no timing assertions):
//
//	go test ./e2e -run TestPerformance -perf -v
func TestPerformance(t *testing.T) {
	if !*perf {
		t.Skip("run with -perf to measure the page")
	}
	dir := assets(t)
	wasm, err := os.ReadFile(filepath.Join(dir, "app.wasm"))
	if err != nil {
		t.Fatal(err)
	}
	var gz bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&gz, gzip.BestCompression)
	zw.Write(wasm)
	zw.Close()
	t.Logf("app.wasm: %.2f MB, gzipped %.2f MB; machine load average %s", float64(len(wasm))/1e6, float64(gz.Len())/1e6, loadAvg())

	t.Run("first-diagram", func(t *testing.T) {
		for _, eng := range []string{"wasm", "server"} {
			base := staticServer(t).URL
			if eng == "server" {
				base = apiServer(t).URL
			}
			p := browser(t, 1280, 800) // a fresh profile: nothing cached
			p.do(chromedp.Navigate(base + "/#engine=" + eng))
			p.wait("the first diagram", `window.__rt && __rt.firstDraw > 0 && __rt.loaded`, 60*time.Second)
			ms := eval[float64](p, `__rt.firstDraw`)
			t.Logf("%s engine: navigation to first drawn diagram %.0f ms (target < 1500 ms)", eng, ms)
		}
	})

	t.Run("server-step", func(t *testing.T) {
		// The page's files under test, and those of -perf.before (an
		// earlier commit) measured in the same run for a ratio.
		pages := []struct{ name, web string }{{"this tree", filepath.Join(root, "web")}}
		if *perfBefore != "" {
			pages = append([]struct{ name, web string }{{*perfBefore, webAt(t, *perfBefore)}}, pages...)
		}
		for _, eng := range []string{"server", "wasm"} {
			for _, pg := range pages {
				r := measureSteps(t, eng, pg.web, perfSteps, 0)
				t.Logf("%s engine, page of %s, %d steps (ArrowRight pressed -> the step's state in the inspector, painted):\n"+
					"\tkey -> frame painted (60 Hz vsync wait included): %v\n"+
					"\tkey -> painted without the vsync wait (target p95 <= 16 ms): %v\n"+
					"\t  of which key -> inspector updated: %v; the frame's style+layout+paint: %v; input delay median %.1f ms\n"+
					"\tstates fetched ahead: %s; load average %s",
					eng, pg.name, r.N, r.Painted, r.Work, r.Shown, r.Frame, r.InputDelay, ahead(r), loadAvg())
			}
		}
	})

	// A held arrow key: the keyboard repeats it about 30 times a second,
	// whether or not the last step is painted yet.
	t.Run("held-key", func(t *testing.T) {
		for _, eng := range []string{"server", "wasm"} {
			r := measureSteps(t, eng, filepath.Join(root, "web"), perfSteps, 33*time.Millisecond)
			t.Logf("%s engine, ArrowRight held (a key every 33 ms, %d steps; %d timed, a step overtaken by the next key is not):\n"+
				"\tkey -> frame painted: %v; without the vsync wait: %v\n"+
				"\tstates fetched ahead: %s; load average %s",
				eng, perfSteps, r.N, r.Painted, r.Work, ahead(r), loadAvg())
		}
	})

	t.Run("step-10k-window", func(t *testing.T) {
		p := browser(t, 1280, 800)
		p.open(staticServer(t).URL + "/#engine=wasm")
		spec := map[string]any{"scenario": "tarantool-raft-relay", "variant": "pending", "seed": 1, "maxTime": 60000}
		js, _ := json.Marshal(spec)
		eval[any](p, fmt.Sprintf(`__rt.runSpec(%s)`, js))
		p.wait("the long run", `__rt.S.run && __rt.S.run.spec.maxTime === 60000 && __rt.loaded === __rt.S.run.id`, 120*time.Second)
		window := eval[int](p, `__rt.S.diagramWindow`)
		type stepTimes struct {
			Median, P95, Max, Full, Fit, Inspector float64
			N                                      int
			Worst                                  string
		}
		r := eval[stepTimes](p, `(async () => {
			await __rt.seek(5000, {center: true});
			const times = [];
			for (let i = 0; i < 200; i++) {
				const t0 = performance.now();
				__rt.stepBy(1);
				__rt.paintCursor(); // what the next animation frame does
				times.push(performance.now() - t0);
			}
			// A full repaint of the window's picture (zoom or pan): median of 11.
			const fulls = [];
			for (let i = 0; i < 11; i++) {
				const f0 = performance.now();
				__rt.diagram.p.invalidate();
				__rt.diagram.draw();
				fulls.push(performance.now() - f0);
			}
			fulls.sort((a, b) => a - b);
			const full = fulls[5];
			// The same after "fit": the whole window, as aggregate marks.
			__rt.diagram.fit();
			const fits = [];
			for (let i = 0; i < 11; i++) {
				const f0 = performance.now();
				__rt.diagram.p.invalidate();
				__rt.diagram.draw();
				fits.push(performance.now() - f0);
			}
			fits.sort((a, b) => a - b);
			// One step until the inspector shows the new state.
			const i0 = performance.now();
			await __rt.seek(__rt.S.step + 1);
			const inspector = performance.now() - i0;
			const worst = times.map((t, i) => [i, Math.round(t * 10) / 10]).sort((a, b) => b[1] - a[1]).slice(0, 3);
			times.sort((a, b) => a - b);
			return {Median: times[100], P95: times[190], Max: times[199], Full: full, Fit: fits[5], Inspector: inspector, N: times.length, Worst: JSON.stringify(worst)};
		})()`)
		t.Logf("step + repaint on a %d-step window: median %.2f ms, p95 %.2f ms, max %.2f ms over %d steps (target < 16 ms); full repaint of the visible part (after a zoom or pan, median of 11) %.1f ms, of the whole window after fit (aggregated: %v) %.1f ms; step until the inspector shows the state %.1f ms; slowest steps [index, ms] %s",
			window, r.Median, r.P95, r.Max, r.N, r.Full, eval[bool](p, `__rt.diagram.p.agg`), r.Fit, r.Inspector, r.Worst)
	})

	t.Run("search-main-thread", func(t *testing.T) {
		p := browser(t, 1280, 800)
		p.open(staticServer(t).URL + "/#engine=wasm")
		selectScenario(p, "tarantool-raft-relay")
		// The card runs its first preset; the search starts once it is
		// loaded (the search follows the loaded run).
		p.wait("the preset's run", `__rt.S.run && __rt.S.run.spec.scenario === "tarantool-raft-relay" && __rt.loaded === __rt.S.run.id`, 60*time.Second)
		eval[any](p, `(() => {
			__rt.longest = 0; __rt.lag = 0; __rt.probe = true; __rt.t0 = performance.now();
			new PerformanceObserver((l) => { for (const e of l.getEntries()) { (__rt.tasks = __rt.tasks || []).push([Math.round(e.startTime - __rt.t0), Math.round(e.duration), !!__rt.lastSearch]); if (__rt.probe && !__rt.lastSearch) __rt.longest = Math.max(__rt.longest, e.duration); } }).observe({type: "longtask"});
			let last = performance.now();
			const tick = () => { const now = performance.now(); if (!__rt.lastSearch) __rt.lag = Math.max(__rt.lag, now - last); last = now; if (__rt.probe) setTimeout(tick, 0); };
			setTimeout(tick, 0);
		})()`)
		p.do(chromedp.SetValue(chromedp.ID("strategy"), "random"), chromedp.SetValue(chromedp.ID("budget"), "300"))
		p.click("#searchgo")
		start := time.Now()
		p.wait("the search", `__rt.lastSearch && __rt.S.search === null && __rt.loaded === __rt.S.run.id`, 180*time.Second)
		type probe struct {
			Longest, Lag, Load, Handler float64
			Progress                    int
		}
		r := eval[probe](p, `(() => { __rt.probe = false; return {Longest: __rt.longest, Lag: __rt.lag, Load: __rt.loadMs || 0, Handler: __rt.progressHandlerMs || 0, Progress: __rt.searchProgress || 0}; })()`)
		res := eval[map[string]any](p, `__rt.lastSearch`)
		t.Logf("main-thread long tasks [start ms, duration ms, after the result]: %s; counterexample load phases %s", eval[string](p, `JSON.stringify(__rt.tasks || [])`), eval[string](p, `JSON.stringify(__rt.phases)`))
		t.Logf("search (random, 300 runs of tarantool-raft-relay, %.1f s, %d progress reports, found=%v): longest main-thread long task %.0f ms (0: none over 50 ms), longest event-loop gap %.1f ms (target < 50 ms); the page's own work per progress report at most %.1f ms; then loading the counterexample took %.0f ms; load average %s",
			time.Since(start).Seconds(), r.Progress, res["found"], r.Longest, r.Lag, r.Handler, r.Load, loadAvg())
	})
}
