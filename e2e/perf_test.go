package e2e

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
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

var perf = flag.Bool("perf", false, "measure the page in the browser and log the figures")

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
		for _, eng := range []string{"server", "wasm"} {
			base := staticServer(t).URL
			if eng == "server" {
				base = apiServer(t).URL
			}
			p := browser(t, 1280, 800)
			p.open(base + "/#engine=" + eng)
			eval[any](p, `__rt.runSpec({scenario: "vitess-messager", preset: "churn", variant: "buggy", seed: 1})`)
			p.wait("the churn run", `__rt.S.run && __rt.S.run.spec.preset === "churn" && __rt.loaded === __rt.S.run.id`, 60*time.Second)
			type stepTimes struct{ Median, P95, Max float64 }
			r := eval[stepTimes](p, `(async () => {
				await __rt.seek(100);
				const times = [];
				for (let i = 0; i < 200; i++) {
					const t0 = performance.now();
					await __rt.seek(__rt.S.step + 1); // resolves once the inspector shows the step's state
					times.push(performance.now() - t0);
				}
				times.sort((a, b) => a - b);
				return {Median: times[100], P95: times[190], Max: times[199]};
			})()`)
			t.Logf("%s engine: one step (the cursor repainted, the state requested, received and shown in the inspector): median %.1f ms, p95 %.1f ms, max %.1f ms over 200 steps (target p95 < 16 ms over the socket); load average %s",
				eng, r.Median, r.P95, r.Max, loadAvg())
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
