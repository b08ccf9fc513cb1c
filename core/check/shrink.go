package check

import (
	"slices"

	"github.com/racetrack-sim/racetrack/core/sim"
)

// shrinker is delta debugging (Zeller and Hildebrandt's ddmin, removing
// complements) over a failing schedule, resumable in slices. A candidate
// schedule is replayed choice by choice, each choice clamped to the
// options that exist at that point, and once it is used up every further
// choice is 0 (the earliest-scheduled event, the lowest value). A
// candidate is kept when the run violates the same property and its
// recorded schedule up to the violation is shorter than the current one,
// so every accepted step shrinks the schedule and the search ends; at
// granularity len(cur) no single choice can be removed: the result is
// 1-minimal.
type shrinker struct {
	x         *Explorer
	cur       []int
	violation sim.Violation
	n         int // granularity
	i         int // next complement to try at this granularity
	runs      int
	steps     int // steps replayed so far
	done      bool
}

func newShrinker(x *Explorer, schedule []int) *shrinker {
	s := &shrinker{x: x, cur: slices.Clone(schedule), n: 2, violation: x.found.violation}
	if len(s.cur) < 1 {
		s.done = true
	}
	return s
}

// step tries up to budget candidates.
func (s *shrinker) step(budget int) int {
	used := 0
	for used < budget && !s.done {
		if s.runs >= ShrinkRuns || s.steps >= ShrinkSteps || s.x.err != nil {
			s.done = true
			break
		}
		if s.n > len(s.cur) {
			s.n = len(s.cur)
		}
		if s.i >= s.n {
			if s.n >= len(s.cur) {
				s.done = true
				break
			}
			s.n, s.i = min(2*s.n, len(s.cur)), 0
			continue
		}
		lo, hi := s.chunk(s.i)
		cand := append(slices.Clone(s.cur[:lo]), s.cur[hi:]...)
		used++
		s.runs++
		s.x.prog.Runs++
		got, v, ok := s.test(cand)
		if ok && len(got) < len(s.cur) {
			s.cur, s.violation = got, v
			s.n, s.i = max(s.n-1, 2), 0
			continue
		}
		s.i++
	}
	return used
}

// chunk returns the bounds of the i-th of n nearly equal parts of cur.
func (s *shrinker) chunk(i int) (int, int) {
	l := len(s.cur)
	return i * l / s.n, (i + 1) * l / s.n
}

// test replays cand and returns the schedule recorded up to the violation
// of the same property.
func (s *shrinker) test(cand []int) ([]int, sim.Violation, bool) {
	x := s.x
	spec := x.found.spec
	w, err := x.newWorld(spec, &clampChooser{schedule: cand})
	if err != nil {
		x.err = err
		return nil, sim.Violation{}, false
	}
	v, ok, err := x.runToViolation(w, spec.Limits())
	s.steps += w.Steps()
	if err != nil || !ok || v.Property != s.violation.Property {
		return nil, sim.Violation{}, false
	}
	return slices.Clone(w.Schedule()), v, true
}

// clampChooser replays a schedule, clamping each choice to the options
// that exist, then chooses 0.
type clampChooser struct {
	schedule []int
	pos      int
}

func (c *clampChooser) Choose(ch *sim.Choice) int {
	if c.pos >= len(c.schedule) {
		return 0
	}
	v := c.schedule[c.pos]
	c.pos++
	return min(v, ch.N-1)
}
