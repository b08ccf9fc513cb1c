package e2e

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/racetrack-sim/racetrack/core/scenario"
)

// The page explains itself (issue 32), on both engines at 1280x900: the
// first-visit guide, the bug's story by the verdict, the slice said in
// words, one state between the form and the drawing, compare sides,
// share links, the side panels in reach, export names and the overview
// as the map of a long run.
func TestPageExplainsItselfWasm(t *testing.T) {
	srv := staticServer(t)
	explainSuite(t, browser(t, 1280, 900), srv.URL+"/", "wasm")
}

func TestPageExplainsItselfServer(t *testing.T) {
	srv := apiServer(t)
	explainSuite(t, browser(t, 1280, 900), srv.URL+"/", "server")
}

func explainSuite(t *testing.T, p *page, base, engine string) {
	p.open(base + "#engine=" + engine)
	p.wait("the first diagram", `__rt.firstDraw > 0 && __rt.loaded`, 60*time.Second)
	t.Run("first-visit-guide", func(t *testing.T) { p.t = t; firstVisitGuide(t, p, base, engine) })
	t.Run("slice-says-what", func(t *testing.T) { p.t = t; sliceSaysWhat(t, p) })
	t.Run("stale-form", func(t *testing.T) { p.t = t; staleForm(t, p) })
	t.Run("compare-shows-side", func(t *testing.T) { p.t = t; compareShowsSide(t, p) })
	t.Run("compare-picks-variant", func(t *testing.T) { p.t = t; comparePicksVariant(t, p) })
	t.Run("side-panels-in-reach", func(t *testing.T) { p.t = t; sidePanelsInReach(t, p) })
	t.Run("share-slice-step", func(t *testing.T) { p.t = t; shareSliceStep(t, p, base, engine) })
	t.Run("export-names", func(t *testing.T) { p.t = t; exportNames(t, p) })
	t.Run("lane-filter-cursor", func(t *testing.T) { p.t = t; laneFilterCursor(t, p) })
	t.Run("labels-inside", func(t *testing.T) { p.t = t; labelsInside(t, p) })
	t.Run("verdict-names-property", func(t *testing.T) { p.t = t; verdictNamesProperty(t, p) })
	t.Run("overview-map", func(t *testing.T) { p.t = t; overviewMap(t, p) })
	p.t = t
	if errs := p.consoleErrors(); len(errs) > 0 {
		t.Errorf("console errors:\n%s", strings.Join(errs, "\n"))
	}
	if errs := eval[[]string](p, `__rt.errors`); len(errs) > 0 {
		t.Errorf("page errors: %v", errs)
	}
}

func visible(p *page, css string) bool {
	return eval[bool](p, fmt.Sprintf(`(() => { const e = document.querySelector(%q); if (!e || e.hidden) return false; const r = e.getBoundingClientRect(); return r.width > 0 && r.height > 0 && r.top >= 0 && r.bottom <= innerHeight; })()`, css))
}

// firstVisitGuide: a new visitor sees the guide and the bug's story with
// its links next to the verdict; dismissed, the guide never comes back.
func firstVisitGuide(t *testing.T, p *page, base, engine string) {
	if !visible(p, "#guide") {
		t.Fatal("the first visit shows no guide in the first screen")
	}
	if !visible(p, "#verdict") {
		t.Error("the guide pushed the verdict out of the first screen")
	}
	story := eval[string](p, `document.querySelector("#bugstory summary").textContent`)
	links := eval[int](p, `document.querySelectorAll("#bugstory a[href^='https://']").length`)
	if !strings.Contains(story, "The bug:") || links == 0 || !visible(p, "#bugstory") {
		t.Errorf("the bug's story by the verdict reads %q with %d links", story, links)
	}
	p.click("#guideclose")
	if !eval[bool](p, `document.querySelector("#guide").hidden`) {
		t.Fatal("Got it left the guide shown")
	}
	p.open(base + "#engine=" + engine)
	p.wait("the first diagram again", `__rt.firstDraw > 0 && __rt.loaded`, 60*time.Second)
	if !eval[bool](p, `document.querySelector("#guide").hidden`) {
		t.Error("the dismissed guide came back on the next visit")
	}
}

