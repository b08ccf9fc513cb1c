package ingest_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/racetrack-sim/racetrack/core/ingest"
	"github.com/racetrack-sim/racetrack/core/sim"
)

// A deadlock as a real program logs it: two threads of one node take two
// mutexes in opposite orders and each blocks on the other's.
const deadlockTrace = `{"node":"tablet","thread":"unsubscribe","kind":"lock","obj":"mu","t":1000}
{"node":"tablet","thread":"poller","kind":"lock","obj":"streamMu","t":1500}
{"node":"tablet","thread":"poller","kind":"state","label":"readPending","fields":{"rows":3,"table":"msgs"},"t":1700}
{"node":"tablet","thread":"unsubscribe","kind":"block","obj":"streamMu","t":2000}
{"node":"tablet","thread":"poller","kind":"block","obj":"mu","t":2500}
`

func TestNDJSONDeadlockShowsTheCycle(t *testing.T) {
	l, err := ingest.NDJSON([]byte(deadlockTrace), ingest.Options{})
	if err != nil {
		t.Fatal(err)
	}
	x := l.Executions[0]
	if x.Width() != 2 || len(x.Nodes) != 1 || len(x.Mutexes) != 2 || x.Untimed {
		t.Fatalf("procs %v mutexes %v", x.Procs, x.Mutexes)
	}
	kinds := []sim.StepKind{sim.StepLock, sim.StepLock, sim.StepLocal, sim.StepBlock, sim.StepBlock}
	for i, k := range kinds {
		if x.Steps[i].Kind != k {
			t.Fatalf("step %d is %v, want %v", i, x.Steps[i].Kind, k)
		}
	}
	if x.Steps[4].Obj != 0 || x.Steps[3].Obj != 1 || x.Steps[4].Time != 1500 {
		t.Fatalf("blocks %+v %+v", x.Steps[3], x.Steps[4])
	}
	if len(x.Violations) != 1 || x.Violations[0].Step != 4 || x.Violations[0].Property != sim.NoDeadlockName ||
		x.Violations[0].Message != "poller holds streamMu, waits for mu; unsubscribe holds mu, waits for streamMu" {
		t.Fatalf("violations %+v", x.Violations)
	}
	if f := x.Fields[2]; len(f) != 2 || f[0] != (ingest.Field{Name: "rows", Value: "3"}) || f[1] != (ingest.Field{Name: "table", Value: "msgs"}) {
		t.Fatalf("fields %v", f)
	}
}

func TestNDJSONMessagesAndLockOrder(t *testing.T) {
	trace := `{"node":"a","kind":"send","msg":"m1","to":"b","label":"prepare"}
{"node":"a","thread":"w","kind":"lock","obj":"x"}
{"node":"a","thread":"w","kind":"unlock","obj":"x"}

{"node":"b","kind":"receive","msg":"m1"}
{"node":"b","kind":"crash"}
{"node":"b","kind":"restart"}
{"node":"a","kind":"lock","obj":"x"}
{"node":"a","kind":"send","msg":7}
{"node":"c","thread":"worker","kind":"local"}
{"node":"a","kind":"send","msg":8,"to":"c"}
`
	x := mustNDJSON(t, trace).Executions[0]
	if x.Len() != 10 || !x.Untimed {
		t.Fatalf("%d steps", x.Len())
	}
	recv := x.Steps[3]
	if recv.Kind != sim.StepReceive || recv.Parent != 0 || recv.Msg != 1 || x.Lines[3] != 5 {
		t.Fatalf("receive %+v line %d", recv, x.Lines[3])
	}
	m := x.Messages[0]
	if m.SentStep != 0 || m.RecvStep != 3 || x.Procs[m.To].Name != "b" || x.Labels[m.Label] != "prepare" {
		t.Fatalf("message %+v", m)
	}
	if x.Steps[6].Kind != sim.StepLock || x.Steps[6].Parent != 2 || !x.HappensBefore(1, 6) {
		t.Fatalf("the second lock does not follow the unlock: %+v", x.Steps[6])
	}
	if x.Steps[4].Kind != sim.StepFault || x.Messages[1].RecvStep != -1 || x.Messages[1].To != x.Messages[1].From {
		t.Fatalf("crash %+v, unreceived message %+v", x.Steps[4], x.Messages[1])
	}
	if m := x.Messages[2]; m.RecvStep != -1 || x.Procs[m.To].Name != "worker" {
		t.Fatalf("a message to a node of threads, never received, points at its first lane: %+v", m)
	}
	if x.HappensBefore(3, 6) {
		t.Fatal("b's receive is concurrent with a's second lock")
	}
}

