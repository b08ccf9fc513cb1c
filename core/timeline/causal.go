package timeline

import "sort"

// CausalSlice lists, in step order, the steps in the happens-before past
// of step i, ending with i itself: for every process p, the first
// Clock(i)[p] steps of p. It returns nil for a bad index.
func (tl *Timeline) CausalSlice(i int) []int {
	if tl.checkStep(i) != nil {
		return nil
	}
	vc := tl.trace.Clock(i)
	total := 0
	for _, c := range vc {
		total += int(c)
	}
	out := make([]int, 0, total)
	for p, c := range vc {
		for _, s := range tl.idx.procSteps[p][:c] {
			out = append(out, int(s))
		}
	}
	sort.Ints(out)
	return out
}

// StuckSlice is CausalSlice(i) joined with the causal pasts of the steps
// at which every process still waiting at step i (for a mutex, or on a
// condition variable) began to wait. The vector clocks know nothing of a
// thread that blocks on a mutex another holds, so the causal past of the
// block that closes a deadlock holds only its own thread's steps; this
// slice holds the whole cycle (every WaitCycles edge's block and lock).
// It is the slice the debugger dims the rest by.
func (tl *Timeline) StuckSlice(i int) []int {
	past := tl.CausalSlice(i)
	if past == nil {
		return nil
	}
	in := make([]bool, i+1)
	for _, s := range past {
		in[s] = true
	}
	for _, sp := range tl.idx.spans {
		if sp.Start > i {
			break
		}
		if (sp.Kind == SpanWait || sp.Kind == SpanCond) && (sp.End < 0 || sp.End > i) {
			for _, s := range tl.CausalSlice(sp.Start) {
				in[s] = true
			}
		}
	}
	out := past[:0:0]
	for s, ok := range in {
		if ok {
			out = append(out, s)
		}
	}
	return out
}