// sliceSaysWhat: Tarantool's followers-learn-leader violation (an
// eventually property) highlights the obligation: the follower i2's
// steps after its start are in the slice, and a bar says in words what
// is highlighted and how to leave; Esc leaves.
func sliceSaysWhat(t *testing.T, p *page) {
	loadSpec(p, scenario.RunSpec{Scenario: "tarantool-raft-relay", Preset: "subscribe-during-election", Variant: "drop", Seed: 1})
	p.click(`#props li[data-property="followers-learn-leader"] button`)
	p.wait("the slice", `__rt.S.slice && __rt.S.slice.info && !document.querySelector("#slicebar").hidden`, 30*time.Second)
	bar := eval[string](p, `document.querySelector("#slicebar").textContent`)
	for _, want := range []string{"followers-learn-leader", "obligation began at step", "i2", "Esc", "dimmed"} {
		if !strings.Contains(bar, want) {
			t.Errorf("the slice bar %q does not say %q", bar, want)
		}
	}
	i2 := eval[int](p, `[...__rt.S.slice.set].filter((s) => s > __rt.S.slice.info.start && __rt.S.steps[s].nodeName === "i2").length`)
	if i2 == 0 {
		t.Error("the slice holds none of the follower i2's steps after the obligation began")
	}
	if got, want := eval[int](p, `__rt.S.step`), eval[int](p, `__rt.S.slice.step`); got != want {
		t.Errorf("the cursor is at step %d, not the violation %d", got, want)
	}
	p.do(chromedp.Focus(chromedp.ID("diagram")), chromedp.KeyEvent(kb.Escape))
	p.wait("the slice gone", `!__rt.S.slice && document.querySelector("#slicebar").hidden`, 5*time.Second)
	// A slice is made from the toolbar too, and said as a causal slice.
	p.click("#slicebtn")
	p.wait("the causal slice", `__rt.S.slice && !document.querySelector("#slicebar").hidden`, 30*time.Second)
	if bar := eval[string](p, `document.querySelector("#slicebar").textContent`); !strings.Contains(bar, "causal slice") && !strings.Contains(bar, "why") {
		t.Errorf("the toolbar's slice is explained as %q", bar)
	}
	p.click("#sliceclear")
	p.wait("the slice gone", `!__rt.S.slice`, 5*time.Second)
}

// staleForm: changing the variant or the seed after a run says that the
// drawing is older than the form; both ways back clear the bar.
func staleForm(t *testing.T, p *page) {
	selectScenario(p, "dining-philosophers")
	p.wait("a run", `__rt.S.run && __rt.S.run.spec.scenario === "dining-philosophers" && __rt.loaded === __rt.S.run.id`, 60*time.Second)
	if !eval[bool](p, `document.querySelector("#stalebar").hidden`) {
		t.Fatal("a fresh run is called stale")
	}
	p.click(`#variants label:has(input[value="fixed"])`)
	p.wait("the stale bar", `!document.querySelector("#stalebar").hidden`, 5*time.Second)
	if bar := eval[string](p, `document.querySelector("#stalebar").textContent`); !strings.Contains(bar, "variant") || !strings.Contains(bar, "drawn") {
		t.Errorf("the stale bar reads %q", bar)
	}
	p.click("#stalerevert")
	if eval[string](p, `document.querySelector("#variants input:checked").value`) != eval[string](p, `__rt.S.run.spec.variant`) || !eval[bool](p, `document.querySelector("#stalebar").hidden`) {
		t.Error("Put the form back did not restore the drawn run's variant")
	}
	p.do(chromedp.SetValue(chromedp.ID("seed"), "5"), chromedp.Evaluate[chromedp.Void](`document.querySelector("#seed").dispatchEvent(new Event("input", {bubbles: true}))`))
	p.wait("the stale bar for the seed", `!document.querySelector("#stalebar").hidden && document.querySelector("#stalebar").textContent.includes("seed 5")`, 5*time.Second)
	p.click("#stalerun")
	p.wait("the seed-5 run", `__rt.S.run.spec.seed === 5 && __rt.loaded === __rt.S.run.id && document.querySelector("#stalebar").hidden`, 60*time.Second)
}

