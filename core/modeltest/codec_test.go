package modeltest_test

import (
	"reflect"
	"testing"

	"github.com/racetrack-sim/racetrack/core/catalog"
	"github.com/racetrack-sim/racetrack/core/scenario"
)

// TestCatalogListsPayloadTypes holds every catalog model that sends
// messages to a list of its payload types (Capabilities.PayloadTypes),
// which the state codec needs: every payload a run of each preset and
// variant (three seeds) leaves pending is of a listed type.
func TestCatalogListsPayloadTypes(t *testing.T) {
	reg := catalog.New()
	steps := 3000
	if testing.Short() {
		steps = 600
	}
	for _, sc := range reg.List() {
		for _, p := range sc.Presets {
			for _, v := range sc.Variants {
				for seed := uint64(1); seed <= 3; seed++ {
					ns, _, w, err := reg.Build(scenario.RunSpec{Scenario: sc.ID, Preset: p.ID, Variant: v.ID, Seed: seed, MaxSteps: steps}, scenario.Options{})
					if err != nil {
						t.Fatal(err)
					}
					listed := map[reflect.Type]bool{}
					if f := w.Capabilities().PayloadTypes; f != nil {
						for _, x := range f(w.Model()) {
							listed[reflect.TypeOf(x)] = true
						}
					}
					for w.StepWithin(ns.Limits()) {
						for _, e := range w.Pending() {
							if e.Payload != nil && !listed[reflect.TypeOf(e.Payload)] {
								t.Fatalf("%s/%s/%s seed %d: step %d sends a %T, which the model's PayloadTypes does not list", sc.ID, p.ID, v.ID, seed, w.Steps(), e.Payload)
							}
						}
					}
				}
			}
		}
	}
}
