package session_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/racetrack-sim/racetrack/core/conform"
	"github.com/racetrack-sim/racetrack/core/ingest"
	"github.com/racetrack-sim/racetrack/core/scenario"
	"github.com/racetrack-sim/racetrack/core/session"
	"github.com/racetrack-sim/racetrack/core/viz"
)

// cartLog is a ShiViz log in ShiViz's default layout (an event line, then
// the host and its vector clock): a client asks a server, which answers.
const cartLog = `client GET /cart
client {"client":1}
server request for cart
server {"server":1, "client":1}
server sending cart
server {"server":2, "client":1}
client cart received
client {"client":2, "server":2}
`

func openTrace(t *testing.T, s *session.Session, a session.TraceArgs) session.TraceOpened {
	t.Helper()
	return call[session.TraceOpened](t, s, "openTrace", a)
}

func TestOpenTraceServesEveryViewOfARun(t *testing.T) {
	s := newSession()
	o := openTrace(t, s, session.TraceArgs{TraceLog: session.TraceLog{Format: "shiviz", Log: cartLog}})
	if o.Hosts != 2 || o.Events != 4 || o.Executions != 1 || len(o.Runs) != 1 || o.Runs[0].ID != o.ID || o.Runs[0].Steps != 4 {
		t.Fatalf("opened %+v runs %+v", o.Opened, o.Runs)
	}
	run := o.ID
	page := call[session.StepsPage](t, s, "steps", map[string]any{"run": run, "from": 0, "limit": 10})
	if page.Total != 4 || len(page.Steps) != 4 {
		t.Fatalf("steps %+v", page)
	}
	d := call[*viz.Display](t, s, "layout", map[string]any{"run": run, "from": 0, "to": 4})
	if b, _ := json.Marshal(d); !strings.Contains(string(b), "client") || !strings.Contains(string(b), "server") {
		t.Fatalf("the layout does not name the hosts: %.300s", b)
	}
	found := call[session.Found](t, s, "find", map[string]any{"run": run, "step": 0, "kind": "message"})
	if !found.Found || found.Step <= 0 {
		t.Fatalf("find message from 0: %+v", found)
	}
	sl := call[session.Slice](t, s, "slice", map[string]any{"run": run, "step": 3})
	if len(sl.Steps) != 4 {
		t.Fatalf("the cart's receipt has the whole log in its past, got slice %v", sl.Steps)
	}
	ex := call[session.Exported](t, s, "export", map[string]any{"run": run, "format": "json"})
	if ex.Name != run+".json" || !strings.Contains(ex.Text, "cart received") {
		t.Fatalf("export %q %.200s", ex.Name, ex.Text)
	}
	again, err := ingest.Open("", []byte(ex.Text), ingest.Options{})
	if err != nil || again.Events != 4 || again.Hosts != 2 {
		t.Fatalf("the export does not import back: %v %+v", err, again)
	}
	call[*viz.Display](t, s, "charts", map[string]any{"run": run, "width": 400})
	if alts := call[[]session.Alternative](t, s, "alternatives", map[string]any{"run": run, "step": 1}); len(alts) != 0 {
		t.Fatalf("a log records no choices, got %+v", alts)
	}
	tree := call[session.ForkNode](t, s, "forks", map[string]any{"run": run})
	if tree.Run != run || len(tree.Children) != 0 {
		t.Fatalf("forks %+v", tree)
	}
	if e := callErr(t, s, "fork", `{"run":"`+run+`","step":1,"choice":0,"option":1}`); e.Field != "option" {
		t.Fatalf("a fork of a log: %+v", e)
	}
	if e := callErr(t, s, "compare", `{"a":"`+run+`","b":"`+run+`"}`); e.Code != session.CodeInvalid || e.Field != "a" {
		t.Fatalf("compare of logs: %+v", e)
	}
	// The engine keeps the log: it opens by id in a new call.
	if o2 := openTrace(t, s, session.TraceArgs{ID: o.ID}); o2.Events != 4 || o2.Runs[0].ID != run {
		t.Fatalf("open by id: %+v", o2)
	}
}

func TestOpenTraceSeveralExecutions(t *testing.T) {
	s := newSession()
	log := "=== first ===\na send\na {\"a\":1}\nb recv\nb {\"a\":1, \"b\":1}\n\n=== second ===\nb alone\nb {\"b\":1}\n"
	o := openTrace(t, s, session.TraceArgs{TraceLog: session.TraceLog{Format: "shiviz", Delimiter: `^=== (?<trace>.*) ===$`, Log: log}})
	if o.Executions != 2 || len(o.Runs) != 2 || o.Runs[0].ID != o.ID+"-1" || o.Runs[1].ID != o.ID+"-2" || o.Runs[1].Steps != 1 {
		t.Fatalf("opened %+v runs %+v", o.Opened, o.Runs)
	}
	if strings.Join(o.Labels, ",") != "first,second" {
		t.Fatalf("labels %v", o.Labels)
	}
	st := call[session.State](t, s, "state", map[string]any{"run": o.Runs[1].ID, "step": 0})
	if st.Step != 0 {
		t.Fatalf("state %+v", st)
	}
	if e := callErr(t, s, "steps", `{"run":"`+o.ID+`"}`); e.Code != session.CodeNotFound {
		t.Fatalf("the log's own id names no run when it holds two: %+v", e)
	}
}