// compareShowsSide: Compare from the fixed variant draws the fixed run
// (the form's) and says which side the debugger shows.
func compareShowsSide(t *testing.T, p *page) {
	selectScenario(p, "dining-philosophers")
	p.click(`#variants label:has(input[value="fixed"])`)
	p.click("#compare")
	p.wait("the comparison", `!document.querySelector("#comparepanel").hidden && __rt.S.compare`, 60*time.Second)
	if got := eval[string](p, `__rt.S.run.spec.variant`); got != "fixed" {
		t.Errorf("after Compare from the fixed variant the debugger shows %q", got)
	}
	shown := eval[string](p, `document.querySelector("#cmpshown").textContent`)
	title := eval[string](p, `__rt.S.scenario.variants.find((v) => v.id === "fixed").title`)
	if !strings.Contains(shown, title) {
		t.Errorf("the compare panel says %q, not that it shows %q", shown, title)
	}
	if !eval[bool](p, `document.querySelector("#stalebar").hidden`) {
		t.Error("after Compare the form and the drawing disagree")
	}
	if txt := eval[string](p, `document.querySelector("#compareout").textContent`); strings.Contains(txt, "first 0 steps") {
		t.Errorf("the compare panel says %q", txt)
	}
}

// comparePicksVariant: ScyllaDB has five variants; Compare runs the form's
// and the one picked under "with".
func comparePicksVariant(t *testing.T, p *page) {
	selectScenario(p, "scylla-mv-backlog")
	p.wait("a run", `__rt.S.run && __rt.S.run.spec.scenario === "scylla-mv-backlog" && __rt.loaded === __rt.S.run.id`, 60*time.Second)
	vs := eval[[]string](p, `__rt.S.scenario.variants.map((v) => v.id)`)
	if len(vs) < 3 || !visible(p, "#cmpwithfield") {
		t.Fatalf("%d variants; the compare-with choice shown: %v", len(vs), visible(p, "#cmpwithfield"))
	}
	mine, other := vs[2], vs[1]
	p.click(fmt.Sprintf(`#variants label:has(input[value=%q])`, mine))
	p.do(chromedp.SetValue(chromedp.ID("cmpwith"), other))
	p.click("#compare")
	p.wait("the comparison", `!document.querySelector("#comparepanel").hidden && __rt.S.compare`, 60*time.Second)
	got := eval[[]string](p, `[__rt.S.compare.a.spec.variant, __rt.S.compare.b.spec.variant]`)
	if got[0] != other || got[1] != mine {
		t.Errorf("compared %v, want [%s %s] (in the catalog's order)", got, other, mine)
	}
}

// sidePanelsInReach: at 1280x900 What if, Find the bug and Export are one
// click away from the first screen.
func sidePanelsInReach(t *testing.T, p *page) {
	eval[any](p, `scrollTo(0, 0)`)
	for _, id := range []string{"whatifpanel", "searchpanel", "exportpanel"} {
		link := fmt.Sprintf(`.sidenav a[href="#%s"]`, id)
		if !visible(p, link) {
			t.Errorf("no link to #%s in the first screen", id)
			continue
		}
		p.do(chromedp.Click(chromedp.CSS(link)))
		if !visible(p, "#"+id+" h2") {
			t.Errorf("the link to #%s did not bring it into view", id)
		}
		eval[any](p, `scrollTo(0, 0)`)
	}
}

