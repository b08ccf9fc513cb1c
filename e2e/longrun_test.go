package e2e

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/racetrack-sim/racetrack/core/scenario"
	"github.com/racetrack-sim/racetrack/core/timeline"
)

// drag presses the mouse at (x0, y), moves it to (x1, y) and releases it.
func (p *page) drag(x0, x1, y float64) {
	p.t.Helper()
	p.do(chromedp.DragAndDropXY(x0, y, x1, y))
}

type rect struct{ X, Y, W, H float64 }

func (p *page) rect(css string) rect {
	p.t.Helper()
	eval[any](p, fmt.Sprintf(`document.querySelector(%q).scrollIntoView({block: "center"})`, css))
	return eval[rect](p, fmt.Sprintf(`(() => { const r = document.querySelector(%q).getBoundingClientRect(); return {X: r.left, Y: r.top, W: r.width, H: r.height}; })()`, css))
}

// longRunNavigation walks a 20,450-step run: fit shows the whole laid-out
// window as aggregate marks, the overview strip chooses another window by
// dragging, the wheel zooms only with Ctrl or focus, every chart is
// reachable, and all 15 lanes of Tarantool's random elections are.
func longRunNavigation(t *testing.T, p *page) {
	// maxSteps within the server engine's limit (the preset allows 2,000,000).
	loadSpec(p, scenario.RunSpec{Scenario: "scylla-mv-backlog", Preset: "steady-hot-shard", Variant: "buggy", Seed: 1, MaxSteps: 1_000_000})
	total := eval[int](p, `__rt.S.total`)
	if total <= 10000 {
		t.Fatalf("steady-hot-shard has %d steps, want a long run", total)
	}
	// The overview: the whole run, the window outlined; a drag over its
	// last tenth, outside the first window, lays out a window there and
	// shows those steps.
	if n := eval[int](p, `__rt.overview.data ? __rt.overview.data.steps : 0`); n != total {
		t.Fatalf("the overview covers %d steps, want %d", n, total)
	}
	r := p.rect("#overview")
	p.drag(r.X+0.88*r.W, r.X+0.97*r.W, r.Y+r.H/2)
	p.wait("the window over the dragged range", fmt.Sprintf(`__rt.S.win.from > 0 && __rt.S.win.to > %d`, total*9/10), 30*time.Second)
	inRange := fmt.Sprintf(`(() => { const v = __rt.diagram.visibleSteps(); return !!v && v[0] >= %d && v[1] <= %d; })()`, total*85/100, total*99/100+1)
	p.wait("the dragged range in view", inRange, 10*time.Second)
	view := eval[[]int](p, `__rt.diagram.visibleSteps()`)

	// "fit" lays out the whole run and shows it, dense steps merged.
	p.click("#zoomfit")
	p.wait("the whole run laid out", fmt.Sprintf(`__rt.S.win.from === 0 && __rt.S.win.to === %d && __rt.diagram.p.list.to === %d`, total, total), 60*time.Second)
	fits := eval[bool](p, `(() => { const d = __rt.diagram.p, l = d.list; return d.kx * (l.width - l.plot.x) <= d.w - d.plotX(); })()`)
	if !fits {
		t.Errorf("after fit the whole run (%d steps) is wider than the plot", total)
	}
	if !eval[bool](p, `__rt.diagram.p.list.aggregated && __rt.diagram.p.aggregated()`) {
		t.Errorf("zoomed out to fit, the diagram does not merge dense steps into aggregate marks")
	}

	// The wheel scrolls the page unless Ctrl is held or the diagram has
	// the focus.
	wheel := func(ctrl bool) (bool, float64) {
		var out struct {
			Prevented bool
			K         float64
		}
		js := fmt.Sprintf(`(() => { const c = document.querySelector("#diagram"); const r = c.getBoundingClientRect(); const k = __rt.diagram.p.kx;
			const e = new WheelEvent("wheel", {deltaY: -200, clientX: r.left + r.width / 2, clientY: r.top + 40, ctrlKey: %v, bubbles: true, cancelable: true});
			c.dispatchEvent(e); return {Prevented: e.defaultPrevented, K: __rt.diagram.p.kx / k}; })()`, ctrl)
		b, _ := json.Marshal(eval[any](p, js))
		json.Unmarshal(b, &out)
		return out.Prevented, out.K
	}
	eval[any](p, `document.activeElement && document.activeElement.blur()`)
	if prevented, k := wheel(false); prevented || k != 1 {
		t.Errorf("a plain wheel over the unfocused diagram zoomed (x%.2f) or kept the page from scrolling (%v)", k, prevented)
	}
	if prevented, k := wheel(true); !prevented || k <= 1 {
		t.Errorf("Ctrl+wheel did not zoom in (x%.2f, prevented %v)", k, prevented)
	}

	// Every chart panel is on the canvas, and the box scrolls to it.
	ch := eval[rect](p, `(() => { const l = __rt.S.chartsList || {}; const c = document.querySelector("#charts"), b = document.querySelector("#chartsbox"); return {X: 0, Y: 0, W: c.clientHeight, H: b.scrollHeight - b.clientHeight}; })()`)
	if lh := eval[float64](p, `__rt.charts.p.list.height`); ch.W+1 < lh {
		t.Errorf("the charts canvas is %v px tall for %v px of charts", ch.W, lh)
	}

	// Charts fold one by one: the canvas loses that panel's height.
	panels := eval[int](p, `__rt.charts.bands.length`)
	before := eval[float64](p, `document.querySelector("#charts").clientHeight`)
	p.click("#chartfolds button")
	after := eval[float64](p, `document.querySelector("#charts").clientHeight`)
	frame := eval[float64](p, `__rt.charts.bands[0].h - __rt.charts.bands[0].keep`)
	if panels < 2 || after > before-frame+1 || eval[string](p, `document.querySelector("#chartfolds button").getAttribute("aria-pressed")`) != "true" {
		t.Errorf("%d chart panels; folding the first left the charts %v px tall (was %v, its panel is %v px)", panels, after, before, frame)
	}
	p.click("#chartfolds button")
	if got := eval[float64](p, `document.querySelector("#charts").clientHeight`); got != before {
		t.Errorf("unfolding the first chart left the charts %v px tall, want %v", got, before)
	}

	// Tarantool's random elections: 15 lanes, all within the diagram.
	loadSpec(p, scenario.RunSpec{Scenario: "tarantool-raft-relay", Preset: "random-elections", Variant: "drop", Seed: 1})
	lanes := eval[int](p, `__rt.diagram.p.list.lanes.length`)
	reach := eval[bool](p, `(() => { const d = __rt.diagram.p, l = d.list, last = l.lanes[l.lanes.length - 1]; return d.mapY(last.y + last.h) + d.ty <= document.querySelector("#diagramwrap").clientHeight; })()`)
	if lanes < 15 || !reach {
		t.Errorf("%d lanes; the last one inside the diagram: %v", lanes, reach)
	}
	// The lane filter keeps the lanes whose name matches; "all lanes"
	// brings the others back; a click on a lane's name folds it.
	first := eval[string](p, `__rt.diagram.p.list.lanes[0].label`)
	h0 := eval[float64](p, `__rt.diagram.contentHeight`)
	p.do(chromedp.SendKeys(chromedp.ID("lanefilter"), first))
	p.wait("the filtered lanes", `__rt.diagram.p.lanes && __rt.diagram.p.lanes.some((l) => l.mode === "hide")`, 5*time.Second)
	if h1 := eval[float64](p, `__rt.diagram.contentHeight`); h1 >= h0 {
		t.Errorf("filtering lanes by %q left the diagram %v px tall (was %v)", first, h1, h0)
	}
	p.click("#lanesall")
	p.wait("every lane back", `__rt.diagram.p.lanes === null`, 5*time.Second)
	eval[any](p, `__rt.toggleLane(__rt.diagram.p.list.lanes[0].label)`)
	if !eval[bool](p, `__rt.diagram.p.lanes && __rt.diagram.p.lanes[0].mode === "collapse"`) {
		t.Errorf("folding the first lane did not collapse it")
	}
	eval[any](p, `__rt.toggleLane(__rt.diagram.p.list.lanes[0].label)`)
	t.Logf("%d steps fit as aggregates; overview drag showed %v; %d Tarantool lanes reachable", total, view, lanes)
}

