package e2e

import (
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// TestParallelSearchRerunIsLabelled: a dfs the server splits among its
// workers that runs out of its states budget starts over on one worker
// (for the answer any number of workers gives). The page says so and
// shows the second pass's bar in its own colour, instead of the bar
// seeming to fall back to zero; the rerun's rate is not shown (its
// counts started later than the clock).
func TestParallelSearchRerunIsLabelled(t *testing.T) {
	if runtime.NumCPU() < 2 {
		t.Skip("the server's dfs runs on one worker here: there is no rerun")
	}
	srv := apiServer(t)
	p := browser(t, 1400, 900)
	p.open(srv.URL + "/#engine=server")
	selectScenario(p, "vitess-messager")
	p.do(
		chromedp.SetValue(chromedp.ID("preset"), "lock-level"),
		chromedp.Evaluate[chromedp.Void](`document.querySelector("#preset").dispatchEvent(new Event("change"))`),
	)
	eval[any](p, `for (const [k, v] of [["clients", "3"], ["iterations", "2"]]) { const el = document.querySelector('#params [name="' + k + '"]'); el.value = v; el.dispatchEvent(new Event("change")); }`)
	p.click(`#variants label:has(input[value="fixed"])`)
	p.click("#run")
	p.wait("the run", `__rt.S.run && __rt.S.run.spec.variant === "fixed" && __rt.S.run.spec.params.clients === 3 && __rt.loaded === __rt.S.run.id`, 60*time.Second)
	p.do(chromedp.SetValue(chromedp.ID("strategy"), "dfs"), chromedp.SetValue(chromedp.ID("budget"), "100000"))
	eval[any](p, `__rt.lastSearch = null; window.__statuses = []; new MutationObserver(() => window.__statuses.push([document.querySelector("#searchstatus").textContent, document.querySelector("#searchprogress").classList.contains("rerun")])).observe(document.querySelector("#searchstatus"), {childList: true, characterData: true, subtree: true})`)
	p.click("#searchgo")
	p.wait("the search result", `__rt.lastSearch && __rt.S.search === null`, 180*time.Second)
	if res := eval[map[string]any](p, `__rt.lastSearch`); res["states"] != 100000.0 || res["found"] == true {
		t.Fatalf("search: %v", res)
	}
	type status struct {
		text  string
		rerun bool
	}
	var seen []status
	for _, s := range eval[[][]any](p, `window.__statuses`) {
		seen = append(seen, status{s[0].(string), s[1].(bool)})
	}
	first, again := -1, -1
	for i, s := range seen {
		if strings.HasPrefix(s.text, "Again on one worker") {
			if again < 0 {
				again = i
			}
			if !s.rerun || strings.Contains(s.text, "/s)") {
				t.Errorf("rerun status %q: bar marked %v, shows a rate", s.text, s.rerun)
			}
		} else if strings.Contains(s.text, "states (") && first < 0 {
			first = i
		}
	}
	if again < 0 || again < first {
		t.Fatalf("want the rerun labelled (after any progress with a rate); saw %v", seen)
	}
	if !strings.Contains(seen[len(seen)-1].text, "100,000 states") {
		t.Errorf("final status %q", seen[len(seen)-1].text)
	}
}
