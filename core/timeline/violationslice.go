package timeline

import (
	"fmt"
	"slices"

	"github.com/racetrack-sim/racetrack/core/sim"
)

// Slice is what the debugger highlights for a step: its causal past
// (StuckSlice) or, at the violation of an Eventually property, what the
// property is about: the obligation's start and how it came about, the
// steps of the nodes it concerns from its start to the violation (those
// that could have met it), and the violation.
type Slice struct {
	Step int `json:"step"`
	// Steps lists every highlighted step, in step order.
	Steps []int `json:"steps"`
	// Property names the violated property the slice explains ("" for a
	// plain causal slice); Kind is its kind and Message why it failed.
	Property string           `json:"property,omitempty"`
	Kind     sim.PropertyKind `json:"kind,omitempty"`
	Message  string           `json:"message,omitempty"`
	// Start is the step after which the obligation was outstanding until
	// the violation (-1 when the slice is no obligation's).
	Start int `json:"start"`
	// About names the nodes the obligation concerns; Chances lists their
	// steps after Start up to the violation.
	About   []string `json:"about,omitempty"`
	Chances []int    `json:"chances,omitempty"`
}

// SliceAt is the slice the debugger shows for step i: the obligation
// slice of the first Eventually violation at i, else StuckSlice(i).
func (tl *Timeline) SliceAt(i int) (Slice, error) {
	if err := tl.checkStep(i); err != nil {
		return Slice{}, err
	}
	for _, v := range tl.Violations() {
		if v.Step != i {
			continue
		}
		pr := tl.property(v.Property)
		if pr == nil || pr.Kind != sim.KindEventually {
			continue
		}
		return tl.obligationSlice(pr, v)
	}
	return Slice{Step: i, Steps: tl.StuckSlice(i), Start: -1}, nil
}

func (tl *Timeline) property(name string) *sim.Property {
	if tl.final == nil {
		return nil // an imported log: no model, no properties
	}
	props := tl.final.PropertyList()
	for k := range props {
		if props[k].Name == name {
			return &props[k]
		}
	}
	return nil
}

// obligationSlice finds when the obligation violated at v.Step became
// outstanding for good (the last step after which it was pending with the
// violation's start time), the nodes it concerns, and their steps since.
func (tl *Timeline) obligationSlice(pr *sim.Property, v sim.Violation) (Slice, error) {
	end := v.Step
	w, _, err := tl.replay(end)
	if err != nil {
		return Slice{}, err
	}
	if !w.Step() {
		return Slice{}, fmt.Errorf("%w: step %d did not run again: %v", ErrReplay, end, w.Err())
	}
	pending, since := pr.Pending(w)
	nodes := pr.Concerns(w)
	start := end
	if pending {
		start = tl.obligationStart(pr, since, end)
	}
	if len(nodes) == 0 {
		nodes = []sim.NodeID{tl.procs[tl.trace.Step(start).Proc].Node, tl.procs[tl.trace.Step(end).Proc].Node}
	}
	in := make([]bool, end+1)
	for _, s := range tl.StuckSlice(start) {
		in[s] = true
	}
	var chances []int
	for s := start + 1; s <= end; s++ {
		if slices.Contains(nodes, tl.procs[tl.trace.Step(s).Proc].Node) {
			in[s] = true
			chances = append(chances, s)
		}
	}
	in[end] = true
	steps := make([]int, 0, len(chances)+start+1)
	for s, ok := range in {
		if ok {
			steps = append(steps, s)
		}
	}
	about := make([]string, 0, len(nodes))
	for _, n := range slices.Compact(slices.Sorted(slices.Values(nodes))) {
		if int(n) >= 0 && int(n) < len(tl.nodes) {
			about = append(about, tl.nodes[n].Name)
		}
	}
	return Slice{Step: end, Steps: steps, Property: pr.Name, Kind: pr.Kind, Message: v.Message,
		Start: start, About: about, Chances: chances}, nil
}

// obligationStart is the step after which the property stayed pending
// with this since up to step end. The obligation cannot have become
// outstanding before its own start time, so the scan replays from the
// first step at or after since.
func (tl *Timeline) obligationStart(pr *sim.Property, since sim.Time, end int) int {
	from := tl.firstStepAt(since, end)
	if from > 0 {
		from--
	}
	w, _, err := tl.replay(from)
	if err != nil {
		return end
	}
	start := -1
	for s := from; s <= end; s++ {
		if !w.Step() {
			return end
		}
		if p, t := pr.Pending(w); p && t == since {
			if start < 0 {
				start = s
			}
		} else {
			start = -1
		}
	}
	if start < 0 {
		return end
	}
	return start
}

// firstStepAt is the first step in [0, end] at virtual time t or later
// (end when none is).
func (tl *Timeline) firstStepAt(t sim.Time, end int) int {
	lo, hi := 0, end
	for lo < hi {
		mid := (lo + hi) / 2
		if tl.trace.Step(mid).Time < t {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	return lo
}
