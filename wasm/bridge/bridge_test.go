package bridge

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/racetrack-sim/racetrack/core/catalog"
	"github.com/racetrack-sim/racetrack/core/scenario"
	"github.com/racetrack-sim/racetrack/core/timeline"
)

func call[T any](t *testing.T, b *Bridge, method string, args any) T {
	t.Helper()
	in, _ := json.Marshal(args)
	v, err := b.Call(method, in)
	if err != nil {
		t.Fatalf("%s(%s): %v", method, in, err)
	}
	out, _ := json.Marshal(v)
	var r T
	if err := json.Unmarshal(out, &r); err != nil {
		t.Fatalf("%s: decoding %s: %v", method, out, err)
	}
	return r
}

const lockLevel = `{"scenario":"dining-philosophers","preset":"lock-level","variant":"buggy","seed":16}`

func TestRunStepsStateSlice(t *testing.T) {
	b := New(catalog.New())
	sum := call[scenario.Summary](t, b, "run", map[string]json.RawMessage{"spec": json.RawMessage(lockLevel)})
	if sum.Steps == 0 || len(sum.Violations) == 0 {
		t.Fatalf("seed 16 of lock-level: %d steps, %d violations; want a deadlock", sum.Steps, len(sum.Violations))
	}
	type page struct {
		Total int
		Steps []map[string]any
	}
	pg := call[page](t, b, "steps", map[string]any{"id": sum.ID, "from": 0, "limit": 5})
	if pg.Total != sum.Steps || len(pg.Steps) != 5 {
		t.Errorf("steps page: total %d, %d steps; want %d, 5", pg.Total, len(pg.Steps), sum.Steps)
	}
	v := sum.Violations[0]
	type state struct {
		Step   int
		Groups []map[string]any
	}
	st := call[state](t, b, "state", map[string]any{"id": sum.ID, "step": v.Step})
	if st.Step != v.Step || len(st.Groups) == 0 {
		t.Errorf("state at %d: step %d, %d groups", v.Step, st.Step, len(st.Groups))
	}
	sl := call[Slice](t, b, "slice", map[string]any{"id": sum.ID, "step": v.Step})
	if len(sl.Steps) == 0 || sl.Steps[len(sl.Steps)-1] != v.Step {
		t.Errorf("slice of %d = %v, want it to end at the step", v.Step, sl.Steps)
	}
}

// The fork specs the bridge lists must be exactly timeline.Fork's.
func TestForkSpecsMatchTimeline(t *testing.T) {
	reg := catalog.New()
	spec, _ := scenario.DecodeRunSpec([]byte(lockLevel))
	tl, err := timeline.Record(reg, spec, timeline.Options{})
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for i := 0; i < tl.Len(); i++ {
		alts, err := alternatives(tl, i)
		if err != nil {
			t.Fatal(err)
		}
		for ci, a := range alts {
			for _, o := range a.Options {
				if o.Picked {
					continue
				}
				want, err := tl.Fork(i, ci, o.Index)
				if err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(*o.Spec, want) {
					t.Fatalf("step %d choice %d option %d: spec %+v, timeline.Fork gives %+v", i, ci, o.Index, *o.Spec, want)
				}
				checked++
			}
		}
	}
	if checked == 0 {
		t.Fatal("no alternative to check")
	}
	t.Logf("%d fork specs match timeline.Fork", checked)
}

func TestErrors(t *testing.T) {
	b := New(catalog.New())
	_, err := b.Call("run", []byte(`{"spec":{"scenario":"dining-philosophers","params":{"meals":0}}}`))
	var fe *scenario.FieldError
	if !errors.As(err, &fe) || fe.Field != "params.meals" {
		t.Errorf("bad meals: %v, want a field error on params.meals", err)
	}
	if _, err := b.Call("state", []byte(`{"id":"rnope","step":0}`)); !errors.Is(err, ErrNoRun) {
		t.Errorf("unknown run: %v", err)
	}
	if _, err := b.Call("frobnicate", []byte(`{}`)); !errors.Is(err, ErrMethod) {
		t.Errorf("unknown method: %v", err)
	}
	if _, err := b.Call("steps", []byte(`[`)); !errors.Is(err, ErrArgs) {
		t.Errorf("bad JSON: %v", err)
	}
}

func TestExports(t *testing.T) {
	b := New(catalog.New())
	sum := call[scenario.Summary](t, b, "run", map[string]json.RawMessage{"spec": json.RawMessage(lockLevel)})
	for _, f := range []string{"json", "shiviz", "chrome", "svg"} {
		v, err := b.Call("export", []byte(`{"id":"`+sum.ID+`","format":"`+f+`"}`))
		if err != nil {
			t.Fatalf("export %s: %v", f, err)
		}
		if raw, ok := v.(Raw); !ok || len(raw) == 0 {
			t.Errorf("export %s: %T of %d bytes", f, v, len(raw))
		}
	}
	if _, err := b.Call("export", []byte(`{"id":"`+sum.ID+`","format":"pdf"}`)); err == nil || !strings.Contains(err.Error(), "pdf") {
		t.Errorf("export pdf: %v", err)
	}
}

func TestSearchFindsAndCancels(t *testing.T) {
	b := New(catalog.New())
	cfg := `{"scenario":"dining-philosophers","preset":"lock-level","variant":"buggy","strategy":"bfs","budget":{"states":20000}}`
	reports := 0
	res, err := b.Search([]byte(cfg), Hooks{Progress: func([]byte) { reports++ }})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Found || res.Counterexample == nil {
		t.Fatalf("bfs found nothing: %+v", res.Result)
	}
	t.Logf("bfs: %d states, schedule of %d, %d progress reports", res.States, res.Length, reports)
	res, err = b.Search([]byte(cfg), Hooks{Cancelled: func() bool { return true }})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Cancelled {
		t.Errorf("a search cancelled at once reports cancelled=false")
	}
	if _, err := b.Search([]byte(`{"scenario":"dining-philosophers","strategy":"magic"}`), Hooks{}); err == nil {
		t.Errorf("unknown strategy accepted")
	}
}
