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
	// passed is set for a node that is no step: an optional event passed
	// over (match holds it).
	passed bool
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

// frame is a state on the depth-first search's path, with the options
// it still has to try: order[next] is the next, a ready model event k
// (with the draws' values vals, nil: the first of each) when k >= 0, and
// passing over the optional event lane -k-1 waits on when k < 0.
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
		var child *state
		if k < 0 {
			child = s.pass(&f.state, -k-1)
			f.next++
		} else {
			var vals []int
			var more bool
			var err error
			child, vals, more, err = s.step(&f.state, f.ready, k, f.vals)
			if err != nil {
				return nil, err
			}
			f.vals = vals
			if !more {
				f.next++
			}
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

// order lists the options to try: first passing over the enabled
// optional events (-lane-1: what the model need not do, it tries not
// doing first), then the ready events whose process's lane waits for a
// step (a match makes progress), by the log's order of those events (the
// order the program wrote them in is a linearisation of its
// happens-before, and most often the one the model needs: a mutex's FIFO
// waiters, for one, are in no happens-before order), then the other
// ready events in queue order.
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
	var pass []int
	for l := range st.pos {
		if st.pos[l] < s.laneLen[l] {
			if i := int(s.laneEvent[l][st.pos[l]]); s.events[i].optional && s.enabled(st, i) {
				pass = append(pass, -l-1)
			}
		}
	}
	return append(append(pass, out...), later...)
}

// pass passes over the optional event lane l waits on: the model takes
// no step, the event is consumed (its fields unchecked: the model did not
// do what it records), and what then needs no step is.
func (s *searcher) pass(st *state, l int) *state {
	i := s.laneEvent[l][st.pos[l]]
	next := &state{w: st.w, pos: slices.Clone(st.pos), def: slices.Clone(st.def), consumed: st.consumed + 1, rng: st.rng,
		path: &pathNode{match: i, passed: true, steps: st.path.steps, prev: st.path}}
	next.pos[l]++
	s.closure(next)
	return next
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
