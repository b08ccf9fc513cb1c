package scenario

import (
	"fmt"
	"reflect"

	"github.com/racetrack-sim/racetrack/core/sim"
)

// Model declares a scenario in types the compiler checks: M is the
// model, P its parameters (a struct whose fields and tags give the
// schema, see ParamsOf), V its variants (a named string type with a
// constant per variant). Scenario turns it into the catalog entry: the
// parameter schema from P, the property list from Props, the
// capabilities erased, and a New that hands the model its variant and
// its filled parameters.
type Model[M sim.Model, P any, V ~string] struct {
	ID      string
	Title   string
	Summary string
	Story   string
	Links   []Link
	// Variants are the versions of the modelled code; the first is the
	// default (by convention the buggy one).
	Variants []VariantOf[V]
	// Presets set parameters over the defaults; fill each one's Params
	// with Set[P], which names them by P's fields.
	Presets []Preset
	// Rules relate parameters; a spec that breaks one is refused.
	Rules []Rule
	// Props are the model's properties: the catalog lists their Info.
	Props sim.Props[M]
	// Capabilities is what the model offers beyond sim.Model.
	Capabilities sim.Capabilities[M]
	// Cost estimates the memory of one world (nil: a generous default).
	Cost func(p P) Cost
	// New builds the model for a variant and parameters within the
	// schema and the rules.
	New func(variant V, p P) (M, error)
}

// VariantOf is one version of the modelled code, named by a typed id.
type VariantOf[V ~string] struct {
	ID    V
	Title string
	Help  string
}

// Scenario is the catalog entry of d. Malformed parameter tags panic,
// naming the field, as a malformed registry does: a programming error
// every test of the model catches.
func (d Model[M, P, V]) Scenario() *Scenario {
	fields, err := paramFields(reflect.TypeFor[P]())
	if err != nil {
		panic(fmt.Sprintf("scenario %q: %v", d.ID, err))
	}
	sc := &Scenario{
		ID: d.ID, Title: d.Title, Summary: d.Summary, Story: d.Story, Links: d.Links,
		Presets: d.Presets, Rules: d.Rules, Properties: d.Props.Info(),
		Capabilities: d.Capabilities.Erase(),
	}
	for _, v := range d.Variants {
		sc.Variants = append(sc.Variants, Variant{ID: string(v.ID), Title: v.Title, Help: v.Help})
	}
	for _, f := range fields {
		sc.Params = append(sc.Params, f.param)
	}
	if d.Cost != nil {
		sc.Cost = func(v Values) Cost { return d.Cost(fillParams[P](fields, v)) }
	}
	if d.New != nil {
		sc.New = func(variant string, v Values) (sim.Model, error) {
			m, err := d.New(V(variant), fillParams[P](fields, v))
			if err != nil {
				return nil, err
			}
			return m, nil
		}
	}
	return sc
}
