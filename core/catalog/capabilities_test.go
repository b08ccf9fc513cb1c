package catalog_test

import (
	"slices"
	"testing"

	"github.com/racetrack-sim/racetrack/core/catalog"
	"github.com/racetrack-sim/racetrack/core/scenario"
	"github.com/racetrack-sim/racetrack/core/sim"
)

// TestEveryModelDeclaresItsCapabilities holds the built-in models to
// the typed declaration: each registers one, and it offers exactly what
// the deprecated interfaces would have found from the model's methods,
// so that no capability a model implements is left out (which would
// silently turn it off) and none is declared that the model lacks. Log
// mappings, which have no method form, are left out of the comparison.
func TestEveryModelDeclaresItsCapabilities(t *testing.T) {
	reg := catalog.New()
	for _, sc := range reg.List() {
		if sc.Capabilities == nil {
			t.Errorf("%s registers no sim.Capabilities", sc.ID)
			continue
		}
		_, _, w, err := reg.Build(scenario.RunSpec{Scenario: sc.ID, Seed: 1}, scenario.Options{})
		if err != nil {
			t.Fatalf("%s: %v", sc.ID, err)
		}
		if w.Capabilities() != sc.Capabilities {
			t.Errorf("%s: the world reads another declaration than the one registered", sc.ID)
		}
		// Log mappings (Logs) are declarations only: no method of the
		// deprecated interfaces stands for them.
		declared := slices.DeleteFunc(sc.Capabilities.Offered(), func(f string) bool { return f == "Logs" })
		methods := sim.MethodCapabilities(w.Model()).Offered()
		if !slices.Equal(declared, methods) {
			t.Errorf("%s declares %v; its methods offer %v", sc.ID, declared, methods)
		}
	}
}
