package check_test

import (
	"testing"

	"github.com/racetrack-sim/racetrack/core/catalog"
	"github.com/racetrack-sim/racetrack/core/check"
)

// benchSearch runs cfg b.N times and reports states/s, transitions/s and
// runs/s.
func benchSearch(b *testing.B, cfg check.Config) {
	reg := catalog.New()
	var states, transitions, runs int
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		x, err := check.New(reg, cfg)
		if err != nil {
			b.Fatal(err)
		}
		r := x.Run()
		states, transitions, runs = states+r.States, transitions+r.Transitions, runs+r.Runs
	}
	sec := b.Elapsed().Seconds()
	if states > 0 {
		b.ReportMetric(float64(states)/sec, "states/s")
		b.ReportMetric(float64(transitions)/sec, "transitions/s")
	}
	if runs > 0 {
		b.ReportMetric(float64(runs)/sec, "runs/s")
	}
}

func BenchmarkBFSPhilosophers5Fixed(b *testing.B) {
	benchSearch(b, philo(check.BFS, "fixed", 5, check.Reductions{}))
}

func BenchmarkDFSPhilosophers5Fixed(b *testing.B) {
	benchSearch(b, philo(check.DFS, "fixed", 5, check.Reductions{}))
}

func BenchmarkDFSPhilosophers8FixedReduced(b *testing.B) {
	benchSearch(b, philo(check.DFS, "fixed", 8, check.DefaultReductions(check.DFS)))
}

func BenchmarkBFSVitessBuggyC3Iter3(b *testing.B) {
	benchSearch(b, check.Config{Scenario: "vitess-messager", Preset: "lock-level", Variant: "buggy", Strategy: check.BFS,
		Params: map[string]any{"clients": 3, "iterations": 3}, NoShrink: true})
}

func BenchmarkRandomPhilosophersFixed(b *testing.B) {
	benchSearch(b, check.Config{Scenario: "dining-philosophers", Preset: "table", Variant: "fixed", Strategy: check.Random,
		Budget: check.Budget{Runs: 200}})
}

func BenchmarkRandomVitessFixed(b *testing.B) {
	benchSearch(b, check.Config{Scenario: "vitess-messager", Preset: "unsubscribe-vs-poller", Variant: "fixed", Strategy: check.Random,
		Budget: check.Budget{Runs: 50}})
}