// compareSideBySide compares the Vitess variants: the panel comes into
// view, both diagrams are drawn on one axis with the divergence at one x,
// the shared prefix dimmed, and the page does not widen.
func compareSideBySide(t *testing.T, p *page) {
	selectScenario(p, "vitess-messager")
	p.wait("the Vitess run", `__rt.S.run && __rt.S.run.spec.scenario === "vitess-messager" && __rt.loaded === __rt.S.run.id`, 60*time.Second)
	p.click("#compare")
	p.wait("the comparison", `!document.querySelector("#comparepanel").hidden && __rt.S.compare && __rt.compareView.ps.every((p) => p.list)`, 60*time.Second)
	div := eval[int](p, `__rt.S.compare.divergence`)
	if div < 0 {
		t.Fatalf("the Vitess variants do not diverge")
	}
	xs := eval[[]*float64](p, `__rt.compareView.divergenceX()`)
	if len(xs) != 2 || xs[0] == nil || xs[1] == nil || *xs[0]-*xs[1] > 1 || *xs[1]-*xs[0] > 1 {
		t.Errorf("the divergence (step %d) is not at one x in both diagrams: %v", div+1, eval[any](p, `__rt.compareView.divergenceX()`))
	}
	if !eval[bool](p, fmt.Sprintf(`__rt.compareView.ps.every((p) => p.dim && !p.dim.has(%d) && p.dim.has(%d))`, max(0, div-1), div)) {
		t.Errorf("the shared prefix is not dimmed, or the divergence is")
	}
	top := eval[float64](p, `document.querySelector("#comparepanel").getBoundingClientRect().top`)
	if top < 0 || top > eval[float64](p, `innerHeight`)/2 {
		t.Errorf("the compare panel starts at %v px, not in view", top)
	}
	if w := eval[int](p, `document.documentElement.scrollWidth`); w > eval[int](p, `innerWidth`) {
		t.Errorf("the page is %d px wide after comparing (window %d)", w, eval[int](p, `innerWidth`))
	}
	t.Logf("divergence at step %d drawn at x %.1f in both", div+1, *xs[0])
}

