package conform_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/racetrack-sim/racetrack/core/conform"
	"github.com/racetrack-sim/racetrack/core/export"
	"github.com/racetrack-sim/racetrack/core/ingest"
	"github.com/racetrack-sim/racetrack/core/scenario"
	"github.com/racetrack-sim/racetrack/core/timeline"
	"github.com/racetrack-sim/racetrack/core/vitess"
)

// lockLevel is a run of the untimed lock-level preset (no condition
// variables, no messages: its export's steps can be moved and dropped
// by renumbering their parents).
func lockLevel(variant string, seed uint64) scenario.RunSpec {
	return scenario.RunSpec{Scenario: vitess.ID, Preset: vitess.PresetLockLevel, Variant: variant, Seed: seed,
		Params: map[string]any{"clients": 2, "iterations": 2}}
}

// exportedRun is an export's JSON with its steps read (the rest kept as
// it is).
type exportedRun struct {
	doc   map[string]json.RawMessage
	Steps []step
}

// step is what the tests read and change of an exported step.
type step struct {
	raw      map[string]any
	Kind     string
	ProcName string
	Label    string
	Object   string
}

func exportRun(t *testing.T, spec scenario.RunSpec) *exportedRun {
	t.Helper()
	tl, err := timeline.Record(registry, spec, timeline.Options{})
	if err != nil {
		t.Fatal(err)
	}
	data, err := export.JSON(tl)
	if err != nil {
		t.Fatal(err)
	}
	r := &exportedRun{}
	var raw []map[string]any
	if err := json.Unmarshal(data, &r.doc); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(r.doc["steps"], &raw); err != nil {
		t.Fatal(err)
	}
	for _, s := range raw {
		str := func(k string) string { v, _ := s[k].(string); return v }
		r.Steps = append(r.Steps, step{raw: s, Kind: str("kind"), ProcName: str("procName"), Label: str("label"), Object: str("object")})
	}
	return r
}

// reorder makes r's steps those of order (old indexes), renumbering the
// parents; the spans, which only condition variables need, are dropped.
func reorder(r *exportedRun, order []int) {
	at := make(map[int]int, len(order))
	for n, old := range order {
		at[old] = n
	}
	steps := make([]step, len(order))
	for n, old := range order {
		s := r.Steps[old]
		raw := make(map[string]any, len(s.raw))
		for k, v := range s.raw {
			raw[k] = v
		}
		raw["index"] = n
		if p := int(raw["parent"].(float64)); p >= 0 {
			if q, ok := at[p]; ok {
				raw["parent"] = q
			} else {
				raw["parent"] = -1
			}
		}
		s.raw = raw
		steps[n] = s
	}
	r.Steps = steps
	r.doc["spans"] = json.RawMessage("[]")
}

func validateRun(t *testing.T, spec scenario.RunSpec, r *exportedRun) (*conform.Verdict, *ingest.Execution) {
	t.Helper()
	raw := make([]map[string]any, len(r.Steps))
	for i, s := range r.Steps {
		raw[i] = s.raw
	}
	steps, err := json.Marshal(raw)
	if err != nil {
		t.Fatal(err)
	}
	r.doc["steps"] = steps
	data, err := json.Marshal(r.doc)
	if err != nil {
		t.Fatal(err)
	}
	l, err := ingest.JSON(data, ingest.Options{})
	if err != nil {
		t.Fatalf("the mutated run does not import: %v", err)
	}
	x := l.Executions[0]
	v, err := conform.Validate(check(t, spec), x, conform.Options{Mapping: conform.Identity, Format: ingest.FormatJSON})
	if err != nil {
		t.Fatal(err)
	}
	return v, x
}

func identityOrder(n int) []int {
	o := make([]int, n)
	for i := range o {
		o[i] = i
	}
	return o
}

// TestSwappedLocksLeaveTheModel swaps the first Subscribe's two locks
// (buggy: mu, then streamMu for startVStream) where they are adjacent
// in the log: the log leaves the model at the first of them, streamMu
// taken before mu, and the model could have taken mu there instead.
func TestSwappedLocksLeaveTheModel(t *testing.T) {
	for seed := uint64(1); seed <= 40; seed++ {
		spec := lockLevel("buggy", seed)
		r := exportRun(t, spec)
		for i := 0; i+1 < len(r.Steps); i++ {
			a, b := r.Steps[i], r.Steps[i+1]
			if a.ProcName != b.ProcName || a.Label != "Subscribe: mu.Lock()" || a.Kind != "lock" || b.Object != "streamMu" || b.Kind != "lock" {
				continue
			}
			order := identityOrder(len(r.Steps))
			order[i], order[i+1] = i+1, i
			reorder(r, order)
			v, _ := validateRun(t, spec, r)
			if v.Conforms || v.At == nil || v.At.Event != i || v.At.Waiting[0].Kind != "lock streamMu" {
				t.Fatalf("seed %d: swapped locks at %d: verdict %s at %+v", seed, i, v.Stop, v.At)
			}
			if !hasAlternative(v.At.Instead, a.ProcName, "lock", "mu") {
				t.Fatalf("seed %d: the model's %s could take mu there; instead lists %+v", seed, a.ProcName, v.At.Instead)
			}
			return
		}
	}
	t.Fatal("no run of 40 has the first Subscribe's locks adjacent")
}

func hasAlternative(as []conform.Alternative, proc, kind, object string) bool {
	for _, a := range as {
		if a.Proc == proc && a.Kind == kind && a.Object == object {
			return true
		}
	}
	return false
}

// TestDroppedRowEventLeavesTheModel drops the binlog's first row event
// (a local step: no vstream runs yet) from a run whose second one
// streams and that ends before Close marks the manager closed: the
// model's vstream then still owes a row event where the log has it exit
// (only a closed manager ends its binlog early), and the log leaves the
// model at that exit. (With Close in the log, the model may close first
// and end the binlog there: that log is a behaviour of the model.)
func TestDroppedRowEventLeavesTheModel(t *testing.T) {
	for seed := uint64(1); seed <= 200; seed++ {
		spec := lockLevel("fixed", seed)
		spec.MaxSteps = 40
		r := exportRun(t, spec)
		closed := false
		for _, s := range r.Steps {
			closed = closed || strings.HasPrefix(s.Label, "Close: isOpen = false")
		}
		if closed {
			continue
		}
		var vs []int
		for i, s := range r.Steps {
			if s.ProcName == "vstream" {
				vs = append(vs, i)
			}
		}
		if len(vs) < 3 || r.Steps[vs[0]].Kind != "local" || r.Steps[vs[1]].Kind != "lock" || r.Steps[vs[len(vs)-1]].Kind != "exit" {
			continue
		}
		// Control: the run as it is conforms.
		if v, _ := validateRun(t, spec, r); !v.Conforms {
			t.Fatalf("seed %d: the unmutated run leaves the model at %+v", seed, v.At)
		}
		order := identityOrder(len(r.Steps))
		order = append(order[:vs[0]], order[vs[0]+1:]...)
		exit := vs[len(vs)-1] - 1 // its index once the row event is gone
		reorder(r, order)
		v, x := validateRun(t, spec, r)
		if v.Conforms || v.At == nil || v.At.Event != exit || x.Steps[exit].Kind.String() != "exit" {
			t.Fatalf("seed %d: dropped row event: verdict %s at %+v, want the vstream's exit at %d", seed, v.Stop, v.At, exit)
		}
		return
	}
	t.Fatal("no run of 200 has a row event without a vstream, then one with, and its exit before Close")
}