func mustNDJSON(t *testing.T, s string) *ingest.Log {
	t.Helper()
	l, err := ingest.NDJSON([]byte(s), ingest.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func TestNDJSONRefuses(t *testing.T) {
	cases := []struct {
		name, trace string
		line        int
		field, says string
	}{
		{"bad json", `{"node":"a","kind":"local"`, 1, "", "not a trace event"},
		{"unknown key", `{"node":"a","kind":"local","colour":1}`, 1, "", "unknown field"},
		{"wrong type", `{"node":1,"kind":"local"}`, 1, "node", "not a trace event"},
		{"no node", `{"kind":"local"}`, 1, "node", "missing"},
		{"no kind", `{"node":"a"}`, 1, "kind", "missing"},
		{"bad kind", `{"node":"a","kind":"jump"}`, 1, "kind", "unknown kind"},
		{"no msg", `{"node":"a","kind":"send"}`, 1, "msg", "missing"},
		{"msg on local", `{"node":"a","kind":"local","msg":"m"}`, 1, "msg", "only a send"},
		{"no obj", `{"node":"a","kind":"lock"}`, 1, "obj", "names its mutex"},
		{"receive first", "{\"node\":\"b\",\"kind\":\"receive\",\"msg\":\"m\"}\n{\"node\":\"a\",\"kind\":\"send\",\"msg\":\"m\"}", 1, "msg", "before its send (line 2)"},
		{"unknown msg", `{"node":"b","kind":"receive","msg":"m"}`, 1, "msg", "unknown message id"},
		{"sent twice", "{\"node\":\"a\",\"kind\":\"send\",\"msg\":\"m\"}\n{\"node\":\"a\",\"kind\":\"send\",\"msg\":\"m\"}", 2, "msg", "sent twice"},
		{"received twice", "{\"node\":\"a\",\"kind\":\"send\",\"msg\":\"m\"}\n{\"node\":\"b\",\"kind\":\"receive\",\"msg\":\"m\"}\n{\"node\":\"b\",\"kind\":\"receive\",\"msg\":\"m\"}", 3, "msg", "received twice"},
		{"held", "{\"node\":\"a\",\"thread\":\"x\",\"kind\":\"lock\",\"obj\":\"m\"}\n{\"node\":\"a\",\"thread\":\"y\",\"kind\":\"lock\",\"obj\":\"m\"}", 2, "obj", "x holds since line 1"},
		{"unlock free", `{"node":"a","kind":"unlock","obj":"m"}`, 1, "obj", "which nobody holds"},
		{"time backwards", "{\"node\":\"a\",\"kind\":\"local\",\"t\":5}\n{\"node\":\"a\",\"kind\":\"local\",\"t\":4}", 2, "t", "goes backwards"},
		{"time missing", "{\"node\":\"a\",\"kind\":\"local\",\"t\":5}\n{\"node\":\"a\",\"kind\":\"local\"}", 2, "t", "missing on others"},
		{"after crash", "{\"node\":\"a\",\"kind\":\"crash\"}\n{\"node\":\"a\",\"thread\":\"t\",\"kind\":\"local\"}", 2, "node", "crashed at line 1"},
		{"restart alive", `{"node":"a","kind":"restart"}`, 1, "kind", "without having crashed"},
		{"long name", `{"node":"` + strings.Repeat("n", ingest.MaxNameBytes+1) + `","kind":"local"}`, 1, "node", "more than"},
		{"empty", "\n\n", 0, "log", "no events"},
	}
	for _, c := range cases {
		_, err := ingest.NDJSON([]byte(c.trace), ingest.Options{})
		var e *ingest.Error
		if !errors.As(err, &e) {
			t.Errorf("%s: got %v, want an *ingest.Error", c.name, err)
			continue
		}
		if e.Line != c.line || e.Field != c.field || !strings.Contains(e.Msg, c.says) {
			t.Errorf("%s: got line %d field %q %q; want line %d field %q saying %q", c.name, e.Line, e.Field, e.Msg, c.line, c.field, c.says)
		}
	}
}

func TestJSONRefuses(t *testing.T) {
	cases := []struct {
		name, doc   string
		line        int
		field, says string
	}{
		{"syntax", "{\n\"steps\": [}", 2, "", "not a Racetrack run export"},
		{"type", "{\n\"steps\": 3}", 2, "steps", "not a Racetrack run export"},
		{"empty", `{"procs":[],"steps":[]}`, 0, "steps", "no processes"},
		{"bad proc", `{"nodes":[{"name":"n"}],"procs":[{"name":"p","node":0}],"steps":[{"index":0,"proc":4,"kind":"local","parent":-1}]}`, 0, "steps[0].proc", "does not exist"},
		{"bad kind", `{"nodes":[{"name":"n"}],"procs":[{"name":"p","node":0}],"steps":[{"index":0,"proc":0,"kind":"fly","parent":-1}]}`, 0, "steps[0].kind", "unknown step kind"},
		{"later parent", `{"nodes":[{"name":"n"}],"procs":[{"name":"p","node":0}],"steps":[{"index":0,"proc":0,"kind":"local","parent":0}]}`, 0, "steps[0].parent", "earlier step"},
		{"unknown mutex", `{"nodes":[{"name":"n"}],"procs":[{"name":"p","node":0}],"steps":[{"index":0,"proc":0,"kind":"lock","object":"m","parent":-1}]}`, 0, "steps[0].object", "not in mutexes"},
		{"bad node", `{"nodes":[],"procs":[{"name":"p","node":0}],"steps":[{"index":0,"proc":0,"kind":"local","parent":-1}]}`, 0, "procs[0].node", "does not exist"},
	}
	for _, c := range cases {
		_, err := ingest.JSON([]byte(c.doc), ingest.Options{})
		var e *ingest.Error
		if !errors.As(err, &e) {
			t.Errorf("%s: got %v, want an *ingest.Error", c.name, err)
			continue
		}
		if e.Line != c.line || e.Field != c.field || !strings.Contains(e.Msg, c.says) {
			t.Errorf("%s: got line %d field %q %q; want line %d field %q saying %q", c.name, e.Line, e.Field, e.Msg, c.line, c.field, c.says)
		}
	}
}
