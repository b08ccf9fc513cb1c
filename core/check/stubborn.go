package check

import (
	"github.com/racetrack-sim/racetrack/core/sim"
)

// maxSeeds bounds the processes tried as the seed of a stubborn set; the
// smallest set found is explored.
const maxSeeds = 8

// stubborn is the state of one stubborn-set computation at a state.
type stubborn struct {
	ex    *expansion
	e     *graphEngine
	w     *sim.World
	ready []sim.Event
	evIdx []int   // by process: its ready event, -1 if none
	succ  []*succ // by process: its successor, once computed
	abort bool    // the state does not fit (a value choice, a condition variable, a global step)
	found bool    // a successor violated the property
}

// expandStubborn explores a stubborn set of n's state and reports whether
// it handled the state (false: expand it fully).
func (ex *expansion) expandStubborn(n *node, ready []sim.Event) bool {
	e := ex.e
	w := n.w
	procs := w.Procs()
	st := &stubborn{ex: ex, e: e, w: w, ready: ready, evIdx: make([]int, len(procs)), succ: make([]*succ, len(procs))}
	for i := range st.evIdx {
		st.evIdx[i] = -1
		if procs[i].Status == sim.Waiting {
			return false
		}
	}
	for k := range ready {
		p := ready[k].Proc
		if st.evIdx[p] >= 0 || procs[p].Kind != sim.Thread {
			return false
		}
		st.evIdx[p] = k
	}
	var best []sim.ProcID
	tried := 0
	sleeping := maskOf(n.sleep)
	for _, k := range e.order(w, ready, nil) {
		p := ready[k].Proc
		if e.asleep(n, sleeping, ready, k) {
			continue
		}
		t := st.closure(p)
		if st.found {
			return true
		}
		if st.abort {
			return false
		}
		if best == nil || len(t) < len(best) {
			best = t
		}
		if tried++; len(best) <= 1 || tried >= maxSeeds {
			break
		}
	}
	var succs []succ
	for _, p := range best {
		k := st.evIdx[p]
		if k < 0 || e.asleep(n, sleeping, ready, k) {
			continue
		}
		succs = append(succs, *st.succ[p])
	}
	ex.pushAll(n, succs)
	return true
}

// closure is the stubborn set grown from seed.
func (st *stubborn) closure(seed sim.ProcID) []sim.ProcID {
	in := make([]bool, len(st.evIdx))
	var out []sim.ProcID
	work := []sim.ProcID{seed}
	e := st.e
	for len(work) > 0 && !st.abort && !st.found {
		p := work[len(work)-1]
		work = work[:len(work)-1]
		if in[p] {
			continue
		}
		in[p] = true
		out = append(out, p)
		s := st.exec(p)
		if s == nil {
			return nil
		}
		m := s.fp.mutex
		if m < 0 {
			continue
		}
		for q := range st.evIdx {
			qp := sim.ProcID(q)
			if qp == p || in[q] || !touches(e.caps.MayTouch(e.root, st.w, qp), m) {
				continue
			}
			work = append(work, st.enablers(qp, make([]bool, len(st.evIdx)))...)
		}
	}
	return out
}

func touches(ms []sim.MutexID, m int32) bool {
	for _, x := range ms {
		if int32(x) == m {
			return true
		}
	}
	return false
}

// enablers are the processes whose steps must come first for q to move:
// q itself when it is ready, the holder (recursively) of the mutex q is
// blocked on, nobody for a finished or crashed thread or a wait cycle.
func (st *stubborn) enablers(q sim.ProcID, seen []bool) []sim.ProcID {
	if st.evIdx[q] >= 0 {
		return []sim.ProcID{q}
	}
	if seen[q] {
		return nil
	}
	seen[q] = true
	p := st.w.Proc(q)
	switch p.Status {
	case sim.Blocked:
		h := st.w.Mutex(p.BlockedOn).Holder
		if h == sim.None {
			st.abort = true
			return nil
		}
		return st.enablers(h, seen)
	case sim.Done, sim.Crashed:
		return nil
	}
	st.abort = true
	return nil
}

// exec computes p's successor once.
func (st *stubborn) exec(p sim.ProcID) *succ {
	if s := st.succ[p]; s != nil {
		return s
	}
	ex, e, k := st.ex, st.e, st.evIdx[p]
	b := ex.before(st.w, &st.ready[k])
	c, ch, ok := ex.try(st.w, k, nil, -1)
	if !ok {
		st.abort = true
		return nil
	}
	fp := ex.footprint(b, c, &st.ready[k], ch)
	if kind := c.LastStep().Kind; fp.global || !fp.local() || len(ch.ns) > 0 || kind == sim.StepWait || kind == sim.StepSignal {
		st.abort = true
		return nil
	}
	if v, bad := e.x.violation(c); bad {
		ex.report(c, v)
		st.found = true
		return nil
	}
	key, perm := e.canonKey(c, &ex.h)
	s := &succ{w: c, key: key, fp: fp, perm: perm}
	st.succ[p] = s
	return s
}
