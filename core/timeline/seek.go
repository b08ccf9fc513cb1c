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

// Initial returns the world before the first step (right after Init).
func (tl *Timeline) Initial() *sim.World {
	w, _ := tl.worldAt(0)
	return w
}

// worldAt returns the world after n steps (0 <= n <= Len).
func (tl *Timeline) worldAt(n int) (*sim.World, error) {
	k := n / tl.every
	if k >= len(tl.snaps) {
		k = len(tl.snaps) - 1
	}
	w := tl.snaps[k].Snapshot()
	w.SetChooser(&sim.ScriptChooser{Schedule: tl.schedule, Pos: len(w.Schedule())})
	for w.Steps() < n {
		if !w.Step() {
			return nil, fmt.Errorf("%w: replay from the snapshot at step %d stopped at step %d of %d: %v",
				ErrReplay, k*tl.every, w.Steps(), n, w.Err())
		}
	}
	return w, nil
}
