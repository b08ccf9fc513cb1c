package timeline

import (
	"fmt"

	"github.com/racetrack-sim/racetrack/core/sim"
)

// Seek returns the world as it was right after step i: a clone of the
// nearest snapshot at or before it, stepped forward by at most K-1 steps.
// The world belongs to the caller; its chooser replays the run's schedule,
// so stepping it further continues the recorded run (and fails with
// sim.ErrScheduleMismatch past the recorded choices).
func (tl *Timeline) Seek(i int) (*sim.World, error) {
	if err := tl.checkStep(i); err != nil {
		return nil, err
	}
	return tl.worldAt(i + 1)
}

// Initial returns the world before the first step (right after Init), or
// nil for an imported execution.
func (tl *Timeline) Initial() *sim.World {
	w, _ := tl.worldAt(0)
	return w
}

// worldAt returns the world after n steps (0 <= n <= Len).
func (tl *Timeline) worldAt(n int) (*sim.World, error) {
	w, base, err := tl.replay(n)
	if err != nil {
		return nil, err
	}
	made := base + len(w.Schedule())
	w.SetSchedule(tl.schedule[:made:made])
	return w, nil
}

// replay restores the world after n steps with an empty record of choices
// (base choices were made before it): the schedule of a long run is never
// copied. worldAt then hands it the recorded prefix.
func (tl *Timeline) replay(n int) (*sim.World, int, error) {
	if tl.imported != nil {
		return nil, 0, ErrNoModel
	}
	k := n / tl.every
	if k >= len(tl.snaps) {
		k = len(tl.snaps) - 1
	}
	w := tl.snaps[k].Snapshot()
	base := len(w.Schedule())
	w.SetSchedule(nil)
	w.SetChooser(&sim.ScriptChooser{Schedule: tl.schedule, Pos: base})
	for w.Steps() < n {
		if !w.Step() {
			return nil, 0, fmt.Errorf("%w: replay from the snapshot at step %d stopped at step %d of %d: %v",
				ErrReplay, k*tl.every, w.Steps(), n, w.Err())
		}
	}
	return w, base, nil
}
