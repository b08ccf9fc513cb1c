package scylla

import (
	"testing"

	"github.com/racetrack-sim/racetrack/core/scenario"
)

// BenchmarkSteadyHotShard runs the steady-hot-shard preset (two minutes of
// virtual time) and reports simulated seconds per wall-clock second.
func BenchmarkSteadyHotShard(b *testing.B) {
	for _, trace := range []bool{false, true} {
		name := "notrace"
		if trace {
			name = "trace"
		}
		b.Run(name, func(b *testing.B) {
			reg := scenario.NewRegistry(Scenario())
			var virtual float64
			steps := 0
			for i := 0; i < b.N; i++ {
				run, err := reg.Execute(scenario.RunSpec{Scenario: ID, Preset: "steady-hot-shard", Seed: uint64(i + 1)}, scenario.Options{Trace: trace})
				if err != nil {
					b.Fatal(err)
				}
				virtual += run.World.Now().Seconds()
				steps += run.World.Steps()
			}
			wall := b.Elapsed().Seconds()
			b.ReportMetric(virtual/wall, "sim-s/s")
			b.ReportMetric(float64(steps)/wall, "steps/s")
		})
	}
}
