package check

import "github.com/racetrack-sim/racetrack/core/sim"

// footprint is what one step touched.
type footprint struct {
	proc sim.ProcID
	// global: the step may touch anything (an actor's step, a message
	// sent, a timer set, a value drawn, a fault).
	global bool
	mutex  int32 // the mutex touched, or -1
	// reads and writes are the shared model variables touched (see
	// SharedAccess).
	reads, writes uint64
}

// independent reports whether two steps commute: different processes,
// neither global, no common mutex, no shared variable one of them writes
// and the other touches.
func independent(a, b footprint) bool {
	return a.proc != b.proc && !a.global && !b.global && (a.mutex < 0 || b.mutex < 0 || a.mutex != b.mutex) &&
		a.writes&(b.reads|b.writes) == 0 && b.writes&a.reads == 0
}

// local reports whether a step touches no shared model variable.
func (f footprint) local() bool { return f.reads|f.writes == 0 }

// pushAll emits the successors of n, each with its sleep set: the
// sleeping and already explored steps independent of it.
//
// The sleep set handed to emit is valid only during the call.
func (ex *expansion) pushAll(n *node, succs []succ) {
	e := ex.e
	var fps [16]uint64
	if len(succs) <= len(fps) {
		// The visited set's slots of all successors at once (emit looks
		// them up one after the other).
		for i := range succs {
			fps[i] = succs[i].key.fp
		}
		ex.sink += e.store.warm(fps[:len(succs)])
	}
	done := ex.done[:0]
	defer func() { ex.done = done[:0] }()
	for _, s := range succs {
		var sleep []footprint
		if e.x.cfg.Reductions.Sleep {
			sleep = ex.sleep[:0]
			for _, z := range n.sleep {
				if independent(z, s.fp) {
					sleep = append(sleep, z)
				}
			}
			for _, d := range done {
				if independent(d, s.fp) {
					sleep = append(sleep, d)
				}
			}
			if !s.fp.global {
				done = append(done, s.fp)
			}
		}
		ex.emit(s, sleep)
		ex.sleep = sleep[:0]
	}
}

// keepAsleep is the part of sleep that stays asleep after step fp.
func (e *graphEngine) keepAsleep(sleep []footprint, fp footprint) []footprint {
	var out []footprint
	for _, z := range sleep {
		if independent(z, fp) {
			out = append(out, z)
		}
	}
	return out
}

func maskOf(sleep []footprint) uint64 {
	var m uint64
	for _, z := range sleep {
		m |= 1 << uint(z.proc)
	}
	return m
}

// asleep reports whether ready[k] is a sleeping transition: its process is
// in the sleep set (sleeping: maskOf(n.sleep); sleep sets are kept to
// models of at most 64 processes) and has no other ready event; or not
// among the processes n is expanded for (node.only).
func (e *graphEngine) asleep(n *node, sleeping uint64, ready []sim.Event, k int) bool {
	bit := uint64(1) << uint(ready[k].Proc)
	if n.only != 0 && n.only&bit == 0 {
		return true
	}
	if sleeping&bit == 0 {
		return false
	}
	for i := range ready {
		if i != k && ready[i].Proc == ready[k].Proc {
			return false
		}
	}
	return true
}
