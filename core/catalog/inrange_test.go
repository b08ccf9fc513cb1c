package catalog_test

import (
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/racetrack-sim/racetrack/core/catalog"
	"github.com/racetrack-sim/racetrack/core/scenario"
)

// FuzzSpecsInsideTheSchema draws specs inside the published schema of
// every scenario: each one must normalise and run, or be refused with a
// FieldError naming a parameter (a broken Rule). A model error, or a
// model that refuses what the schema admits, fails the test.
func FuzzSpecsInsideTheSchema(f *testing.F) {
	for seed := range uint64(120) {
		f.Add(seed)
	}
	reg := catalog.New()
	f.Fuzz(func(t *testing.T, seed uint64) {
		spec := reg.Sample(rand.New(rand.NewPCG(seed, 17)))
		spec.MaxSteps = 1500
		ns, _, err := reg.Normalize(spec)
		if err != nil {
			var fe *scenario.FieldError
			if !errors.As(err, &fe) || fe.Field == "" {
				t.Fatalf("seed %d: spec %+v refused without naming a field: %v", seed, spec, err)
			}
			return
		}
		if _, err := reg.Execute(ns, scenario.Options{Trace: true}); err != nil {
			t.Fatalf("seed %d: spec %s inside the schema does not run: %v", seed, ns.CanonicalJSON(), err)
		}
	})
}

// TestRulesRefuseTheIssueSpecs: the two in-range specs that used to end
// as a server error are refused naming their parameters.
func TestRulesRefuseTheIssueSpecs(t *testing.T) {
	reg := catalog.New()
	for _, c := range []struct {
		preset string
		params map[string]any
		field  string
	}{
		{"", map[string]any{"lateFollower": 1.0, "lateSource": 1.0}, "params.lateSource"},
		{"leader-inconsistency", map[string]any{"script": "gh-5445", "instances": 1.0}, "params.script"},
		{"", map[string]any{"lateFollower": 5.0, "instances": 3.0}, "params.lateFollower"},
	} {
		_, _, err := reg.Normalize(scenario.RunSpec{Scenario: "tarantool-raft-relay", Preset: c.preset, Params: c.params})
		var fe *scenario.FieldError
		if !errors.As(err, &fe) || fe.Field != c.field {
			t.Fatalf("%v: got %v, want a FieldError on %s", c.params, err, c.field)
		}
	}
	_, _, err := reg.Normalize(scenario.RunSpec{Scenario: "scylla-mv-backlog", Params: map[string]any{"rf": 4.0, "nodes": 3.0}})
	var fe *scenario.FieldError
	if !errors.As(err, &fe) || fe.Field != "params.rf" {
		t.Fatalf("rf > nodes: got %v", err)
	}
}
