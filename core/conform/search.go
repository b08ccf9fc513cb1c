package conform

import (
	"fmt"
	"slices"

	"github.com/racetrack-sim/racetrack/core/sim"
)

// pathNode is one step of the model run a search state was reached by:
// the logged event the step matched (-1: none), the events consumed
// after it that are no steps, and the step before. The root (no step)
// has steps 0.
type pathNode struct {
	match   int32
	reached []int32
	steps   int32
	// choices are the choices the step made (the schedule's entries:
	// the ready event when several were, and the values it drew); the
	// root's are those of the model's Init.
	choices []int
	prev    *pathNode
}

// state is a search state: the model's world and how far each lane of
// the log is consumed.
type state struct {
	w *sim.World
	// pos[l] counts the consumed events of lane l; def[l] is the place in
	// lane l of the first consumed event whose fields wait for the lane's
	// next step, or -1.
	pos, def []int32
	consumed int
	path     *pathNode
	// rng is the seeded stream where this state's run left it (nil: no
	// seed).
	rng *sim.RandomChooser
}

// frame is a state on the depth-first search's path, with the ready
// model events it still has to try: order[next] with the draws' values
// vals (nil: the first of each) is the next.
type frame struct {
	state
	ready []sim.Event
	order []int
	next  int
	vals  []int
}

// searcher is one validation's search.
type searcher struct {
	*binding
	seen        map[uint64]struct{}
	maxStates   int
	transitions int
	best        state
	scenario    string
}

// root is a search's first state: a world just built, none of the log
// consumed but what needs no step.
func (b *binding) root(w *sim.World, rng *sim.RandomChooser) state {
	lanes := len(b.laneLen)
	st := state{w: w, pos: make([]int32, lanes), def: make([]int32, lanes), rng: rng,
		path: &pathNode{match: -1, choices: slices.Clone(w.Schedule())}}
	for l := range st.def {
		st.def[l] = -1
	}
	return st
}

// search looks for a model run from one of the roots (the worlds the
// model's Init can build) that the log is a prefix of.
func (b *binding) search(roots []state, scenarioID string, maxStates, maxDepth int) (*Verdict, error) {
	s := &searcher{binding: b, seen: map[uint64]struct{}{}, maxStates: maxStates, scenario: scenarioID}
	var stack []*frame
	for k := len(roots) - 1; k >= 0; k-- {
		root := roots[k]
		s.closure(&root)
		key := s.key(&root)
		if _, dup := s.seen[key]; dup {
			continue
		}
		s.seen[key] = struct{}{}
		stack = append(stack, &frame{state: root, next: -1})
	}
	s.best = stack[len(stack)-1].state
	stop := StopLeaves
	cut := false
	var goal *state
	for len(stack) > 0 {
		f := stack[len(stack)-1]
		if f.next < 0 {
			if f.consumed > s.best.consumed {
				s.best = f.state
			}
			if f.consumed == len(b.events) && s.deferredHold(&f.state) {
				goal = &f.state
				stop = StopConforms
				break
			}
			f.ready = f.w.Ready()
			f.order = s.order(&f.state, f.ready)
			f.next = 0
		}
		if f.next >= len(f.order) {
			stack = stack[:len(stack)-1]
			continue
		}
		k := f.order[f.next]
		child, vals, more, err := s.step(&f.state, f.ready, k, f.vals)
		if err != nil {
			return nil, err
		}
		f.vals = vals
		if !more {
			f.next++
		}
		if child == nil {
			continue
		}
		key := s.key(child)
		if _, dup := s.seen[key]; dup {
			continue
		}
		if len(s.seen) >= s.maxStates {
			stop = StopBudget
			break
		}
		if len(stack) >= maxDepth {
			cut = true // not stored: a shallower path may reach it
			continue
		}
		s.seen[key] = struct{}{}
		stack = append(stack, &frame{state: *child, next: -1})
	}
	if stop == StopLeaves && cut {
		stop = StopBudget
	}
	v := &Verdict{Stop: stop, Conforms: stop == StopConforms, Mapping: b.lm.Name, Events: len(b.events),
		States: len(s.seen), Transitions: s.transitions}
	end := &s.best
	if goal != nil {
		end = goal
	}
	v.Matched = end.consumed
	v.StepEvents, v.Reached, v.Schedule = b.align(end)
	if goal == nil {
		v.At = s.departure(end)
	}
	return v, nil
}

// key is the state's identity: the world's hash with the positions (and
// the seeded stream's, which decides the values drawn next).
func (s *searcher) key(st *state) uint64 {
	return st.w.HashPermuted(nil, func(h *sim.Hasher) {
		st.w.Model().Hash(h)
		for l := range st.pos {
			h.Int(int(st.pos[l]))
			h.Int(int(st.def[l]))
		}
		if st.rng != nil {
			st.rng.HashInto(h)
		}
	})
}

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

