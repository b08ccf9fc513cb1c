package check_test

import (
	"runtime"
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

// benchPeakHeap runs cfg once per iteration, sampling the Go heap
// between slices of work, and reports the peak heap per state stored.
func benchPeakHeap(b *testing.B, cfg check.Config) {
	reg := catalog.New()
	var states, transitions int
	var peak uint64
	var ms runtime.MemStats
	for i := 0; i < b.N; i++ {
		runtime.GC()
		runtime.ReadMemStats(&ms)
		base := ms.HeapAlloc
		x, err := check.New(reg, cfg)
		if err != nil {
			b.Fatal(err)
		}
		for !x.Step(1 << 12).Done {
			runtime.ReadMemStats(&ms)
			if ms.HeapAlloc > base {
				peak = max(peak, ms.HeapAlloc-base)
			}
		}
		r := x.Result()
		if !r.Exhaustive && !r.Found {
			b.Fatalf("%s", r.Verdict)
		}
		states, transitions = states+r.States, transitions+r.Transitions
	}
	sec := b.Elapsed().Seconds()
	b.ReportMetric(float64(states)/sec, "states/s")
	b.ReportMetric(float64(transitions)/sec, "transitions/s")
	b.ReportMetric(float64(peak)/float64(states/b.N), "peak-heap-B/state")
}

// vitessLockLevel is the lock-level preset with the bfs defaults.
func vitessLockLevel(strategy, variant string, clients, iter int) check.Config {
	return check.Config{Scenario: "vitess-messager", Preset: "lock-level", Variant: variant, Strategy: strategy,
		Params: map[string]any{"clients": clients, "iterations": iter}, Reductions: check.DefaultReductions(strategy), NoShrink: true}
}

// The benchmark size of bench/spin (1.47 M states): bfs on one goroutine
// (internal/parallel benchmarks it on several).
func BenchmarkBFSVitessFixedC3Iter2(b *testing.B) {
	benchPeakHeap(b, vitessLockLevel(check.BFS, "fixed", 3, 2))
}

func BenchmarkBFSVitessFixedC3Iter1(b *testing.B) {
	benchPeakHeap(b, vitessLockLevel(check.BFS, "fixed", 3, 1))
}

func BenchmarkBFSVitessBuggyC3Iter3Default(b *testing.B) {
	benchPeakHeap(b, vitessLockLevel(check.BFS, "buggy", 3, 3))
}

// The issue #13 size: about 9.4 M states (SPIN: 48.7 M, 96 s, 6 GB).
func BenchmarkBFSVitessFixedC3Iter3(b *testing.B) {
	cfg := vitessLockLevel(check.BFS, "fixed", 3, 3)
	cfg.Budget.States = 100_000_000
	benchPeakHeap(b, cfg)
}

// A timed preset under bfs with sampled values (the vitess deadlock).
func BenchmarkBFSVitessTimedSampled(b *testing.B) {
	benchSearch(b, check.Config{Scenario: "vitess-messager", Preset: "unsubscribe-vs-poller", Variant: "buggy", Strategy: check.BFS,
		ValueSamples: 3, Reductions: check.DefaultReductions(check.BFS), NoShrink: true})
}

func BenchmarkDFSVitessFixedC3Iter2(b *testing.B) {
	benchPeakHeap(b, vitessLockLevel(check.DFS, "fixed", 3, 2))
}