// shareSliceStep: a link with a slice opens at its own step (not the
// slice's) with the slice on, and leaves the address as it was; on the
// server engine, a link pasted into the tab naming the wasm engine
// switches to it.
func shareSliceStep(t *testing.T, p *page, base, engine string) {
	loadSpec(p, scenario.RunSpec{Scenario: "tarantool-raft-relay", Preset: "subscribe-during-election", Variant: "drop", Seed: 1})
	v := eval[int](p, `__rt.S.run.violations[0].step`)
	eval[any](p, fmt.Sprintf(`__rt.showSlice(%d)`, v))
	p.wait("the slice", `__rt.S.slice && __rt.S.state && __rt.S.state.step === __rt.S.slice.step`, 30*time.Second)
	at := v / 2
	eval[any](p, fmt.Sprintf(`__rt.seek(%d)`, at))
	p.wait("the address", fmt.Sprintf(`new URLSearchParams(location.hash.slice(1)).get("step") === "%d"`, at+1), 5*time.Second)
	url := eval[string](p, `location.href`)
	p.do(chromedp.Navigate("about:blank"))
	p.open(url)
	p.wait("the linked step with its slice", fmt.Sprintf(`__rt.S.slice && __rt.S.slice.step === %d && __rt.S.state && __rt.S.state.step === %d`, v, at), 60*time.Second)
	time.Sleep(500 * time.Millisecond) // past the address update's delay
	if got := eval[string](p, `location.href`); got != url {
		t.Errorf("opening the link rewrote the address\n from %s\n   to %s", url, got)
	}
	if engine != "server" {
		return
	}
	link := strings.Replace(url, "engine=server", "engine=wasm", 1)
	link = link[strings.Index(link, "#"):]
	eval[any](p, fmt.Sprintf(`location.hash = %q`, link))
	p.wait("the wasm engine with the link's run", fmt.Sprintf(`__rt.S.engine.name === "wasm" && __rt.S.state && __rt.S.state.step === %d && __rt.loaded === __rt.S.run.id`, at), 60*time.Second)
	if got := eval[string](p, `document.querySelector("#engine").value`); got != "wasm" {
		t.Errorf("the engine control says %q after the link switched to wasm", got)
	}
	eval[any](p, `document.querySelector("#engine").value = "server"; document.querySelector("#engine").dispatchEvent(new Event("change"))`)
	p.wait("back on the server engine", `__rt.S.engine.name === "server" && __rt.loaded === __rt.S.run.id`, 60*time.Second)
}

// exportNames: a download is named after scenario, variant, seed and step.
func exportNames(t *testing.T, p *page) {
	loadSpec(p, scenario.RunSpec{Scenario: "dining-philosophers", Preset: "lock-level", Variant: "buggy", Seed: 2})
	eval[any](p, `__rt.seek(3)`)
	p.wait("step 3", `__rt.S.step === 3`, 10*time.Second)
	eval[any](p, `window.__downloads = []; HTMLAnchorElement.prototype.click = function () { if (this.download) __downloads.push(this.download); }`)
	p.click(`#exports button[data-export="svg"]`)
	p.wait("the download", `__downloads.length === 1`, 30*time.Second)
	if got, want := eval[string](p, `__downloads[0]`), "dining-philosophers-buggy-seed2-step4.svg"; got != want {
		t.Errorf("export named %q, want %q", got, want)
	}
}

