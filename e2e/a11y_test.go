package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// axeViolation is one rule axe-core reports, with the nodes that break it.
type axeViolation struct {
	ID    string `json:"id"`
	Help  string `json:"help"`
	Nodes []struct {
		Target  []any  `json:"target"`
		Summary string `json:"failureSummary"`
	} `json:"nodes"`
}

// axe runs axe-core (vendored under testdata/axe-core) on the page as it
// is and fails the test for every rule it reports.
func axe(t *testing.T, p *page, where string) {
	t.Helper()
	src, err := os.ReadFile(filepath.Join("testdata", "axe-core", "axe.min.js"))
	if err != nil {
		t.Fatal(err)
	}
	if !eval[bool](p, `typeof window.axe === "object"`) {
		eval[any](p, string(src)+";0")
	}
	raw := eval[json.RawMessage](p, `axe.run(document, {resultTypes: ["violations"]}).then((r) => JSON.stringify(r.violations))`)
	var vs []axeViolation
	var text string
	if err := json.Unmarshal(raw, &text); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(text), &vs); err != nil {
		t.Fatal(err)
	}
	for _, v := range vs {
		var nodes []string
		for k, n := range v.Nodes {
			if k == 4 {
				nodes = append(nodes, fmt.Sprintf("… %d more", len(v.Nodes)-4))
				break
			}
			nodes = append(nodes, fmt.Sprintf("%v: %s", n.Target, strings.ReplaceAll(n.Summary, "\n", " ")))
		}
		t.Errorf("%s: axe-core %s (%s):\n  %s", where, v.ID, v.Help, strings.Join(nodes, "\n  "))
	}
}

// TestAccessibility checks the page with axe-core at 1280x800 and on a
// phone (390x844) in both engines' pages: the first screen, the help
// dialog (focus moves in, stays in, and comes back), the comparison; on
// the phone, no horizontal scroll and the verdict above the diagram.
func TestAccessibility(t *testing.T) {
	for _, engine := range []string{"wasm", "server"} {
		for _, size := range []struct{ w, h int }{{1280, 800}, {390, 844}} {
			t.Run(fmt.Sprintf("%s-%dx%d", engine, size.w, size.h), func(t *testing.T) {
				base := staticServer(t).URL
				if engine == "server" {
					base = apiServer(t).URL
				}
				p := browser(t, size.w, size.h)
				p.open(base + "/#engine=" + engine)
				p.wait("the first run", `__rt.loaded && __rt.S.state`, 60*time.Second)
				axe(t, p, "first screen")
				noSideScroll(t, p, "first screen")
				if size.w < 600 {
					verdict := eval[float64](p, `document.querySelector("#verdict").getBoundingClientRect().top`)
					diagram := eval[float64](p, `document.querySelector("#diagramwrap").getBoundingClientRect().top`)
					props := eval[float64](p, `document.querySelector("#props").getBoundingClientRect().top`)
					if verdict >= diagram || verdict > 900 {
						t.Errorf("on a phone the verdict starts at %v px, the diagram at %v (the properties at %v)", verdict, diagram, props)
					}
				}
				helpDialog(t, p)
				p.click("#compare")
				p.wait("the comparison", `!document.querySelector("#comparepanel").hidden && __rt.compareView.ps.every((p) => p.list)`, 60*time.Second)
				axe(t, p, "comparison")
				noSideScroll(t, p, "comparison")
				if errs := p.consoleErrors(); len(errs) > 0 {
					t.Errorf("console errors:\n%s", strings.Join(errs, "\n"))
				}
			})
		}
	}
}

func noSideScroll(t *testing.T, p *page, where string) {
	t.Helper()
	if w, inner := eval[int](p, `document.documentElement.scrollWidth`), eval[int](p, `innerWidth`); w > inner {
		wide := eval[string](p, `[...document.querySelectorAll("body *")].filter((e) => e.getBoundingClientRect().right > innerWidth + 1).slice(0, 5).map((e) => e.tagName + "#" + e.id + "." + e.className).join(", ")`)
		t.Errorf("%s: the page is %d px wide in a %d px window (%s)", where, w, inner, wide)
	}
}

// helpDialog opens the keyboard help: focus moves into it, Tab cycles
// inside it, axe-core finds nothing, and Esc returns the focus.
func helpDialog(t *testing.T, p *page) {
	t.Helper()
	p.click("#helpbtn")
	p.wait("the help dialog", `!document.querySelector("#help").hidden`, 5*time.Second)
	if !eval[bool](p, `document.querySelector("#help").contains(document.activeElement)`) {
		t.Errorf("opening the help leaves the focus on %s", eval[string](p, `document.activeElement.id || document.activeElement.tagName`))
	}
	for i := 0; i < 4; i++ {
		p.do(chromedp.KeyEvent(kb.Tab))
		if !eval[bool](p, `document.querySelector("#help").contains(document.activeElement)`) {
			t.Errorf("Tab %d leaves the dialog for %s", i+1, eval[string](p, `document.activeElement.id || document.activeElement.tagName`))
			break
		}
	}
	axe(t, p, "help dialog")
	p.do(chromedp.KeyEvent(kb.Escape))
	p.wait("the dialog closed", `document.querySelector("#help").hidden`, 5*time.Second)
	if got := eval[string](p, `document.activeElement.id`); got != "helpbtn" {
		t.Errorf("closing the help leaves the focus on %q, want the help button", got)
	}
}
