package check

import (
	"slices"

	"github.com/racetrack-sim/racetrack/core/sim"
)

// dporEngine is stateless depth-first search with dynamic partial-order
// reduction (Flanagan and Godefroid, POPL 2005) and sleep sets: from each
// state it first follows one process, and adds another process to a
// state's backtrack set only when a later step of that process races with
// (is dependent on and not ordered after) a step taken from that state.
// It explores at least one interleaving of every Mazurkiewicz trace of
// complete runs, so every reachable end state and every lock cycle is
// found, with no state stored. Two steps are dependent when they are of
// the same process, touch the same mutex, or either is global (see
// footprint). It needs runs of bounded length (the depth budget).
type dporEngine struct {
	x     *Explorer
	g     *graphEngine
	stack []*dporFrame
	// clock[p] is the vector clock of process p's last step on the
	// current path: clock[p][q] = 1 + index of the last step of q that
	// happens before it (0: none).
	clock [][]int
	sleep bool
	cut   bool
	nproc int
}

// dporFrame is state s_i of the current path and the step taken from it.
type dporFrame struct {
	w      *sim.World
	probes [][]dporProbe // by process: its successors (several when it has several events or values)
	fp     []footprint   // by process: what its next step touches
	// enabled, backtrack, done and sleep are process bit masks.
	enabled, backtrack, done uint64
	sleep                    []footprint
	// taken is the process whose step leads to the next frame, and next
	// the index of its successor being explored.
	taken    sim.ProcID
	next     int
	oldClock []int // clock[taken] before the step, restored on pop
	stepClk  []int // the vector clock of the step taken
}

type dporProbe struct {
	w  *sim.World
	fp footprint
}

func newDPOREngine(g *graphEngine, root *sim.World) (*dporEngine, error) {
	x := g.x
	e := &dporEngine{x: x, g: g, sleep: x.cfg.Reductions.Sleep, nproc: len(root.Procs())}
	e.clock = make([][]int, e.nproc)
	for i := range e.clock {
		e.clock[i] = make([]int, e.nproc)
	}
	f := e.frame(root, nil)
	if f != nil {
		e.stack = append(e.stack, f)
	}
	return e, nil
}

// frame probes every ready event of w, detects races with the path so
// far and picks the first process to follow. It returns nil for an end
// state, a state at the depth bound, or when a probe found a violation.
func (e *dporEngine) frame(w *sim.World, sleep []footprint) *dporFrame {
	x := e.x
	ex := &expansion{e: e.g, scratch: &scratch{}}
	defer ex.flush()
	x.prog.States++
	x.prog.Depth = max(x.prog.Depth, w.Steps())
	ready := w.Ready()
	if len(ready) == 0 {
		ex.settleEnd(w)
		return nil
	}
	if w.Steps() >= x.cfg.Budget.Depth {
		e.cut = true
		return nil
	}
	f := &dporFrame{w: w, sleep: sleep, probes: make([][]dporProbe, e.nproc), fp: make([]footprint, e.nproc), taken: -1}
	for k := range ready {
		p := ready[k].Proc
		var vals []int
		for {
			b := ex.before(w, &ready[k])
			c, ch, ok := ex.try(w, k, vals, -1)
			if !ok {
				return nil
			}
			fp := ex.footprint(b, c, &ready[k], ch)
			if v, bad := x.violation(c); bad {
				ex.report(c, v)
				return nil
			}
			if len(f.probes[p]) > 0 {
				fp.global = true
			}
			f.probes[p] = append(f.probes[p], dporProbe{w: c, fp: fp})
			f.enabled |= 1 << uint(p)
			next, more := ch.next()
			if !more {
				break
			}
			vals = next
		}
	}
	for p := range f.probes {
		if len(f.probes[p]) == 0 {
			continue
		}
		fp := f.probes[p][0].fp
		for _, pr := range f.probes[p] {
			fp.global = fp.global || pr.fp.global
		}
		fp.proc = sim.ProcID(p)
		f.fp[p] = fp
		e.race(sim.ProcID(p), fp)
	}
	asleep := maskOf(sleep)
	for p := range f.probes {
		if f.enabled&^asleep&(1<<uint(p)) != 0 {
			f.backtrack = 1 << uint(p)
			break
		}
	}
	return f
}

// race adds p to the backtrack set of the state before the last step on
// the path that is dependent on p's next step and not ordered before it.
func (e *dporEngine) race(p sim.ProcID, fp footprint) {
	for i := len(e.stack) - 1; i >= 0; i-- {
		s := e.stack[i]
		q := s.taken
		if q == p || independent(s.fp[q], fp) {
			continue
		}
		if e.clock[p][q] >= i+1 {
			continue // step i happens before p's next step
		}
		if s.enabled&(1<<uint(p)) != 0 {
			s.backtrack |= 1 << uint(p)
		} else {
			s.backtrack |= s.enabled
		}
		return
	}
}

func (e *dporEngine) step(budget int) int {
	x := e.x
	used := 0
	for used < budget && x.found == nil && x.err == nil {
		if x.ended(len(e.stack), e.cut) {
			break
		}
		f := e.stack[len(e.stack)-1]
		if f.taken >= 0 && f.next >= len(f.probes[f.taken]) {
			e.undo(f)
		}
		if f.taken < 0 {
			todo := f.backtrack &^ f.done &^ maskOf(f.sleep)
			if todo == 0 {
				e.stack[len(e.stack)-1] = nil
				e.stack = e.stack[:len(e.stack)-1]
				continue
			}
			p := sim.ProcID(lowestBit(todo))
			f.done |= 1 << uint(p)
			f.taken, f.next = p, 0
			e.apply(f)
		}
		pr := f.probes[f.taken][f.next]
		f.next++
		used++
		child := e.frame(pr.w, e.childSleep(f))
		if child != nil {
			e.stack = append(e.stack, child)
		}
		x.prog.Frontier = len(e.stack)
	}
	return used
}

// apply records the vector clock of the step of f.taken.
func (e *dporEngine) apply(f *dporFrame) {
	p, fp := f.taken, f.fp[f.taken]
	i := len(e.stack) - 1
	c := slices.Clone(e.clock[p])
	for j := 0; j < i; j++ {
		s := e.stack[j]
		if s.taken != p && !independent(s.fp[s.taken], fp) {
			for q := range c {
				c[q] = max(c[q], s.stepClk[q])
			}
		}
	}
	c[p] = i + 1
	f.oldClock, f.stepClk = e.clock[p], c
	e.clock[p] = c
}

// undo forgets the step taken from f once its successors are explored.
func (e *dporEngine) undo(f *dporFrame) {
	e.clock[f.taken] = f.oldClock
	f.probes[f.taken] = nil
	f.taken = -1
}

// childSleep is the sleep set after f's step: the sleeping and already
// explored steps of f that are independent of it.
func (e *dporEngine) childSleep(f *dporFrame) []footprint {
	if !e.sleep {
		return nil
	}
	fp := f.fp[f.taken]
	var out []footprint
	for _, z := range f.sleep {
		if independent(z, fp) {
			out = append(out, z)
		}
	}
	for p := range f.fp {
		if f.done&(1<<uint(p)) != 0 && sim.ProcID(p) != f.taken && !f.fp[p].global && independent(f.fp[p], fp) {
			out = append(out, f.fp[p])
		}
	}
	return out
}

func lowestBit(m uint64) int {
	for i := 0; i < 64; i++ {
		if m&(1<<uint(i)) != 0 {
			return i
		}
	}
	return -1
}
