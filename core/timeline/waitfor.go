package timeline

import "github.com/racetrack-sim/racetrack/core/sim"

// WaitEdge is an edge of the wait-for graph after a step: Waiter is
// blocked on Mutex, which Holder holds. Wait is the step at which the
// waiter blocked, Hold the step at which the holder took the mutex.
type WaitEdge struct {
	Waiter sim.ProcID  `json:"waiter"`
	Holder sim.ProcID  `json:"holder"`
	Mutex  sim.MutexID `json:"mutex"`
	Wait   int         `json:"wait"`
	Hold   int         `json:"hold"`
}

// WaitCycles lists the edges of the wait-for graph after step i that lie
// on a cycle (a deadlock), each cycle in the order its edges follow one
// another, starting at its process of least id; cycles are ordered by
// that process. It returns nil when nothing waits in a cycle, or for a
// bad index. A wait on a condition variable is no edge: it waits for a
// signal, not for a holder.
func (tl *Timeline) WaitCycles(i int) []WaitEdge {
	if tl.checkStep(i) != nil {
		return nil
	}
	np := len(tl.procs)
	// out[p] is p's edge (Waiter -1: p waits for no held mutex).
	out := make([]WaitEdge, np)
	for p := range out {
		out[p].Waiter = -1
	}
	holder := make([]int, len(tl.mutexes)) // span index of the open hold, +1
	for k, sp := range tl.idx.spans {
		if sp.Start > i {
			break
		}
		if sp.End >= 0 && sp.End <= i {
			continue
		}
		switch sp.Kind {
		case SpanHold:
			holder[sp.Mutex] = k + 1
		case SpanWait:
			out[sp.Proc] = WaitEdge{Waiter: sp.Proc, Holder: -1, Mutex: sp.Mutex, Wait: sp.Start, Hold: -1}
		}
	}
	for p := range out {
		e := &out[p]
		if e.Waiter < 0 {
			continue
		}
		if h := holder[e.Mutex]; h > 0 {
			e.Holder, e.Hold = tl.idx.spans[h-1].Proc, tl.idx.spans[h-1].Start
		} else {
			e.Waiter = -1
		}
	}
	// Out-degree is at most one, so a walk from each process finds the
	// cycle it leads into, if any; state 1 is on the current walk, 2 done.
	state := make([]uint8, np)
	onCycle := make([]bool, np)
	for start := range out {
		p := start
		for p >= 0 && state[p] == 0 {
			state[p] = 1
			if out[p].Waiter < 0 {
				break
			}
			p = int(out[p].Holder)
		}
		if p >= 0 && state[p] == 1 && out[p].Waiter >= 0 {
			for q := p; !onCycle[q]; q = int(out[q].Holder) {
				onCycle[q] = true
			}
		}
		for q := start; q >= 0 && state[q] == 1; {
			state[q] = 2
			if out[q].Waiter < 0 {
				break
			}
			q = int(out[q].Holder)
		}
	}
	var edges []WaitEdge
	done := make([]bool, np)
	for p := range out {
		if !onCycle[p] || done[p] {
			continue
		}
		for q := p; !done[q]; q = int(out[q].Holder) {
			done[q] = true
			edges = append(edges, out[q])
		}
	}
	return edges
}
