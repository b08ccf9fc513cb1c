package conform

import "slices"

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
		if n.passed {
			reached[n.match] = n.steps
			for _, i := range n.reached {
				reached[i] = n.steps
			}
			continue
		}
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
