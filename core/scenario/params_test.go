package scenario_test

import (
	"reflect"
	"strings"
	"testing"

	"github.com/racetrack-sim/racetrack/core/scenario"
	"github.com/racetrack-sim/racetrack/core/sim"
)

type order string

type everyKind struct {
	Clients int      `param:"clients" default:"2" min:"1" max:"8" unit:"clients" help:"clients"`
	Rate    float64  `default:"0.5" min:"0" max:"1" unit:"/ms" help:"write rate"`
	Timed   bool     `default:"true" help:"timed or untimed"`
	Think   sim.Time `default:"20" min:"0" max:"10000" help:"think time"`
	Order   order    `default:"fixed" enum:"fixed,random" help:"order of sizes"`
	Sizes   []int64  `default:"1,2" min:"1" max:"64" unit:"KiB" help:"write sizes"`
	Count   int64    `default:"3" help:"an unbounded count"`
	private int
}

// A params struct's schema is what the deprecated constructors declare
// for the same parameters, field for field.
func TestParamsOfMatchesTheConstructors(t *testing.T) {
	got, err := scenario.ParamsOf[everyKind]()
	if err != nil {
		t.Fatal(err)
	}
	want := []scenario.Param{
		scenario.IntParam("clients", 2, 1, 8, "clients", "clients"),
		scenario.FloatParam("rate", 0.5, 0, 1, "/ms", "write rate"),
		scenario.BoolParam("timed", true, "timed or untimed"),
		scenario.DurationParam("think", 20, 0, 10000, "think time"),
		scenario.EnumParam("order", "fixed", []string{"fixed", "random"}, "order of sizes"),
		scenario.IntListParam("sizes", []int64{1, 2}, 1, 64, "KiB", "write sizes"),
		{Name: "count", Type: scenario.TypeInt, Default: int64(3), Help: "an unbounded count"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("ParamsOf =\n%+v\nwant\n%+v", got, want)
	}
}

// Malformed tags are refused with the field named.
func TestParamsOfNamesTheBadField(t *testing.T) {
	check := func(name string, f func() ([]scenario.Param, error), want ...string) {
		t.Helper()
		_, err := f()
		if err == nil {
			t.Fatalf("%s: no error", name)
		}
		for _, w := range want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: %v, want it to say %q", name, err, w)
			}
		}
	}
	check("no help", scenario.ParamsOf[struct {
		N int `default:"1"`
	}], "field N", "help")
	check("no default", scenario.ParamsOf[struct {
		N int `help:"n"`
	}], "field N", "default")
	check("bad default", scenario.ParamsOf[struct {
		N int `default:"x" help:"n"`
	}], "field N", `default "x"`)
	check("default out of range", scenario.ParamsOf[struct {
		N int `default:"9" min:"0" max:"5" help:"n"`
	}], "field N", "outside the allowed range")
	check("string without enum", scenario.ParamsOf[struct {
		S string `default:"a" help:"s"`
	}], "field S", "enum")
	check("default not in enum", scenario.ParamsOf[struct {
		S string `default:"c" enum:"a,b" help:"s"`
	}], "field S", "must be one of")
	check("unsupported type", scenario.ParamsOf[struct {
		M map[string]int `default:"" help:"m"`
	}], "field M", "not a parameter type")
	check("duplicate name", scenario.ParamsOf[struct {
		A int `param:"n" default:"1" help:"a"`
		B int `param:"n" default:"1" help:"b"`
	}], "field B", `"n" is taken`)
	check("bad bound", scenario.ParamsOf[struct {
		N int `default:"1" min:"one" help:"n"`
	}], "field N", "min")
	check("bound on a bool", scenario.ParamsOf[struct {
		B bool `default:"true" max:"1" help:"b"`
	}], "field B", "takes no max")
	check("enum on an int", scenario.ParamsOf[struct {
		N int `default:"1" enum:"1,2" help:"n"`
	}], "field N", "takes no enum")
	check("a duration in seconds", scenario.ParamsOf[struct {
		D sim.Time `default:"1" unit:"s" help:"d"`
	}], "field D", `unit "s"`)
}

type variant string

const (
	buggy variant = "buggy"
	fixed variant = "fixed"
)

// typedModel records what New received.
type typedModel struct {
	sim.Model
	variant variant
	params  everyKind
}

// A typed declaration becomes a catalog entry whose New hands the model
// its variant and the filled struct: defaults, preset values and spec
// values alike, each in its Go type.
func TestTypedModelFillsTheParams(t *testing.T) {
	props := sim.Props[*typedModel]{sim.NoDeadlockProp[*typedModel]("none")}
	sc := scenario.Model[*typedModel, everyKind, variant]{
		ID: "typed", Title: "typed", Summary: "s", Story: "s",
		Variants: []scenario.VariantOf[variant]{{ID: buggy, Title: "b"}, {ID: fixed, Title: "f"}},
		Presets:  []scenario.Preset{{ID: "p", Title: "p", Params: map[string]any{"clients": int64(5)}, MaxTime: 10, MaxSteps: 10}},
		Props:    props,
		New: func(v variant, p everyKind) (*typedModel, error) {
			return &typedModel{variant: v, params: p}, nil
		},
	}.Scenario()
	if len(sc.Properties) != 1 || sc.Properties[0].Name != sim.NoDeadlockName {
		t.Fatalf("properties = %+v, want the one Props declares", sc.Properties)
	}
	if sc.Capabilities == nil || len(sc.Capabilities.Offered()) != 0 {
		t.Fatalf("capabilities = %v, want a declaration offering nothing", sc.Capabilities)
	}
	reg := scenario.NewRegistry(sc)
	ns, _, err := reg.Normalize(scenario.RunSpec{Scenario: "typed", Variant: "fixed", Params: map[string]any{"sizes": []any{4.0, 5.0}, "order": "random"}})
	if err != nil {
		t.Fatal(err)
	}
	m, err := sc.New(ns.Variant, scenario.Values(ns.Params))
	if err != nil {
		t.Fatal(err)
	}
	got := m.(*typedModel)
	want := everyKind{Clients: 5, Rate: 0.5, Timed: true, Think: 20 * sim.Millisecond, Order: "random", Sizes: []int64{4, 5}, Count: 3}
	if got.variant != fixed || !reflect.DeepEqual(got.params, want) {
		t.Fatalf("New got %q %+v, want fixed %+v", got.variant, got.params, want)
	}
}

// A tag error in a typed declaration panics naming the scenario and
// the field, as a malformed registry does.
func TestTypedModelWithBadTagsPanics(t *testing.T) {
	defer func() {
		s, _ := recover().(string)
		if !strings.Contains(s, `scenario "bad"`) || !strings.Contains(s, "field N") {
			t.Fatalf("recovered %q, want the scenario and the field named", s)
		}
	}()
	type bad struct {
		N int `default:"1"`
	}
	scenario.Model[*typedModel, bad, variant]{ID: "bad"}.Scenario()
}
