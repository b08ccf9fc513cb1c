package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// largeLogEvents is the benchmark size: a ShiViz log of 100,000
// events.
const largeLogEvents = 100_000

// writeLargeLog writes a ShiViz log of n events over eight hosts in
// ShiViz's default layout: each host in turn does local work or sends to
// the next host, which receives before its next event (the vector clocks
// as a real system's would be). It returns the file name under dir.
func writeLargeLog(t *testing.T, dir string, n int) string {
	t.Helper()
	const hosts = 8
	name := fmt.Sprintf("large-%d.shiviz.log", n)
	if _, err := os.Stat(filepath.Join(dir, name)); err == nil {
		return name
	}
	clocks := make([][hosts]int, hosts)
	var b strings.Builder
	write := func(h int, text string) {
		clocks[h][h]++
		fmt.Fprintf(&b, "%s\nh%d {", text, h)
		first := true
		for k, v := range clocks[h] {
			if v == 0 {
				continue
			}
			if !first {
				b.WriteString(", ")
			}
			first = false
			fmt.Fprintf(&b, `"h%d": %d`, k, v)
		}
		b.WriteString("}\n")
	}
	for i := 0; i < n; {
		h := (i / 3) % hosts
		if i%3 == 0 && i+2 <= n {
			to := (h + 1) % hosts
			write(h, fmt.Sprintf("send m%d to h%d", i, to))
			sent := clocks[h]
			for k := range sent {
				clocks[to][k] = max(clocks[to][k], sent[k])
			}
			write(to, fmt.Sprintf("recv m%d from h%d", i, h))
			i += 2
			continue
		}
		write(h, fmt.Sprintf("work %d", i))
		i++
	}
	if err := os.WriteFile(filepath.Join(dir, name), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return name
}

// TestImportLargeLogWasm and TestImportLargeLogServer are the issue's
// benchmark in the tab (with -perf): a 100,000-event ShiViz log dropped
// on the page is imported and drawn, and the figures are logged (the
// issue's target: the import within 3 s). What they assert is that the
// page's thread stays responsive while the engine imports it (no task
// over 50 ms: the wasm engine reads and imports the file in its worker,
// the server engine's upload reads it in a worker of its own).
func TestImportLargeLogWasm(t *testing.T) {
	if !*perf {
		t.Skip("run with -perf to import a 100,000-event log in the browser")
	}
	srv := staticServer(t)
	importLargeLog(t, srv.URL+"/", "wasm")
}

func TestImportLargeLogServer(t *testing.T) {
	if !*perf {
		t.Skip("run with -perf to import a 100,000-event log in the browser")
	}
	srv := apiServer(t)
	importLargeLog(t, srv.URL+"/", "server")
}

func importLargeLog(t *testing.T, base, engine string) {
	name := writeLargeLog(t, assets(t), largeLogEvents)
	p := browser(t, 1280, 800)
	p.open(base + "#engine=" + engine)
	p.wait("the first diagram", `__rt.firstDraw > 0 && __rt.loaded`, 60*time.Second)
	eval[any](p, fmt.Sprintf(`(async () => {
		const text = await (await fetch(%q)).text();
		__rt.bigLog = new File([text], %q, {type: "text/plain"});
		__rt.tasks = [];
		new PerformanceObserver((l) => { for (const e of l.getEntries()) __rt.tasks.push([e.startTime, e.duration]); }).observe({type: "longtask"});
	})()`, name, name))
	eval[any](p, `(() => {
		__rt.importMs = 0;
		const dt = new DataTransfer();
		dt.items.add(__rt.bigLog);
		__rt.dropAt = performance.now();
		document.querySelector("#diagram").dispatchEvent(new DragEvent("drop", {dataTransfer: dt, bubbles: true, cancelable: true}));
	})()`)
	p.wait("the import", `__rt.importMs > 0`, 60*time.Second)
	p.wait("the log's diagram", `__rt.S.trace && __rt.loaded === __rt.S.trace.opened.runs[0].id`, 60*time.Second)
	type result struct {
		Import, Load float64
		Events       int
		Longest      float64 // the longest main-thread task while the engine imported
		LongestLoad  float64 // and while the page drew the log
	}
	r := eval[result](p, `(() => {
		const end = __rt.dropAt + __rt.importMs;
		let longest = 0, longestLoad = 0;
		for (const [at, d] of __rt.tasks) {
			if (at + d <= __rt.dropAt) continue;
			if (at < end) longest = Math.max(longest, d); else longestLoad = Math.max(longestLoad, d);
		}
		return {import: __rt.importMs, load: __rt.loadMs, events: __rt.S.trace.opened.events, longest, longestLoad};
	})()`)
	load, _ := os.ReadFile("/proc/loadavg")
	t.Logf("%s engine: import of a %d-event ShiViz log %.0f ms (target ≤ 3000 ms), then the first diagram %.0f ms; longest main-thread task while importing %.0f ms (0: none over 50 ms), while drawing %.0f ms; load average %s",
		engine, r.Events, r.Import, r.Load, r.Longest, r.LongestLoad, strings.TrimSpace(string(load)))
	if r.Events != largeLogEvents {
		t.Fatalf("imported %d events, want %d", r.Events, largeLogEvents)
	}
	if r.Longest > 50 {
		t.Errorf("a main-thread task of %.0f ms while the engine imported (want none over 50 ms)", r.Longest)
	}
}
