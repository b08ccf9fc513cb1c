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