// order lists the ready events to try: first those whose process's
// lane waits for a step (a match makes progress), by the log's order of
// those events (the order the program wrote them in is a linearisation
// of its happens-before, and most often the one the model needs: a
// mutex's FIFO waiters, for one, are in no happens-before order), then
// the others in queue order.
func (s *searcher) order(st *state, ready []sim.Event) []int {
	out := make([]int, 0, len(ready))
	var later []int
	for k := range ready {
		if s.nextStep(st, ready[k].Proc) >= 0 {
			out = append(out, k)
		} else {
			later = append(later, k)
		}
	}
	slices.SortStableFunc(out, func(a, b int) int {
		return s.nextStep(st, ready[a].Proc) - s.nextStep(st, ready[b].Proc)
	})
	return append(out, later...)
}

// nextStep is the logged event process p's lane waits to match with a
// step, when it is enabled, or -1.
func (s *searcher) nextStep(st *state, p sim.ProcID) int {
	l := s.procLane[p]
	if l < 0 || st.pos[l] >= s.laneLen[l] {
		return -1
	}
	i := int(s.laneEvent[l][st.pos[l]])
	if s.events[i].act == actStep && s.enabled(st, i) {
		return i
	}
	return -1
}

// step runs ready event k from st, with vals for the values the step
// draws, and returns the state it leads to (nil when the step is
// observable and matches no enabled logged event), and the values of the
// next combination of its draws, if there is one.
func (s *searcher) step(st *state, ready []sim.Event, k int, vals []int) (*state, []int, bool, error) {
	s.transitions++
	c := st.w.Snapshot()
	// The path keeps the schedule: a world's own copy would grow by a
	// copy of all of it at every step of the search.
	c.SetSchedule(nil)
	var rng *sim.RandomChooser
	if st.rng != nil {
		rng = st.rng.Clone()
	}
	ch := newStepChooser(k, vals, rng)
	c.SetChooser(ch)
	c.Step()
	if err := ch.refused(s.scenario, st.w.Steps()); err != nil {
		return nil, nil, false, err
	}
	if err := c.Err(); err != nil {
		return nil, nil, false, fmt.Errorf("conform: the model failed at step %d: %w", st.w.Steps()+1, err)
	}
	nextVals, more := ch.values.Next()
	return s.match(st, c, &ready[k], rng), nextVals, more, nil
}

// match makes c, the world ev's step led to from st, a search state: an
// observable step consumes its lane's next logged event, which it must
// match; then what needs no step is consumed. It is nil when the step
// matches nothing.
func (s *searcher) match(st *state, c *sim.World, ev *sim.Event, rng *sim.RandomChooser) *state {
	info := c.LastStep()
	next := &state{w: c, pos: slices.Clone(st.pos), def: slices.Clone(st.def), consumed: st.consumed, rng: rng,
		path: &pathNode{match: -1, choices: c.Schedule(), steps: int32(c.Steps()), prev: st.path}}
	if s.observable(st.w, ev, info) {
		l := int(s.procLane[info.Proc])
		if st.pos[l] >= s.laneLen[l] {
			return nil
		}
		i := int(s.laneEvent[l][st.pos[l]])
		e := &s.events[i]
		if e.act != actStep || !s.enabled(st, i) || !s.describes(int(e.rule), st.w, ev, info, e.mutex) {
			return nil
		}
		if ok, _ := s.deferredOn(st, l, c); !ok {
			return nil
		}
		next.def[l] = -1
		if !e.after {
			if ok, _ := s.fieldsHold(i, c); !ok {
				return nil
			}
		} else if len(e.fields) > 0 {
			next.def[l] = next.pos[l]
		}
		next.pos[l]++
		next.consumed++
		next.path.match = int32(i)
	}
	s.closure(next)
	return next
}

// align lays the run that reached st against the log, and gives its
// schedule.
func (b *binding) align(st *state) (stepEvents, reached []int32, schedule []int) {
	reached = make([]int32, len(b.events))
	for i := range reached {
		reached[i] = -1
	}
	stepEvents = make([]int32, st.path.steps)
	var chunks [][]int
	for n := st.path; n != nil; n = n.prev {
		if n.steps > 0 {
			stepEvents[n.steps-1] = n.match
		}
		chunks = append(chunks, n.choices)
		if n.match >= 0 {
			reached[n.match] = n.steps
		}
		for _, i := range n.reached {
			reached[i] = n.steps
		}
	}
	slices.Reverse(chunks)
	schedule = slices.Concat(chunks...)
	if schedule == nil {
		schedule = []int{}
	}
	return stepEvents, reached, schedule
}
