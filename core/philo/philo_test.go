package philo_test

import (
	"strings"
	"testing"

	"github.com/racetrack-sim/racetrack/core/philo"
	"github.com/racetrack-sim/racetrack/core/scenario"
	"github.com/racetrack-sim/racetrack/core/sim"
)

var reg = scenario.NewRegistry(philo.Scenario())

func sweep(t *testing.T, variant string, seeds int, params map[string]any, preset string) (deadlocks int, first *sim.Violation) {
	t.Helper()
	for s := 0; s < seeds; s++ {
		run, err := reg.Execute(scenario.RunSpec{Scenario: "dining-philosophers", Preset: preset, Variant: variant, Seed: uint64(s), Params: params}, scenario.Options{})
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range run.World.Violations() {
			if v.Property == sim.NoDeadlockName {
				deadlocks++
				if first == nil {
					first = &v
				}
			}
		}
	}
	return deadlocks, first
}

func TestBuggyTableDeadlocksAndFixedNever(t *testing.T) {
	seeds := 500
	if testing.Short() {
		seeds = 100
	}
	params := map[string]any{"philosophers": 3}
	bad, first := sweep(t, "buggy", seeds, params, "lock-level")
	good, _ := sweep(t, "fixed", seeds, params, "lock-level")
	t.Logf("3 philosophers, untimed, %d seeds: buggy deadlocks on %d, fixed on %d", seeds, bad, good)
	if bad == 0 || good != 0 {
		t.Fatalf("buggy deadlocked %d times, fixed %d times", bad, good)
	}
	if !strings.Contains(first.Message, "holds fork") || !strings.Contains(first.Message, "waits for fork") {
		t.Fatalf("deadlock not explained with holders and waiters: %q", first.Message)
	}
}

func TestEveryoneEatsWhenNoDeadlock(t *testing.T) {
	run, err := reg.Execute(scenario.RunSpec{Scenario: "dining-philosophers", Variant: "fixed", Seed: 3}, scenario.Options{Trace: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(run.World.Violations()) != 0 || run.World.Stop() != sim.StopQuiescent {
		t.Fatalf("fixed table: %v, stop %s", run.World.Violations(), run.World.Stop())
	}
	tab := run.World.Model().(*philo.Table)
	for i, e := range tab.Eaten {
		if e != 3 {
			t.Fatalf("philosopher %d ate %d meals, want 3", i, e)
		}
	}
}

func BenchmarkPhilosophers(b *testing.B) {
	for _, trace := range []bool{false, true} {
		name := "trace=off"
		if trace {
			name = "trace=on"
		}
		b.Run(name, func(b *testing.B) {
			steps := 0
			seed := uint64(0)
			for b.Loop() {
				seed++
				run, err := reg.Execute(scenario.RunSpec{Scenario: "dining-philosophers", Variant: "fixed", Seed: seed,
					Params: map[string]any{"philosophers": 12, "meals": 100}}, scenario.Options{Trace: trace})
				if err != nil {
					b.Fatal(err)
				}
				steps += run.World.Steps()
			}
			b.ReportMetric(float64(steps)/b.Elapsed().Seconds(), "events/s")
		})
	}
}
