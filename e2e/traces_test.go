package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// twoPhaseLog is a ShiViz log in ShiViz's default layout (an event line,
// then the host and its JSON vector clock): a two-phase commit of a
// coordinator and three participants, 28 events.
const twoPhaseLog = "testdata/twophase.shiviz.log"

// TestOpenLogWasm drops a ShiViz log onto the page served as static
// files: the wasm engine imports it in its worker, with no server.
func TestOpenLogWasm(t *testing.T) {
	srv := staticServer(t)
	p := browser(t, 1280, 800)
	openLogSuite(t, p, srv.URL+"/", "wasm")
}

// TestOpenLogServer drops the log onto the page of cmd/server's handler:
// the page uploads it (POST /api/v1/traces) and opens it over the
// session socket; #trace=ID opens it again from the server's store.
func TestOpenLogServer(t *testing.T) {
	srv := apiServer(t)
	p := browser(t, 1280, 800)
	openLogSuite(t, p, srv.URL+"/", "server")
}

// dropFile dispatches a file drop on the page (what a drag from the
// desktop delivers: dragenter, dragover, drop with the file).
func dropFile(p *page, name, text string) {
	p.t.Helper()
	b, _ := json.Marshal(text)
	eval[any](p, fmt.Sprintf(`(() => {
		const dt = new DataTransfer();
		dt.items.add(new File([%s], %q, {type: "text/plain"}));
		for (const type of ["dragenter", "dragover", "drop"]) {
			document.querySelector("#diagram").dispatchEvent(new DragEvent(type, {dataTransfer: dt, bubbles: true, cancelable: true}));
		}
	})()`, b, name))
}

