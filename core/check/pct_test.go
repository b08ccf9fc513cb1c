package check_test

import (
	"testing"

	"github.com/racetrack-sim/racetrack/core/catalog"
	"github.com/racetrack-sim/racetrack/core/check"
	"github.com/racetrack-sim/racetrack/core/scenario"
	"github.com/racetrack-sim/racetrack/core/sim"
)

// world builds a fresh world of spec driven by ch.
func world(t *testing.T, reg *scenario.Registry, spec scenario.RunSpec, ch sim.Chooser) (*sim.World, scenario.RunSpec) {
	t.Helper()
	ns, sc, err := reg.Normalize(spec)
	if err != nil {
		t.Fatal(err)
	}
	m, err := sc.New(ns.Variant, scenario.Values(ns.Params))
	if err != nil {
		t.Fatal(err)
	}
	return sim.NewWorld(m, ns.Seed, ch, sim.Options{}), ns
}

type eventCounter struct {
	sim.Chooser
	events int
}

func (c *eventCounter) Choose(ch *sim.Choice) int {
	if ch.Kind == sim.ChooseEvent {
		c.events++
	}
	return c.Chooser.Choose(ch)
}

// Two philosophers who take the left fork first deadlock when one is
// preempted right after taking its first fork and the other then takes
// both of its turns: a bug of depth d=2 (one ordering constraint beyond
// the first). PCT finds a bug of depth d in one run with probability at
// least 1/(n k^(d-1)); the measured rate must reach it.
func TestPCTDetectionRateReachesTheBound(t *testing.T) {
	reg := catalog.New()
	spec := scenario.RunSpec{Scenario: "dining-philosophers", Preset: "lock-level", Variant: "buggy", Params: map[string]any{"philosophers": 2, "meals": 2}}
	counter := &eventCounter{Chooser: sim.NewRandomChooser(1)}
	w, ns := world(t, reg, spec, counter)
	if err := w.Run(ns.Limits()); err != nil {
		t.Fatal(err)
	}
	n, k := len(w.Procs()), counter.events
	runs := 2000
	if testing.Short() {
		runs = 300
	}
	for _, d := range []int{2, 3} {
		found := 0
		for seed := uint64(1); seed <= uint64(runs); seed++ {
			w, ns := world(t, reg, spec, check.NewPCTChooser(seed, d, k))
			if err := w.Run(ns.Limits()); err != nil {
				t.Fatal(err)
			}
			if w.Violated(sim.NoDeadlockName) {
				found++
			}
		}
		rate, bound := float64(found)/float64(runs), check.PCTBound(n, k, d)
		t.Logf("PCT d=%d, n=%d processes, k=%d choices: deadlock in %d of %d runs (rate %.3f), bound 1/(n k^(d-1)) = %.4f", d, n, k, found, runs, rate, bound)
		if rate < bound {
			t.Errorf("d=%d: detection rate %.4f below the bound %.4f", d, rate, bound)
		}
	}
}

// A counterexample found by random search is shrunk by delta debugging to
// a locally minimal schedule within 1.5 times the shortest (bfs) one.
func TestShrinkingBringsRandomCounterexamplesNearTheShortest(t *testing.T) {
	reg := catalog.New()
	cfg := check.Config{Scenario: "dining-philosophers", Preset: "lock-level", Variant: "buggy", Property: sim.NoDeadlockName,
		Params: map[string]any{"philosophers": 3, "meals": 4}, Strategy: check.Random, Seed: 7}
	shortest := search(t, reg, check.Config{Scenario: cfg.Scenario, Preset: cfg.Preset, Variant: cfg.Variant, Property: cfg.Property,
		Params: cfg.Params, Strategy: check.BFS})
	checked := 0
	for seed := uint64(1); seed <= 20 && checked < 5; seed++ {
		cfg.Seed = seed
		cfg.NoShrink = true
		raw := search(t, reg, cfg)
		if !raw.Found || raw.Length <= shortest.Length*3/2 {
			continue
		}
		checked++
		cfg.NoShrink = false
		r := search(t, reg, cfg)
		t.Logf("seed %d: random schedule of %d choices shrunk to %d (bfs shortest: %d) in %d runs", seed, r.OriginalLength, r.Length, shortest.Length, r.Runs)
		if !r.Shrunk || r.OriginalLength != raw.Length {
			t.Errorf("seed %d: not shrunk: %+v", seed, r)
		}
		if 2*r.Length > 3*shortest.Length {
			t.Errorf("seed %d: shrunk to %d choices, more than 1.5 x %d", seed, r.Length, shortest.Length)
		}
		replays(t, reg, r)
	}
	if checked == 0 {
		t.Fatal("no random counterexample longer than 1.5x the shortest to shrink")
	}
}
