package e2e

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"
)

// On a 390x844 phone (issue 32, point 6), on both engines: the engine is
// in the menu, the first screen's diagram holds every violation, the
// state of the step comes right after the diagram, the help lists the
// touch controls, a swipe steps and a pinch zooms.
func TestPhoneWasm(t *testing.T) {
	srv := staticServer(t)
	phoneSuite(t, browser(t, 390, 844), srv.URL+"/", "wasm")
}

func TestPhoneServer(t *testing.T) {
	srv := apiServer(t)
	phoneSuite(t, browser(t, 390, 844), srv.URL+"/", "server")
}

// touch sends one touch event with the given points (none for the end).
func (p *page) touch(kind input.DispatchTouchEventType, pts ...[2]float64) {
	p.t.Helper()
	var tp []*input.TouchPoint
	for i, xy := range pts {
		id := float64(i + 1)
		tp = append(tp, &input.TouchPoint{X: xy[0], Y: xy[1], ID: &id})
	}
	if _, err := chromedp.Call(p.ctx, input.DispatchTouchEvent, input.DispatchTouchEventParams{Type: kind, TouchPoints: tp}); err != nil {
		p.t.Fatal(err)
	}
}

func phoneSuite(t *testing.T, p *page, base, engine string) {
	if _, err := chromedp.Call(p.ctx, emulation.SetTouchEmulationEnabled, emulation.SetTouchEmulationEnabledParams{Enabled: true, MaxTouchPoints: 2}); err != nil {
		t.Fatal(err)
	}
	p.open(base + "#engine=" + engine)
	p.wait("the first diagram", `__rt.firstDraw > 0 && __rt.loaded && __rt.S.state`, 60*time.Second)

	t.Run("engine-in-menu", func(t *testing.T) {
		p.t = t
		if visible(p, "#enginemenu") {
			t.Error("the engine control shows before the menu opens")
		}
		p.click("#menu")
		if got := eval[string](p, `document.querySelector("#enginemenu").value`); !visible(p, "#enginemenu") || got != engine {
			t.Errorf("the menu's engine control: shown %v, value %q, want %q", visible(p, "#enginemenu"), got, engine)
		}
		p.click("#menu")
	})
	t.Run("diagram-whole", func(t *testing.T) {
		p.t = t
		out := eval[[]int](p, `(() => { const d = __rt.diagram, p = d.p; return __rt.S.run.violations.map((v) => v.step).filter((s) => { const x = d.stepX(s); if (x === null || x === undefined) return true; const sx = p.toScreen(x); return sx < p.plotX() - 1 || sx > p.w + 1; }); })()`)
		if len(out) > 0 {
			t.Errorf("violations at steps %v lie outside the phone's diagram", out)
		}
		if w := eval[float64](p, `document.documentElement.scrollWidth - innerWidth`); w > 0 {
			wide := eval[[]string](p, `[...document.querySelectorAll("body *")].filter((e) => e.getBoundingClientRect().right > innerWidth + 1 && getComputedStyle(e).display !== "none").slice(0, 8).map((e) => e.tagName + "#" + e.id + "." + e.className + " " + Math.round(e.getBoundingClientRect().right))`)
			t.Errorf("the page scrolls %v px sideways: %v", w, wide)
		}
	})
	t.Run("state-after-diagram", func(t *testing.T) {
		p.t = t
		gap := eval[float64](p, `document.querySelector("#statepanel").getBoundingClientRect().top - document.querySelector("#diagramwrap").getBoundingClientRect().bottom`)
		if gap > 600 {
			t.Errorf("the state panel starts %.0f px below the diagram", gap)
		}
		order := eval[bool](p, `document.querySelector("#verdict").getBoundingClientRect().top < document.querySelector("#diagramwrap").getBoundingClientRect().top`)
		if !order {
			t.Error("the verdict is not above the diagram")
		}
	})
	t.Run("help-lists-touch", func(t *testing.T) {
		p.t = t
		p.click("#helpbtn")
		text := eval[string](p, `document.querySelector("#help").textContent`)
		for _, want := range []string{"swipe", "pinch"} {
			if !strings.Contains(text, want) {
				t.Errorf("the help does not mention %q", want)
			}
		}
		p.click("#helpclose")
	})
	t.Run("swipe-steps", func(t *testing.T) {
		p.t = t
		r := p.rect("#inspector")
		before := eval[int](p, `__rt.S.step`)
		y := r.Y + r.H/2
		p.touch(input.DispatchTouchEventTypeTouchStart, [2]float64{r.X + 0.8*r.W, y})
		p.touch(input.DispatchTouchEventTypeTouchMove, [2]float64{r.X + 0.5*r.W, y})
		p.touch(input.DispatchTouchEventTypeTouchMove, [2]float64{r.X + 0.2*r.W, y})
		p.touch(input.DispatchTouchEventTypeTouchEnd)
		p.wait("the next step", fmt.Sprintf(`__rt.S.step === %d`, before+1), 10*time.Second)
		p.touch(input.DispatchTouchEventTypeTouchStart, [2]float64{r.X + 0.2*r.W, y})
		p.touch(input.DispatchTouchEventTypeTouchMove, [2]float64{r.X + 0.8*r.W, y})
		p.touch(input.DispatchTouchEventTypeTouchEnd)
		p.wait("the step back", fmt.Sprintf(`__rt.S.step === %d`, before), 10*time.Second)
	})
	t.Run("pinch-zooms", func(t *testing.T) {
		p.t = t
		r := p.rect("#diagram")
		k0 := eval[float64](p, `__rt.diagram.p.kx`)
		y := r.Y + r.H/2
		cx := r.X + 0.6*r.W
		p.touch(input.DispatchTouchEventTypeTouchStart, [2]float64{cx - 20, y}, [2]float64{cx + 20, y})
		for _, d := range []float64{40, 60, 80} {
			p.touch(input.DispatchTouchEventTypeTouchMove, [2]float64{cx - d, y}, [2]float64{cx + d, y})
		}
		p.touch(input.DispatchTouchEventTypeTouchEnd)
		if k1 := eval[float64](p, `__rt.diagram.p.kx`); k1 <= k0*1.5 {
			t.Errorf("spreading two fingers from 40 to 160 px zoomed x%.2f", k1/k0)
		}
	})
	p.t = t
	if errs := p.consoleErrors(); len(errs) > 0 {
		t.Errorf("console errors:\n%s", strings.Join(errs, "\n"))
	}
}