// numericWhatIf seeks to a drawn duration with hundreds of options (the
// Vitess row-event gap), reads its domain with its unit, types a value and
// forks with it.
func numericWhatIf(t *testing.T, p *page, reg *scenario.Registry) {
	spec := scenario.RunSpec{Scenario: "vitess-messager", Preset: "unsubscribe-vs-poller", Variant: "buggy", Seed: 1}
	tl, err := timeline.Record(reg, spec, timeline.Options{})
	if err != nil {
		t.Fatal(err)
	}
	step, choice, n, picked := -1, -1, 0, 0
	var dom *timeline.Domain
	for i := 0; i < tl.Len() && step < 0; i++ {
		alts, _ := tl.Alternatives(i)
		for _, a := range alts {
			if a.Domain != nil && a.N > timeline.MaxValueOptions {
				step, choice, n, picked, dom = i, a.Choice, a.N, a.Picked, a.Domain
				break
			}
		}
	}
	if step < 0 {
		t.Fatal("no drawn duration in the run")
	}
	loadSpec(p, spec)
	eval[any](p, fmt.Sprintf(`__rt.seek(%d)`, step))
	p.wait("the domain form", `document.querySelector("#whatif form.domain input")`, 30*time.Second)
	label := eval[string](p, `document.querySelector("#whatif form.domain label").textContent`)
	if !strings.Contains(label, dom.Unit) || !strings.Contains(label, fmt.Sprint(dom.Max)) {
		t.Errorf("the domain reads %q; want its unit %s and maximum %v", label, dom.Unit, dom.Max)
	}
	// The value taken reads as the model's resolution writes it, not as
	// binary floating point does (issue 32 saw 0.6930000000000001).
	if v := eval[string](p, `document.querySelector("#whatif form.domain input").value`); len(v) > 12 || strings.Contains(v, "0000000") {
		t.Errorf("the what-if box shows the value taken as %q", v)
	}
	typed := n / 3
	if typed == picked {
		typed++
	}
	value := dom.Value(typed)
	parent := eval[string](p, `__rt.S.run.id`)
	eval[any](p, fmt.Sprintf(`(() => { const f = document.querySelector("#whatif form.domain"); f.querySelector("input").value = %v; f.requestSubmit(); })()`, value))
	p.wait("the fork with the typed value", fmt.Sprintf(`__rt.S.run.id !== %q && __rt.S.run.spec.schedule && __rt.S.run.spec.schedule[%d] === %d && __rt.loaded === __rt.S.run.id`, parent, choice, typed), 30*time.Second)
	t.Logf("%s at step %d: typed %v %s (option %d of %d)", label, step+1, value, dom.Unit, typed, n)
}
