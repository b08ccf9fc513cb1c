package vitess_test

import (
	"testing"

	"github.com/racetrack-sim/racetrack/core/modeltest"
	"github.com/racetrack-sim/racetrack/core/scenario"
	"github.com/racetrack-sim/racetrack/core/sim"
	"github.com/racetrack-sim/racetrack/core/vitess"
)

// TestGoMutexModelConforms runs the kernel's conformance checks (seek,
// clone and hash, the state codec, determinism, derived state) on every
// preset and variant with goMutex on, which modeltest.Conform, running
// the presets' own parameters, does not.
func TestGoMutexModelConforms(t *testing.T) {
	opt := modeltest.DefaultOptions()
	if testing.Short() {
		opt = modeltest.Options{Seeds: []uint64{1}, MaxSteps: 600, Picks: 3}
	}
	sc := vitess.Scenario()
	for _, p := range sc.Presets {
		for _, v := range sc.Variants {
			for _, seed := range opt.Seeds {
				spec := scenario.RunSpec{Scenario: vitess.ID, Preset: p.ID, Variant: v.ID, Seed: seed, MaxSteps: opt.MaxSteps,
					Params: map[string]any{"goMutex": true}}
				for _, check := range []func() error{
					func() error { return modeltest.CheckDeterminism(reg, spec) },
					func() error { return modeltest.CheckSeek(reg, spec, opt.Picks) },
					func() error { return modeltest.CheckCloneHash(reg, spec, opt.Picks) },
					func() error { return modeltest.CheckCodec(reg, spec, opt.Picks) },
					func() error { return modeltest.CheckDerived(reg, spec, opt.Picks) },
				} {
					if err := check(); err != nil {
						t.Errorf("%s/%s seed %d: %v", p.ID, v.ID, seed, err)
					}
				}
			}
		}
	}
}

// TestGoMutexLockLevel: with Go's mutexes the lock-level preset still
// deadlocks in the buggy variant and never in the fixed one, and has
// more states than with FIFO mutexes (every barging order is one more
// interleaving).
func TestGoMutexLockLevel(t *testing.T) {
	spec := func(variant string, goMutex bool) scenario.RunSpec {
		return scenario.RunSpec{Scenario: vitess.ID, Preset: vitess.PresetLockLevel, Variant: variant,
			Params: map[string]any{"clients": 1, "goMutex": goMutex}}
	}
	r, err := bfs(spec("buggy", true), sim.NoDeadlockName, 1_000_000)
	if err != nil {
		t.Fatal(err)
	}
	if r.schedule == nil {
		t.Fatalf("buggy with Go mutexes: no deadlock in %d states", r.states)
	}
	goStates := map[bool]int{}
	for _, goMutex := range []bool{false, true} {
		r, err := bfs(spec("fixed", goMutex), sim.NoDeadlockName, 2_000_000)
		if err != nil {
			t.Fatal(err)
		}
		if !r.complete || r.schedule != nil {
			t.Fatalf("fixed, goMutex %v: complete %v, deadlock schedule %v", goMutex, r.complete, r.schedule)
		}
		goStates[goMutex] = r.states
	}
	t.Logf("fixed lock-level, 1 client: %d states with FIFO mutexes, %d with Go's", goStates[false], goStates[true])
	if goStates[true] <= goStates[false] {
		t.Fatalf("Go mutexes: %d states, FIFO %d; want more", goStates[true], goStates[false])
	}
}
