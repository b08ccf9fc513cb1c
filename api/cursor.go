package api

import (
	"fmt"
	"slices"
	"strconv"

	"github.com/racetrack-sim/racetrack/core/sim"
	"github.com/racetrack-sim/racetrack/core/timeline"
)

// seekFartherThan is how far ahead a cursor steps its own world before a
// fresh seek from the timeline's snapshots is cheaper.
const seekFartherThan = timeline.DefaultSnapshotEvery

// cursor follows a timeline with a world of its own: moving forwards steps
// that world (a frame of a playing stream costs the steps it shows, not a
// replay from the nearest snapshot); moving backwards or far ahead seeks.
type cursor struct {
	tl *timeline.Timeline
	w  *sim.World // the world after step at
	at int
}

func newCursor(tl *timeline.Timeline) *cursor { return &cursor{tl: tl, at: -1} }

// moveTo puts the cursor on the world after step i (0 <= i < Len).
func (c *cursor) moveTo(i int) error {
	if c.w == nil || i < c.at || i-c.at > seekFartherThan {
		w, err := c.tl.Seek(i)
		if err != nil {
			return err
		}
		c.w, c.at = w, i
		return nil
	}
	for c.at < i {
		if !c.w.Step() {
			return fmt.Errorf("%w: the stream's world stopped at step %d: %v", timeline.ErrReplay, c.at, c.w.Err())
		}
		c.at++
	}
	return nil
}

// view is the state view of the cursor's world: the model's groups, then
// the kernel's processes and mutexes, as timeline.StateAt shows them.
func (c *cursor) view() []sim.Group {
	w := c.w
	var groups []sim.Group
	if v, ok := w.Model().(sim.Viewer); ok {
		groups = v.View(w).Groups
	}
	groups = slices.Grow(groups, 2)
	procs := sim.Group{ID: "kernel/processes", Title: "processes", Node: sim.None, Fields: make([]sim.Field, 0, len(w.Procs()))}
	for _, p := range w.Procs() {
		state := p.Status.String()
		switch p.Status {
		case sim.Blocked:
			state += " on " + w.Mutex(p.BlockedOn).Name
		case sim.Waiting:
			state += " on " + w.Conds()[p.WaitingOn].Name
		}
		procs.Fields = append(procs.Fields, sim.Field{Name: p.Name, Value: state})
	}
	groups = append(groups, procs)
	if ms := w.Mutexes(); len(ms) > 0 {
		locks := sim.Group{ID: "kernel/mutexes", Title: "mutexes", Node: sim.None, Fields: make([]sim.Field, 0, len(ms))}
		for i := range ms {
			m := &ms[i]
			val := "free"
			if m.Holder != sim.None {
				val = "held by " + w.ProcName(m.Holder)
			}
			if len(m.Waiters) > 0 {
				val += "; " + strconv.Itoa(len(m.Waiters)) + " waiting:"
				for _, q := range m.Waiters {
					val += " " + w.ProcName(q)
				}
			}
			locks.Fields = append(locks.Fields, sim.Field{Name: m.Name, Value: val})
		}
		groups = append(groups, locks)
	}
	return groups
}