func TestOpenTraceRefusesNamingLineAndField(t *testing.T) {
	s := newSession()
	backwards := strings.Replace(cartLog, `client {"client":2, "server":2}`, `client {"client":2, "server":2}
client went back
client {"client":1, "server":2}`, 1)
	for _, c := range []struct {
		name, args, field, says string
		line                    int
	}{
		{"a clock that goes backwards", mustJSON(t, session.TraceArgs{TraceLog: session.TraceLog{Format: "shiviz", Log: backwards}}), "log", `line 9, field "clock"`, 9},
		{"a receive before its send", `{"format":"ndjson","log":"{\"node\":\"a\",\"kind\":\"receive\",\"msg\":1}\n"}`, "log", `line 1, field "msg"`, 1},
		{"bad JSON", `{"format":"ndjson","log":"{\"node\":\n"}`, "log", "line 1", 1},
		{"an invalid parser", `{"format":"shiviz","parser":"(?<host>[a-z","log":"x"}`, "parser", "Go RE2", 0},
		{"a parser without clock", `{"format":"shiviz","parser":"(?<host>\\S+) (?<event>.*)","log":"a b"}`, "parser", "clock", 0},
		{"lookahead", `{"format":"shiviz","parser":"(?=x)(?<host>.)(?<clock>.)(?<event>.)","log":"a b"}`, "parser", "lookaround", 0},
		{"a delimiter matching nothing", `{"format":"shiviz","delimiter":"x*","log":"` + strings.ReplaceAll(strings.ReplaceAll(cartLog, `"`, `\"`), "\n", `\n`) + `"}`, "delimiter", "empty", 1},
		{"an unknown format", `{"format":"xml","log":"x"}`, "format", "shiviz", 0},
		{"no log", `{"format":"shiviz"}`, "log", "needs a log", 0},
		{"an unknown key", `{"format":"shiviz","log":"x","extra":1}`, "extra", "", 0},
		{"both id and log", `{"id":"log-0123456789abcdef","log":"x"}`, "id", "not both", 0},
		{"an id the engine does not hold", `{"id":"log-0123456789abcdef"}`, "id", "open the log file again", 0},
	} {
		e := callErr(t, s, "openTrace", c.args)
		if e.Field != c.field || e.Line != c.line || !strings.Contains(e.Message, c.says) {
			t.Errorf("%s: got %+v, want field %q line %d saying %q", c.name, e, c.field, c.line, c.says)
		}
	}
}

