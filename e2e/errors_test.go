package e2e

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// Errors in words a person uses (issue 32, point 5), on both engines: a
// bad seed is said in the form's words with the text as typed (never
// "got a JSON string", never rounded), every bad field of a submission is
// shown at once, and a search budget names its field with the range the
// form accepts.
func TestFormErrorsWasm(t *testing.T) {
	srv := staticServer(t)
	formErrors(t, browser(t, 1280, 900), srv.URL+"/", "wasm")
}

func TestFormErrorsServer(t *testing.T) {
	srv := apiServer(t)
	formErrors(t, browser(t, 1280, 900), srv.URL+"/", "server")
}

func fieldMsg(p *page, css string) string {
	return eval[string](p, fmt.Sprintf(`(() => { const m = document.querySelector(%q)?.closest(".field")?.querySelector(".msg"); return m && !m.hidden ? m.textContent : ""; })()`, css))
}

func formErrors(t *testing.T, p *page, base, engine string) {
	p.open(base + "#engine=" + engine)
	p.wait("the first diagram", `__rt.firstDraw > 0 && __rt.loaded`, 60*time.Second)
	selectScenario(p, "dining-philosophers")
	p.wait("a run", `__rt.S.run && __rt.S.run.spec.scenario === "dining-philosophers" && __rt.loaded === __rt.S.run.id`, 60*time.Second)
	eval[any](p, `document.querySelector("#paramsbox").open = true`)
	// The catalog sends a parameter with no range (timed, a bool) with
	// min and max null: the form shows no range for it, and never "null".
	if help := eval[string](p, `document.querySelector('[data-param="timed"] .help').textContent`); strings.Contains(help, "null") || strings.Contains(help, "[") {
		t.Errorf("the bool parameter's help shows a range: %q", help)
	}
	if help := eval[string](p, `document.querySelector('[data-param="meals"] .help').textContent`); !strings.Contains(help, "[1–100]") {
		t.Errorf("meals' help does not show its range: %q", help)
	}
	set := func(css, v string) {
		eval[any](p, fmt.Sprintf(`(() => { const e = document.querySelector(%q); e.value = %q; })()`, css, v))
	}
	submit := func() {
		eval[any](p, `document.querySelector("#formerror").hidden = true`)
		p.click("#run")
		p.wait("an error", `!document.querySelector("#formerror").hidden || document.querySelector(".field.invalid")`, 30*time.Second)
	}
	for _, seed := range []string{"-1", "1.5", "1e3", "99999999999999999999"} {
		t.Run("seed "+seed, func(t *testing.T) {
			p.t = t
			set("#seed", seed)
			submit()
			msg := fieldMsg(p, "#seed")
			if !strings.Contains(msg, "“"+seed+"”") || !strings.Contains(msg, "9,007,199,254,740,991") || strings.Contains(msg, "JSON") {
				t.Errorf("seed %s: the field says %q", seed, msg)
			}
		})
	}
	p.t = t
	t.Run("all-at-once", func(t *testing.T) {
		p.t = t
		set("#seed", "1")
		set(`#params [name="meals"]`, "0")
		set(`#params [name="philosophers"]`, "40")
		submit()
		phil, meals := fieldMsg(p, `#params [name="philosophers"]`), fieldMsg(p, `#params [name="meals"]`)
		top := eval[string](p, `document.querySelector("#formerror").textContent`)
		if !strings.Contains(phil, "2–12") && !strings.Contains(phil, "12") || meals == "" || !strings.Contains(top, "2 problems") || !strings.Contains(top, "philosophers") || !strings.Contains(top, "meals") {
			t.Errorf("philosophers 40 and meals 0: philosophers says %q, meals says %q, the form says %q", phil, meals, top)
		}
		// A bad seed too: all three at once.
		set("#seed", "1e3")
		set(`#params [name="meals"]`, "0")
		set(`#params [name="philosophers"]`, "40")
		submit()
		top = eval[string](p, `document.querySelector("#formerror").textContent`)
		if !strings.Contains(top, "3 problems") || !strings.Contains(top, "Seed") || !strings.Contains(fieldMsg(p, "#seed"), "“1e3”") || fieldMsg(p, `#params [name="meals"]`) == "" {
			t.Errorf("seed 1e3, philosophers 40 and meals 0: the form says %q", top)
		}
		set("#seed", "1")
		set(`#params [name="philosophers"]`, "5")
		set(`#params [name="meals"]`, "3")
		p.click("#run")
		p.wait("the run", `__rt.S.run.spec.seed === 1 && __rt.loaded === __rt.S.run.id && !document.querySelector(".field.invalid")`, 60*time.Second)
	})
	budgets := []struct{ budget, want string }{{"0", "at least 1"}, {"-5", "at least 1"}, {"2.5", "at least 1"}}
	if engine == "server" { // the server caps a search's runs; the tab does not
		budgets = append(budgets, struct{ budget, want string }{"999999999999", "from 1 to"})
	}
	for _, c := range budgets {
		t.Run("budget "+c.budget, func(t *testing.T) {
			p.t = t
			eval[any](p, `document.querySelector("#budget").closest(".field").classList.remove("invalid")`)
			p.do(chromedp.SetValue(chromedp.ID("strategy"), "random"))
			set("#budget", c.budget)
			p.click("#searchgo")
			p.wait("the budget's message", `document.querySelector("#budget").closest(".field").classList.contains("invalid")`, 30*time.Second)
			msg := fieldMsg(p, "#budget")
			if !strings.Contains(msg, c.want) || !strings.Contains(msg, "“"+c.budget+"”") || strings.Contains(msg, "[0,") {
				t.Errorf("budget %s: the field says %q", c.budget, msg)
			}
		})
	}
	p.t = t
	if errs := eval[[]string](p, `__rt.errors`); len(errs) > 0 {
		t.Errorf("page errors: %v", errs)
	}
}
