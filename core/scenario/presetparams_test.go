package scenario_test

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/racetrack-sim/racetrack/core/scenario"
	"github.com/racetrack-sim/racetrack/core/sim"
)

// A typed preset is the map it replaces: every field it assigns, one
// equal to its default (Clients, Timed) too, in the normalised form, and
// no field it leaves alone.
func TestSetNamesTheFieldsItAssigns(t *testing.T) {
	got := scenario.Set(func(p *everyKind) {
		p.Clients, p.Timed = 2, true
		p.Think = 1500 * sim.Microsecond
		p.Order, p.Sizes = "random", []int64{7}
		p.Rate = 0.25
	})
	want := map[string]any{"clients": int64(2), "timed": true, "think": 1.5, "order": "random", "sizes": []int64{7}, "rate": 0.25}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("Set = %#v, want %#v", got, want)
	}
	if got := scenario.Set(func(*everyKind) {}); len(got) != 0 {
		t.Fatalf("a preset that sets nothing = %v, want no parameter", got)
	}
}

// A preset declared with Set lists the same catalog JSON and runs the
// same spec as the literal map it replaces.
func TestSetMatchesTheMapItReplaces(t *testing.T) {
	typed := scenario.Set(func(p *everyKind) { p.Clients, p.Think, p.Sizes = 5, 40*sim.Millisecond, []int64{3, 4} })
	literal := map[string]any{"clients": int64(5), "think": 40.0, "sizes": []any{3.0, 4.0}}
	a, _ := json.Marshal(typed)
	b, _ := json.Marshal(literal)
	if string(a) != string(b) {
		t.Fatalf("catalog JSON %s, want %s", a, b)
	}
	ids := make([]string, 2)
	for i, params := range []map[string]any{typed, literal} {
		sc := scenario.Model[*typedModel, everyKind, variant]{
			ID: "typed", Title: "typed", Summary: "s", Story: "s",
			Variants: []scenario.VariantOf[variant]{{ID: buggy, Title: "b"}},
			Presets:  []scenario.Preset{{ID: "p", Title: "p", Params: params, MaxTime: 10, MaxSteps: 10}},
			Props:    sim.Props[*typedModel]{sim.NoDeadlockProp[*typedModel]("none")},
			New:      func(v variant, p everyKind) (*typedModel, error) { return &typedModel{variant: v, params: p}, nil },
		}.Scenario()
		ns, _, err := scenario.NewRegistry(sc).Normalize(scenario.RunSpec{Scenario: "typed", Preset: "p"})
		if err != nil {
			t.Fatal(err)
		}
		ids[i] = ns.ID()
	}
	if ids[0] != ids[1] {
		t.Fatalf("run ids %s (Set) and %s (map) differ", ids[0], ids[1])
	}
}

// A preset that computes a field from another, or changes a list in
// place, cannot say what it sets: it panics naming the field.
func TestSetRefusesAComputedField(t *testing.T) {
	for name, set := range map[string]func(*everyKind){
		"computed": func(p *everyKind) { p.Count = int64(p.Clients) * 2 },
		"in place": func(p *everyKind) { p.Sizes[0] = 9 },
	} {
		func() {
			defer func() {
				s, _ := recover().(string)
				want := "field Count"
				if name == "in place" {
					want = "field Sizes"
				}
				if !strings.Contains(s, want) {
					t.Errorf("%s: recovered %q, want it to name %s", name, s, want)
				}
			}()
			scenario.Set(set)
		}()
	}
}
