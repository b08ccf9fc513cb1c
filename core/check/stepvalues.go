package check

import "github.com/racetrack-sim/racetrack/core/sim"

// StepValues is the chooser bfs and dfs step a state with, for other
// searches of the same worlds (core/conform): it takes one given ready
// event, and the given values for the value choices the step draws,
// recording how many options each had, so that Next enumerates every
// combination. A choice of more than MaxValueOptions options takes
// option 0 and is reported by TooMany.
type StepValues struct{ f forceChooser }

// NewStepValues runs ready event event (any, for a step that asks for
// none, such as a model's Init) with the given values (nil: the first
// of each).
func NewStepValues(event int, values []int) *StepValues {
	return &StepValues{f: forceChooser{event: event, values: values}}
}

// Choose answers the kernel.
func (s *StepValues) Choose(c *sim.Choice) int { return s.f.Choose(c) }

// Next is the values of the next combination, after the step ran, and
// whether there is one.
func (s *StepValues) Next() ([]int, bool) { return s.f.next() }

// TooMany names the first choice of more than MaxValueOptions options
// the step met, with its options ("" when none).
func (s *StepValues) TooMany() (label string, options int) { return s.f.tooMany, s.f.tooManyN }