func openLogSuite(t *testing.T, p *page, base, engine string) {
	log, err := os.ReadFile(twoPhaseLog)
	if err != nil {
		t.Fatal(err)
	}
	p.open(base + "#engine=" + engine)
	if got := eval[string](p, `__rt.S.engine.name`); got != engine {
		t.Fatalf("engine = %q, want %q", got, engine)
	}
	p.wait("the first diagram", `__rt.firstDraw > 0 && __rt.loaded`, 60*time.Second)
	if got := eval[string](p, `document.querySelector("#logparser").value`); got != `(?<event>.*)\n(?<host>\S*) (?<clock>{.*})` {
		t.Fatalf("the parser control holds %q, not ShiViz's default", got)
	}

	dropFile(p, "twophase.shiviz.log", string(log))
	p.wait("the log's diagram", `__rt.S.trace && __rt.loaded === __rt.S.trace.opened.runs[0].id`, 30*time.Second)
	type shown struct {
		Lanes  []string
		Total  int
		Title  string
		Hosts  int
		Events int
		Step   int
	}
	got := eval[shown](p, `({lanes: __rt.diagram.p.list.lanes.map((l) => l.label), total: __rt.S.total, title: document.querySelector("#runtitle").textContent,
		hosts: __rt.S.trace.opened.hosts, events: __rt.S.trace.opened.events, step: __rt.S.step})`)
	for _, host := range []string{"coordinator", "p1", "p2", "p3"} {
		if !slices.ContainsFunc(got.Lanes, func(l string) bool { return strings.Contains(l, host) }) {
			t.Errorf("no lane for host %s: lanes %v", host, got.Lanes)
		}
	}
	if got.Total != 28 || got.Hosts != 4 || got.Events != 28 || got.Step != 0 || !strings.Contains(got.Title, "twophase.shiviz.log") {
		t.Fatalf("the page shows %+v", got)
	}
	eval[any](p, `document.querySelector("#verdict").scrollIntoView({block: "start"})`)
	writeTraceScreenshot(t, p, "open-log-"+engine)

	// Step forward and back with the toolbar, as a person would.
	for i, want := range []int{1, 2, 3} {
		p.click("#fwd")
		p.wait(fmt.Sprintf("step %d", want+1), fmt.Sprintf(`__rt.S.step === %d && __rt.S.state && __rt.S.state.step === %d`, want, want), 10*time.Second)
		if pos := eval[string](p, `document.querySelector("#pos").textContent`); !strings.HasPrefix(pos, fmt.Sprintf("step %d / 28", i+2)) {
			t.Fatalf("after %d steps forward the position reads %q", i+1, pos)
		}
	}
	p.click("#back")
	p.wait("a step back", `__rt.S.step === 2 && __rt.S.state.step === 2`, 10*time.Second)
	// A bug's card names the model to check the log against; the log
	// stays. The two-phase commit is no philosophers' run: the check
	// names the line and the field where the log does not bind.
	id := eval[string](p, `__rt.S.run.id`)
	p.click(`#scenarios button[data-id="dining-philosophers"]`)
	p.wait("the model picked", fmt.Sprintf(`__rt.S.scenario.id === "dining-philosophers" && __rt.S.trace && __rt.loaded === %q && __rt.S.run.id === %q`, id, id), 10*time.Second)
	eval[any](p, `(() => { document.querySelector("#preset").value = "lock-level"; document.querySelector("#checkmapping").value = "identity"; })()`)
	p.click("#checkbtn")
	p.wait("the check's refusal", `!document.querySelector("#checkerror").hidden`, 30*time.Second)
	if msg := eval[string](p, `document.querySelector("#checkerror").textContent`); !strings.Contains(msg, "line") {
		t.Errorf("the check's refusal says %q; want the line", msg)
	}
	if opts := eval[int](p, `document.querySelectorAll("#checkmappings option").length`); opts < 1 {
		t.Error("no log mapping offered")
	}

	// Play runs through the log to its last event.
	p.click("#first")
	p.wait("the first step", `__rt.S.step === 0`, 10*time.Second)
	p.click("#play")
	p.wait("the playback's end", `__rt.S.step === 27 && !__rt.S.playing`, 20*time.Second)
	// The last event is the coordinator's receipt of p3's ACK: its causal
	// slice holds p3's steps.
	p.click("#slicebtn")
	p.wait("the slice", `__rt.S.slice && __rt.S.slice.step === 27`, 10*time.Second)

	if engine == "server" {
		// The address names the log; a fresh tab opens it from the store.
		p.wait("the address", fmt.Sprintf(`location.hash.includes("trace=%s")`, id), 5*time.Second)
		p.do(chromedp.Navigate("about:blank"))
		p.open(base + "#engine=server&trace=" + id + "&step=5&v=2")
		p.wait("the stored log", fmt.Sprintf(`__rt.loaded === %q && __rt.S.step === 4`, id), 30*time.Second)
	}

	// A log that is no valid execution is refused naming line and field.
	bad := strings.Replace(string(log), `p1 {"coordinator": 1, "p1": 1}`, `p1 {"coordinator": 7, "p1": 1}`, 1)
	if bad == string(log) {
		t.Fatal("the bad log is the good one")
	}
	dropFile(p, "bad.log", bad)
	p.wait("the refusal", `!document.querySelector("#logerror").hidden`, 30*time.Second)
	msg := eval[string](p, `document.querySelector("#logerror").textContent`)
	if !strings.Contains(msg, "line ") || !strings.Contains(msg, "clock") {
		t.Errorf("the refusal says %q; want the line and the field", msg)
	}

	// A log written for ShiViz with its own parser (one line an event,
	// JavaScript's named groups), then a parser without a clock group.
	eval[any](p, `(() => {
		document.querySelector("#logopts").open = true;
		document.querySelector("#logformat").value = "shiviz";
		document.querySelector("#logparser").value = "(?<host>\\S+) (?<clock>{.*}) (?<event>.*)";
	})()`)
	dropFile(p, "oneline.log", "a {\"a\":1} sends x\nb {\"a\":1, \"b\":1} gets x\n")
	p.wait("the one-line log", `__rt.S.trace && __rt.S.trace.name === "oneline.log" && __rt.loaded === __rt.S.trace.opened.runs[0].id && __rt.S.total === 2`, 30*time.Second)
	eval[any](p, `document.querySelector("#logparser").value = "(?<host>\\S+) (?<event>.*)"`)
	dropFile(p, "oneline.log", "a {\"a\":1} sends x\n")
	p.wait("the parser's refusal", `!document.querySelector("#logerror").hidden && document.querySelector("#logerror").dataset.field === "parser"`, 30*time.Second)
	if !eval[bool](p, `document.querySelector("#logparser").classList.contains("invalid")`) {
		t.Error("the parser control is not marked invalid")
	}
	if errs := p.consoleErrors(); len(errs) > 0 {
		t.Errorf("console errors: %v", errs)
	}
}

