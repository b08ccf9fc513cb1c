package check

import (
	"fmt"
	"slices"

	"github.com/racetrack-sim/racetrack/core/scenario"
	"github.com/racetrack-sim/racetrack/core/sim"
)

// The explorer's worlds: a fresh one for a spec, the initial ones a
// preset can start in, one replayed to a schedule, and the counterexample
// spec of a world. The engines ask the explorer for them.

// newWorld builds a fresh world for spec driven by ch (nil: the spec's own
// replay-then-seed chooser). The spec must be normalised.
func (x *Explorer) newWorld(spec scenario.RunSpec, ch sim.Chooser) (*sim.World, error) {
	if ch == nil {
		_, _, w, err := x.reg.Build(spec, scenario.Options{})
		return w, err
	}
	m, err := x.sc.New(spec.Variant, scenario.Values(spec.Params))
	if err != nil {
		return nil, fmt.Errorf("scenario %s: %w", x.sc.ID, err)
	}
	return sim.NewWorld(m, spec.Seed, ch, sim.Options{Capabilities: x.sc.Capabilities}), nil
}

// replayTo builds the world a run of the searched spec reaches after
// steps steps following sched, its whole schedule: what dfs rebuilds a
// state from when it stepped the state's world into a successor.
func (x *Explorer) replayTo(sched []int, steps int) (*sim.World, error) {
	ch := &sim.ScriptChooser{Schedule: sched}
	w, err := x.newWorld(x.base, ch)
	if err != nil {
		return nil, err
	}
	for w.Steps() < steps && w.Step() {
	}
	if w.Steps() != steps || ch.Pos != len(sched) || w.Err() != nil {
		return nil, fmt.Errorf("%w: dfs replay of a stored state failed at step %d: %v", ErrReplay, w.Steps(), w.Err())
	}
	return w, nil
}

// initialWorlds are the worlds a preset can start in: one per
// combination of the values its Init draws (each enumerated, or sampled
// with Config.ValueSamples), in the order of their choices.
func (x *Explorer) initialWorlds() ([]*sim.World, bool, error) {
	var roots []*sim.World
	var vals []int
	sampled := false
	for {
		fc := &forceChooser{values: vals, samples: x.cfg.ValueSamples}
		w, err := x.newWorld(x.base, fc)
		if err != nil {
			return nil, false, err
		}
		if fc.tooMany != "" {
			return nil, false, fieldErr("valueSamples", "%s/%s draws %q with %d options while it is set up; %s enumerates values of at most %d options (set valueSamples to try a few of them, or use random or pct)",
				x.sc.ID, x.base.Preset, fc.tooMany, fc.tooManyN, x.cfg.Strategy, MaxValueOptions)
		}
		if err := w.Err(); err != nil {
			return nil, false, err
		}
		sampled = sampled || fc.sampled
		roots = append(roots, w)
		if len(roots) > MaxInitialStates {
			return nil, false, fieldErr("preset", "%s/%s has more than %d initial states (combinations of the values it draws while it is set up); lower valueSamples or the parameters",
				x.sc.ID, x.base.Preset, MaxInitialStates)
		}
		next, more := fc.next()
		if !more {
			return roots, sampled, nil
		}
		vals = next
	}
}

// counterexample is the spec that replays w's run: the base spec with
// w's schedule.
func (x *Explorer) counterexample(w *sim.World) scenario.RunSpec {
	spec := x.base
	spec.Schedule = slices.Clone(w.Schedule())
	return spec
}
