package conform

import (
	"fmt"

	"github.com/racetrack-sim/racetrack/core/sim"
)

// enabled reports whether logged event i is its lane's next and its
// happens-before past is consumed.
func (b *binding) enabled(st *state, i int) bool {
	e := &b.events[i]
	if st.pos[e.lane] != e.inLane {
		return false
	}
	for q, c := range b.x.Clock(i) {
		if int32(q) != e.lane && int64(c) > int64(st.pos[q]) {
			return false
		}
	}
	return true
}

// fieldsHold reports whether event i's checked fields have the model's
// values in w; the first that does not is described.
func (b *binding) fieldsHold(i int, w *sim.World) (bool, string) {
	e := &b.events[i]
	p := b.laneProc[e.lane]
	for _, fc := range e.fields {
		f := &b.lm.Fields[fc.field]
		if got := f.Value(w.Model(), w, p); got != fc.value {
			return false, fmt.Sprintf("field %s is %s in the log (line %d), %s in the model", f.Name, fc.value, b.x.Lines[i], got)
		}
	}
	return true, ""
}

// deferredOn checks, in world w, the fields of lane l's consumed events
// that wait for its next step (in st), and describes the first wrong one.
func (b *binding) deferredOn(st *state, l int, w *sim.World) (bool, string) {
	if st.def[l] < 0 {
		return true, ""
	}
	for k := st.def[l]; k < st.pos[l]; k++ {
		i := int(b.laneEvent[l][k])
		if e := &b.events[i]; e.after && len(e.fields) > 0 {
			if ok, why := b.fieldsHold(i, w); !ok {
				return false, why
			}
		}
	}
	return true, ""
}

// deferredHold reports whether every lane's waiting fields hold in st's
// own world (at the end of the log, where no next step comes).
func (s *searcher) deferredHold(st *state) bool {
	for l := range st.def {
		if ok, _ := s.deferredOn(st, l, st.w); !ok {
			return false
		}
	}
	return true
}

// closure consumes every enabled event that is no step and holds: a
// left-out lane's, a Skip rule's, a Holds rule's whose condition is true
// (their own fields checked unless they wait for the next step).
func (s *searcher) closure(st *state) {
	var reached []int32
	for changed := true; changed; {
		changed = false
		for l := range st.pos {
			for st.pos[l] < s.laneLen[l] {
				i := int(s.laneEvent[l][st.pos[l]])
				if !s.consumable(st, i) {
					break
				}
				e := &s.events[i]
				if e.after && len(e.fields) > 0 && st.def[l] < 0 {
					st.def[l] = st.pos[l]
				}
				st.pos[l]++
				st.consumed++
				reached = append(reached, int32(i))
				changed = true
			}
		}
	}
	if len(reached) > 0 {
		st.path.reached = append(st.path.reached, reached...)
	}
}

// consumable: event i is enabled, no step, and holds in st's world.
func (s *searcher) consumable(st *state, i int) bool {
	e := &s.events[i]
	if e.act == actStep || !s.enabled(st, i) {
		return false
	}
	p := s.laneProc[e.lane]
	if e.act == actHolds && !s.lm.Events[e.rule].Holds(st.w.Model(), st.w, p) {
		return false
	}
	if !e.after {
		ok, _ := s.fieldsHold(i, st.w)
		return ok
	}
	return true
}