func TestOpenTraceWithinTheMemoryAllowed(t *testing.T) {
	c := &session.TraceCache{MaxLogs: 2, MaxBytes: 64 << 10}
	s := session.New(session.Config{Registry: reg, Traces: c})
	var b strings.Builder
	b.WriteString(cartLog)
	for i := 3; i < 400; i++ {
		fmt.Fprintf(&b, "client tick\nclient {\"client\":%d, \"server\":2}\n", i)
	}
	e := callErr(t, s, "openTrace", mustJSON(t, session.TraceArgs{TraceLog: session.TraceLog{Format: "shiviz", Log: b.String()}}))
	if e.Code != session.CodeInvalid || e.Field != "log" || !strings.Contains(e.Message, "needs about") {
		t.Fatalf("a log over the engine's memory: %+v", e)
	}
	o := openTrace(t, s, session.TraceArgs{TraceLog: session.TraceLog{Log: cartLog}})
	if o.Format != ingest.FormatShiViz || o.Events != 4 {
		t.Fatalf("a small log, its format told from its bytes: %+v", o.Opened)
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// untimedVitess is a vitess run validation can search (no drawn
// durations).
func untimedVitess(variant string) scenario.RunSpec {
	return scenario.RunSpec{Scenario: "vitess-messager", Preset: "lock-level", Variant: variant, Seed: 3, MaxSteps: 400,
		Params: map[string]any{"timed": false, "iterations": 2}}
}

// A model's own run, exported and opened as a log, conforms to the
// model; the aligned model run opens in the session with one step per
// matched model step, and its steps map to the log's events.
func TestCheckAgainstAModel(t *testing.T) {
	s := newSession()
	spec := untimedVitess("fixed")
	run := call[scenario.Summary](t, s, "open", map[string]any{"spec": spec})
	ex := call[session.Exported](t, s, "export", map[string]any{"run": run.ID, "format": "json"})
	o := openTrace(t, s, session.TraceArgs{TraceLog: session.TraceLog{Format: "json", Log: ex.Text}})
	got := call[session.Checked](t, s, "check", map[string]any{"run": o.ID, "spec": spec, "mapping": "identity"})
	v := got.Verdict
	if !v.Conforms || v.Matched != o.Events || got.Model == nil || got.Model.Steps != len(v.StepEvents) {
		t.Fatalf("verdict %+v model %+v", v, got.Model)
	}
	// The model run's steps are the log's: step k matched event StepEvents[k].
	logSteps := call[session.StepsPage](t, s, "steps", map[string]any{"run": o.ID, "from": 0, "limit": 1000})
	modelSteps := call[session.StepsPage](t, s, "steps", map[string]any{"run": got.Model.ID, "from": 0, "limit": 1000})
	for k, e := range v.StepEvents {
		if e < 0 {
			continue
		}
		if a, b := modelSteps.Steps[k], logSteps.Steps[e]; a.Proc != b.Proc || a.Kind != b.Kind {
			t.Fatalf("model step %d (%+v) matched event %d (%+v)", k, a, e, b)
		}
	}
	if e := callErr(t, s, "check", `{"run":"`+o.ID+`","spec":{"scenario":"vitess-messager"}}`); e.Field != "spec" || !strings.Contains(e.Message, "untimed") {
		t.Fatalf("a timed model: %+v", e)
	}
	maps := call[[]conform.Mapping](t, s, "mappings", map[string]any{"scenario": "vitess-messager"})
	if len(maps) < 2 || maps[len(maps)-1].Name != conform.Identity {
		t.Fatalf("vitess's mappings %+v", maps)
	}
	if e := callErr(t, s, "mappings", `{"scenario":"nope"}`); e.Field != "scenario" {
		t.Fatalf("mappings of no scenario: %+v", e)
	}
	// Against a model that has no mapping of that name, or a bad spec.
	if e := callErr(t, s, "check", `{"run":"`+o.ID+`","spec":{"scenario":"vitess-messager","params":{"timed":false}},"mapping":"nope"}`); e.Field != "mapping" {
		t.Fatalf("an unknown mapping: %+v", e)
	}
	if e := callErr(t, s, "check", `{"run":"`+o.ID+`","spec":{"scenario":"nope"}}`); !strings.HasPrefix(e.Field, "spec") {
		t.Fatalf("an unknown scenario: %+v", e)
	}
	if e := callErr(t, s, "check", `{"run":"`+run.ID+`","spec":{"scenario":"vitess-messager"}}`); e.Code != session.CodeNotFound || e.Field != "run" {
		t.Fatalf("a model run is no log: %+v", e)
	}
}

// A log plays like a run: frames step through its events, with the
// fields its hosts logged.
func TestPlayALog(t *testing.T) {
	s := newSession()
	o := openTrace(t, s, session.TraceArgs{TraceLog: session.TraceLog{Format: "ndjson", Log: `{"node":"a","kind":"state","fields":{"x":1}}
{"node":"a","kind":"send","msg":1,"to":"b"}
{"node":"b","kind":"receive","msg":1}
{"node":"a","kind":"state","fields":{"x":2}}
`}})
	p := call[*session.Player](t, s, "play", map[string]any{"run": o.ID, "step": 0, "speed": 10})
	f, err := p.First()
	if err != nil || f.Step != 0 || len(f.Changed) != 1 || f.Changed[0].Name != "x" || f.Changed[0].Value != "1" {
		t.Fatalf("first frame %+v, %v", f, err)
	}
	f, err = p.Advance(2)
	if err != nil || f == nil || f.Step != 2 || len(f.Changed) != 0 || len(f.Edges) != 1 || f.Edges[0].Kind != "message" {
		t.Fatalf("frame %+v, %v", f, err)
	}
	f, err = p.Advance(5)
	if err != nil || f == nil || f.Step != 3 || !f.End || len(f.Changed) != 1 || f.Changed[0].Value != "2" {
		t.Fatalf("the last frame %+v, %v", f, err)
	}
}

// A timed model's own run conforms when the check takes the run's draws
// from its seed (fromSeed); without them the model is refused.
func TestCheckFromTheSeed(t *testing.T) {
	s := newSession()
	spec := scenario.RunSpec{Scenario: "dining-philosophers", Preset: "table", Variant: "fixed", Seed: 9, MaxSteps: 60}
	run := call[scenario.Summary](t, s, "open", map[string]any{"spec": spec})
	ex := call[session.Exported](t, s, "export", map[string]any{"run": run.ID, "format": "json"})
	o := openTrace(t, s, session.TraceArgs{TraceLog: session.TraceLog{Format: "json", Log: ex.Text}})
	if e := callErr(t, s, "check", mustJSON(t, map[string]any{"run": o.ID, "spec": spec, "mapping": "identity"})); e.Field != "spec" {
		t.Fatalf("a timed model without the seed's draws: %+v", e)
	}
	got := call[session.Checked](t, s, "check", map[string]any{"run": o.ID, "spec": spec, "mapping": "identity", "fromSeed": true})
	if !got.Verdict.Conforms || got.Model == nil {
		t.Fatalf("with the seed's draws: %+v", got.Verdict)
	}
}