// overviewMap: on the 20,431-step steady-hot-shard run the overview's
// frame is the steps drawn (also after three zoom-ins, when it is still
// visible), violations are marked, and a drag over its end shows the last
// violation.
func overviewMap(t *testing.T, p *page) {
	loadSpec(p, scenario.RunSpec{Scenario: "scylla-mv-backlog", Preset: "steady-hot-shard", Variant: "buggy", Seed: 1, MaxSteps: 1_000_000})
	total := eval[int](p, `__rt.S.total`)
	frameIsView := `(() => { const o = __rt.overview, f = o.frame(), v = __rt.diagram.visibleSteps(); if (!f || !v) return false;
		const a = o.xOf(v[0]), b = o.xOf(v[1] + 1); return f.x <= a + 0.5 && f.x + f.w >= b - 0.5 && f.w <= Math.max(6, b - a) + 0.5; })()`
	p.wait("the frame on the steps drawn", frameIsView, 10*time.Second)
	for i := 0; i < 3; i++ {
		p.click("#zoomin")
	}
	p.wait("the frame after three zoom-ins", frameIsView, 10*time.Second)
	if w := eval[float64](p, `__rt.overview.frame().w`); w < 6 {
		t.Errorf("after three zoom-ins the frame is %.1f px wide", w)
	}
	last := eval[int](p, `__rt.S.run.violations[__rt.S.run.violations.length - 1].step`)
	if last < total*9/10 {
		t.Skipf("the last violation is at step %d of %d, not near the end", last, total)
	}
	r := p.rect("#overview")
	p.drag(r.X+0.95*r.W, r.X+r.W+20, r.Y+r.H/2)
	p.wait("the dragged end in view", fmt.Sprintf(`(() => { const v = __rt.diagram.visibleSteps(); return !!v && v[0] <= %d && v[1] >= %d; })()`, last, last), 30*time.Second)
	p.wait("the frame on the steps drawn after the drag", frameIsView, 10*time.Second)
	// A click lands where it says: at the step under the pointer.
	x := 0.5
	p.do(chromedp.MouseClickXY(r.X+x*r.W, r.Y+r.H/2))
	want := eval[int](p, fmt.Sprintf(`__rt.overview.stepAt(%f)`, x*r.W))
	p.wait("the clicked step", fmt.Sprintf(`__rt.S.step === %d`, want), 30*time.Second)
	p.wait("the clicked step in view", fmt.Sprintf(`(() => { const v = __rt.diagram.visibleSteps(); return !!v && v[0] <= %d && v[1] >= %d; })()`, want, want), 30*time.Second)

	// At "fit" the axis labels neither overlap nor skip unevenly: the
	// ones painted are evenly spaced values.
	p.click("#zoomfit")
	p.wait("the whole run laid out", fmt.Sprintf(`__rt.S.win.from === 0 && __rt.S.win.to === %d`, total), 60*time.Second)
	var labels []struct {
		Text string
		X, W float64
	}
	labelsJS := `(() => { const P = CanvasRenderingContext2D.prototype, orig = P.fillText, out = [];
		const ticks = new Set(__rt.diagram.p.list.shapes.filter((s) => s.c === "tick-label").map((s) => s.text));
		P.fillText = function (s, x, y) { if (ticks.has(s) && this.canvas !== document.querySelector("#charts")) out.push({Text: s, X: x, W: this.measureText(s).width}); return orig.apply(this, arguments); };
		try { __rt.diagram.p.invalidate(); __rt.diagram.draw(); } finally { P.fillText = orig; }
		return out.sort((a, b) => a.X - b.X); })()`
	b, _ := json.Marshal(eval[any](p, labelsJS))
	json.Unmarshal(b, &labels)
	if len(labels) < 3 {
		t.Fatalf("at fit %d axis labels are painted", len(labels))
	}
	var gaps []float64
	for i := 1; i < len(labels); i++ {
		if labels[i].X < labels[i-1].X+labels[i-1].W {
			t.Errorf("at fit the axis labels %q and %q overlap", labels[i-1].Text, labels[i].Text)
		}
		a, _ := strconv.ParseFloat(labels[i-1].Text, 64)
		c, _ := strconv.ParseFloat(labels[i].Text, 64)
		gaps = append(gaps, c-a)
	}
	for _, g := range gaps[1:] {
		if math.Abs(g-gaps[0]) > 1e-9 {
			t.Errorf("at fit the axis labels are unevenly spaced: %v", labels)
			break
		}
	}
}

