package catalog_test

import (
	"testing"

	"github.com/racetrack-sim/racetrack/core/catalog"
	"github.com/racetrack-sim/racetrack/core/scenario"
	"github.com/racetrack-sim/racetrack/core/sim"
)

// BenchmarkDerived compares each built-in model's hand-written Clone and
// Hash with the ones sim derives by reflection, on the state of its
// default preset after 200 steps (seed 1):
//
//	go test -run XXX -bench Derived ./core/catalog
func BenchmarkDerived(b *testing.B) {
	reg := catalog.New()
	for _, sc := range reg.List() {
		_, _, w, err := reg.Build(scenario.RunSpec{Scenario: sc.ID, Seed: 1, MaxSteps: 200}, scenario.Options{})
		if err != nil {
			b.Fatal(err)
		}
		for w.StepWithin(sim.Limits{MaxSteps: 200}) {
		}
		m := w.Model()
		b.Run(sc.ID+"/clone/hand", func(b *testing.B) {
			for b.Loop() {
				m.Clone()
			}
		})
		b.Run(sc.ID+"/clone/derived", func(b *testing.B) {
			if err := sim.Derivable(m); err != nil {
				b.Skip(err)
			}
			for b.Loop() {
				sim.DeepClone(m)
			}
		})
		b.Run(sc.ID+"/hash/hand", func(b *testing.B) {
			for b.Loop() {
				h := sim.NewHasher()
				m.Hash(&h)
			}
		})
		b.Run(sc.ID+"/hash/derived", func(b *testing.B) {
			for b.Loop() {
				h := sim.NewHasher()
				sim.HashFields(&h, m)
			}
		})
	}
}