// writeTraceScreenshot stores a PNG in the test's temporary folder (and
// under docs/screenshots with -screenshots) to look at.
func writeTraceScreenshot(t *testing.T, p *page, name string) {
	buf, err := chromedp.Run(p.ctx, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatal(err)
	}
	dir := os.Getenv("RACETRACK_SHOTS")
	if dir == "" {
		writeScreenshot(t, p, name)
		return
	}
	if err := os.WriteFile(filepath.Join(dir, name+".png"), buf, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestCheckAgainstModelWasm and TestCheckAgainstModelServer: a run the
// model exported, dropped on the page as a log, checked against the
// model: it conforms, and the log and the aligned model run show side by
// side with one cursor; against the other variant it leaves the model at
// an event, with what the model could have done.
func TestCheckAgainstModelWasm(t *testing.T) {
	srv := staticServer(t)
	checkSuite(t, browser(t, 1280, 900), srv.URL+"/", "wasm")
}

func TestCheckAgainstModelServer(t *testing.T) {
	srv := apiServer(t)
	checkSuite(t, browser(t, 1280, 900), srv.URL+"/", "server")
}

func checkSuite(t *testing.T, p *page, base, engine string) {
	p.open(base + "#engine=" + engine)
	p.wait("the first diagram", `__rt.firstDraw > 0 && __rt.loaded`, 60*time.Second)
	spec := `{scenario: "dining-philosophers", preset: "lock-level", variant: "fixed", seed: 5}`
	exported := eval[string](p, `(async () => { const s = await __rt.runSpec(`+spec+`); return (await __rt.S.engine.exportRun(s.id, "json")).text; })()`)
	dropFile(p, "philosophers-fixed-seed5.json", exported)
	p.wait("the log", `__rt.S.trace && __rt.loaded === __rt.S.trace.opened.runs[0].id`, 30*time.Second)
	if eval[bool](p, `document.querySelector("#checkbox").hidden`) {
		t.Fatal("no Check against a model control with a log loaded")
	}
	eval[any](p, `document.querySelector("#checkmapping").value = "identity"`)
	p.click("#checkbtn")
	p.wait("the verdict", `__rt.S.check && !document.querySelector("#checkpanel").hidden`, 60*time.Second)
	type verdict struct {
		Conforms bool
		Events   int
		Matched  int
		Model    int
		Text     string
	}
	v := eval[verdict](p, `({conforms: __rt.S.check.verdict.conforms, events: __rt.S.check.verdict.events, matched: __rt.S.check.verdict.matched,
		model: __rt.S.check.model ? __rt.S.check.model.steps : -1, text: document.querySelector("#checkout").textContent})`)
	if !v.Conforms || v.Matched != v.Events || v.Model <= 0 || !strings.Contains(v.Text, "conforms") {
		t.Fatalf("the check shows %+v", v)
	}
	// One cursor: stepping the log moves the model's mark to the step
	// that matched the event.
	p.click("#fwd")
	p.click("#fwd")
	p.wait("the shared cursor", `__rt.S.step === 2 && document.querySelector("#chkcursor").textContent.startsWith("log event 3 ↔ model step")`, 10*time.Second)
	marks := eval[[]int](p, `__rt.checkView.marks`)
	if marks[0] != 2 || marks[1] < 0 {
		t.Fatalf("the cursor marks are %v at log event 3", marks)
	}
	eval[any](p, `document.querySelector("#checkpanel").scrollIntoView({block: "start"})`)
	writeTraceScreenshot(t, p, "check-conforms-"+engine)

	// The lower-fork-first log against the left-fork-first model.
	p.click(`#variants input[value="buggy"]`)
	p.click("#checkbtn")
	p.wait("the second verdict", `__rt.S.check && __rt.S.check.spec.variant === "buggy"`, 60*time.Second)
	leaves := eval[struct {
		Stop  string
		Event int
		Text  string
		Step  int
	}](p, `({stop: __rt.S.check.verdict.stop, event: __rt.S.check.verdict.at ? __rt.S.check.verdict.at.event : -1,
		text: document.querySelector("#checkout").textContent, step: __rt.S.step})`)
	if leaves.Stop != "leaves" || leaves.Event < 0 || !strings.Contains(leaves.Text, fmt.Sprintf("leaves the model at event %d", leaves.Event+1)) ||
		!strings.Contains(leaves.Text, "could have done instead") || leaves.Step != leaves.Event {
		t.Fatalf("against the other variant: %+v", leaves)
	}
	eval[any](p, `document.querySelector("#checkpanel").scrollIntoView({block: "start"})`)
	writeTraceScreenshot(t, p, "check-leaves-"+engine)
	if errs := p.consoleErrors(); len(errs) > 0 {
		t.Errorf("console errors: %v", errs)
	}
}

// TestOpenLogFollowsTheEngineSwitch: a log opened on the server moves
// with the core when the engine changes to the tab (imported again in
// the worker from the file).
func TestOpenLogFollowsTheEngineSwitch(t *testing.T) {
	srv := apiServer(t)
	p := browser(t, 1280, 800)
	p.open(srv.URL + "/#engine=server")
	p.wait("the first diagram", `__rt.firstDraw > 0 && __rt.loaded`, 60*time.Second)
	log, err := os.ReadFile(twoPhaseLog)
	if err != nil {
		t.Fatal(err)
	}
	dropFile(p, "twophase.shiviz.log", string(log))
	p.wait("the log on the server", `__rt.S.engine.name === "server" && __rt.S.trace && __rt.loaded === __rt.S.trace.opened.runs[0].id`, 30*time.Second)
	id := eval[string](p, `__rt.S.run.id`)
	eval[any](p, `(() => { const e = document.querySelector("#engine"); e.value = "wasm"; e.dispatchEvent(new Event("change")); })()`)
	p.wait("the log in the tab", fmt.Sprintf(`__rt.S.engine.name === "wasm" && __rt.loaded === %q && __rt.S.total === 28`, id), 30*time.Second)
	if errs := p.consoleErrors(); len(errs) > 0 {
		t.Errorf("console errors: %v", errs)
	}
}