// laneFilterCursor: with the lane filter on, the cursor's ring is on the
// cursor's own lane, or not drawn when that lane is hidden.
func laneFilterCursor(t *testing.T, p *page) {
	loadSpec(p, scenario.RunSpec{Scenario: "tarantool-raft-relay", Preset: "subscribe-during-election", Variant: "drop", Seed: 1})
	step := eval[int](p, `__rt.S.steps.findIndex((s) => s.procName.startsWith("i2"))`)
	eval[any](p, fmt.Sprintf(`__rt.seek(%d)`, step))
	p.wait("the step", fmt.Sprintf(`__rt.S.step === %d`, step), 10*time.Second)
	ring := `(() => { const d = __rt.diagram, P = CanvasRenderingContext2D.prototype, orig = P.arc, ys = [];
		P.arc = function (x, y, r) { if (r === 8) ys.push(y); return orig.apply(this, arguments); };
		try { d.draw(); } finally { P.arc = orig; }
		const c = d.p.glyph.get(__rt.S.step), ln = d.p.list.lanes.find((l) => c.y >= l.y && c.y < l.y + l.h);
		return {Rings: ys, Top: d.p.mapY(ln.y) + d.p.ty, Bottom: d.p.mapY(ln.y + ln.h) + d.p.ty, Label: ln.label}; })()`
	type rings struct {
		Rings       []float64
		Top, Bottom float64
		Label       string
	}
	get := func() rings {
		var r rings
		b, _ := json.Marshal(eval[any](p, ring))
		json.Unmarshal(b, &r)
		return r
	}
	filter := func(q string) {
		eval[any](p, fmt.Sprintf(`(() => { const f = document.querySelector("#lanefilter"); f.value = %q; f.dispatchEvent(new Event("input")); })()`, q))
	}
	for _, q := range []string{"i1", "i2"} {
		filter(q)
		r := get()
		shown := strings.Contains(strings.ToLower(r.Label), q)
		switch {
		case shown && (len(r.Rings) != 1 || r.Rings[0] < r.Top || r.Rings[0] > r.Bottom):
			t.Errorf("filter %q: the cursor's lane %q spans y %.0f-%.0f, the ring is at %v", q, r.Label, r.Top, r.Bottom, r.Rings)
		case !shown && len(r.Rings) != 0:
			t.Errorf("filter %q hides the cursor's lane %q, yet a ring is drawn at %v", q, r.Label, r.Rings)
		}
	}
	filter("")
}

// labelsInside: no label of the plot is cut by its left or right edge
// (issue 32 saw "roker: gossip…", "✖ coordinator-view-…", "Cl"), at the
// opening zoom and at fit.
func labelsInside(t *testing.T, p *page) {
	loadSpec(p, scenario.RunSpec{Scenario: "scylla-mv-backlog", Preset: "wrong-shard-remote", Variant: "buggy", Seed: 1})
	cut := `(() => { const d = __rt.diagram, pt = d.p, P = CanvasRenderingContext2D.prototype, orig = P.fillText, out = [];
		const lo = pt.plotX(), hi = pt.w;
		P.fillText = function (s, x, y) { if (this.textAlign === "left") { const w = this.measureText(s).width; if ((x < lo - 0.5 && x + w > lo + 0.5) || (x < hi - 0.5 && x + w > hi + 0.5)) out.push(s); } return orig.apply(this, arguments); };
		try { pt.invalidate(); d.draw(); } finally { P.fillText = orig; }
		return out; })()`
	if got := eval[[]string](p, cut); len(got) > 0 {
		t.Errorf("labels cut at the plot's edges: %q", got)
	}
	p.click("#zoomfit")
	if got := eval[[]string](p, cut); len(got) > 0 {
		t.Errorf("at fit, labels cut at the plot's edges: %q", got)
	}
}

// verdictNamesProperty: a search that finds nothing says of which
// properties ("verified: no schedule violates it" named none).
func verdictNamesProperty(t *testing.T, p *page) {
	loadSpec(p, scenario.RunSpec{Scenario: "dining-philosophers", Preset: "lock-level", Variant: "fixed", Seed: 1})
	eval[any](p, `__rt.lastSearch = null; document.querySelector("#strategy").value = "bfs"; document.querySelector("#budget").value = "20000"`)
	p.click("#searchgo")
	p.wait("the search result", `__rt.lastSearch && __rt.S.search === null`, 120*time.Second)
	status := eval[string](p, `document.querySelector("#searchstatus").textContent`)
	if strings.Contains(status, "violates it") || !strings.Contains(status, "no-deadlock") {
		t.Errorf("the search of the fixed variant ends with %q", status)
	}
	t.Logf("verdict: %s", status)
}
