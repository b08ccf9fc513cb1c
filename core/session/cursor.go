package session

import (
	"fmt"
	"slices"

	"github.com/racetrack-sim/racetrack/core/sim"
	"github.com/racetrack-sim/racetrack/core/timeline"
)

// seekFartherThan is how far ahead a cursor steps its own world before a
// fresh seek from the timeline's snapshots is cheaper.
const seekFartherThan = SnapshotEvery

// cursor follows a timeline with a world of its own: moving forwards steps
// that world (a frame of a playing stream costs the steps it shows, not a
// replay from the nearest snapshot); moving backwards or far ahead seeks.
type cursor struct {
	tl *timeline.Timeline
	w  *sim.World // the world after step at
	at int

	procs      []procText
	procFields []sim.Field
	locks      []lockText
	lockFields []sim.Field
}

func newCursor(tl *timeline.Timeline) *cursor { return &cursor{tl: tl, at: -1} }

// moveTo puts the cursor on the world after step i (0 <= i < Len).
func (c *cursor) moveTo(i int) error {
	if c.tl.IsImported() { // a log has no world to replay: its logged fields are its state
		c.at = i
		return nil
	}
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
// the kernel's processes and mutexes, as timeline.StateAt shows them. The
// kernel's fields are kept from frame to frame and their text is rebuilt
// only when a process or a mutex changed: a playing stream calls this for
// every frame. The result is valid until the next call.
func (c *cursor) view() []sim.Group {
	if c.tl.IsImported() {
		sv, err := c.tl.StateAt(c.at)
		if err != nil {
			return nil
		}
		return sv.Groups
	}
	w := c.w
	var groups []sim.Group
	if v, ok := w.View(); ok {
		groups = v.Groups
	}
	groups = slices.Grow(groups, 2)
	procs := w.Procs()
	if len(c.procs) != len(procs) {
		c.procs = make([]procText, len(procs))
		c.procFields = make([]sim.Field, len(procs))
	}
	for i := range procs {
		p := &procs[i]
		pt := &c.procs[i]
		key := procKey{p.Status, p.BlockedOn, p.WaitingOn}
		if !pt.valid || pt.key != key {
			*pt = procText{key: key, text: w.DescribeProc(p.ID), valid: true}
		}
		c.procFields[i] = sim.Field{Name: p.Name, Value: pt.text}
	}
	groups = append(groups, sim.Group{ID: "kernel/processes", Title: "processes", Node: sim.None, Fields: c.procFields})
	ms := w.Mutexes()
	if len(ms) == 0 {
		return groups
	}
	if len(c.locks) != len(ms) {
		c.locks = make([]lockText, len(ms))
		c.lockFields = make([]sim.Field, len(ms))
	}
	for i := range ms {
		m := &ms[i]
		lt := &c.locks[i]
		if !lt.valid || lt.holder != m.Holder || !slices.Equal(lt.waiters, m.Waiters) {
			*lt = lockText{holder: m.Holder, waiters: append(lt.waiters[:0], m.Waiters...), text: w.DescribeMutex(m.ID), valid: true}
		}
		c.lockFields[i] = sim.Field{Name: m.Name, Value: lt.text}
	}
	return append(groups, sim.Group{ID: "kernel/mutexes", Title: "mutexes", Node: sim.None, Fields: c.lockFields})
}

// procKey is what a process's field shows.
type procKey struct {
	status  sim.ProcStatus
	mutex   sim.MutexID
	waiting sim.CondID
}

type procText struct {
	key   procKey
	text  string
	valid bool
}

type lockText struct {
	holder  sim.ProcID
	waiters []sim.ProcID
	text    string
	valid   bool
}
