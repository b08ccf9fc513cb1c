package sim

import "slices"

// MutexKind says how a mutex passes from the thread that unlocks it to a
// thread that waits for it.
type MutexKind uint8

// Mutex kinds.
const (
	// MutexFIFO hands the mutex at unlock to the thread that waited
	// longest: nobody can take it in between. The default.
	MutexFIFO MutexKind = iota
	// MutexGo is Go's sync.Mutex in its normal mode: unlock frees the
	// mutex and wakes the first waiter, which must then take it like
	// anyone else. A thread that locks it before the woken waiter runs
	// (barging) gets it, and the waiter goes back to the front of the
	// queue. (Go hands the mutex over FIFO only in its starvation mode,
	// after a waiter has waited 1 ms, which a model of steps does not
	// measure: a Go mutex here can always be barged.) Condition
	// variables on it reacquire it like sync.Cond.Wait: the woken thread
	// calls Lock afresh, and queues last if it finds the mutex held.
	// A woken thread's try (EvAcquire) races with every Lock of its
	// mutex, so core/check's partial-order reduction takes it alone as a
	// persistent set only for a FIFO mutex (where it is a hand-off).
	MutexGo
)

func (k MutexKind) String() string {
	if k == MutexGo {
		return "go"
	}
	return "fifo"
}

// AddMutexKind creates a mutex of the given kind on node n (AddMutex is
// AddMutexKind with MutexFIFO).
func (w *World) AddMutexKind(n NodeID, name string, kind MutexKind) MutexID {
	w.mustSetUp("AddMutex")
	if kind != MutexFIFO && kind != MutexGo {
		panic("sim: AddMutexKind " + name + ": unknown mutex kind")
	}
	id := MutexID(len(w.mutexes))
	w.mutexes = append(w.mutexes, Mutex{ID: id, Name: name, Node: n, Holder: None, Kind: kind, lockStep: -1, releaseStep: -1})
	return id
}

// wake wakes the first waiter of the Go mutex m, which release has just
// freed, unless a waiter woken before has not run yet (Go's mutexWoken
// flag: one woken waiter at a time). The woken thread stays blocked, out
// of the waiter list, until its EvAcquire runs.
func (w *World) wake(m *Mutex) {
	if len(m.Waiters) == 0 || w.wokenFor(m.ID) {
		return
	}
	next := m.Waiters[0]
	m.Waiters = m.Waiters[:copy(m.Waiters, m.Waiters[1:])]
	w.schedule1(Event{At: 0, Proc: next, Kind: EvAcquire, Mutex: m.ID, Cause: int32(w.steps)})
}

// wokenFor reports whether a waiter woken at an unlock of mutex id has
// yet to try it.
func (w *World) wokenFor(id MutexID) bool {
	for i := range w.queue {
		e := &w.queue[i]
		if e.Kind == EvAcquire && e.Mutex == id && !e.Relock && !w.stale(e) {
			return true
		}
	}
	return false
}

// acquire runs the EvAcquire of p on m: a FIFO mutex was handed to p; a
// Go mutex is taken when still free, and otherwise p, which lost it to a
// barging thread, waits again: first in line when an unlock woke it,
// last when a signal did (it locks afresh). It reports whether p got it.
func (w *World) acquire(p *Proc, m *Mutex, relock bool) bool {
	if m.Holder == None {
		// Its happens-before parent is the last unlock (lock order),
		// which may be a barging thread's, not the one that woke it.
		m.Holder, w.cur.parent = p.ID, m.releaseStep
	}
	if m.Holder == p.ID {
		return true
	}
	if relock {
		m.Waiters = append(m.Waiters, p.ID)
	} else {
		m.Waiters = slices.Insert(m.Waiters, 0, p.ID)
	}
	w.cur.kind, w.cur.parent = StepBlock, m.lockStep
	if w.trace != nil {
		w.cur.label = "woken, but " + w.procs[m.Holder].Name + " took " + m.Name + " first"
	}
	if cycle := w.cycleFrom(p.ID); cycle != "" {
		w.violateDeadlock(cycle)
	}
	return false
}

// queued reports whether blocked thread q is in the waiter list of the
// mutex it is blocked on: a thread woken to try a Go mutex, or handed a
// FIFO one, is not, and waits for nobody.
func (w *World) queued(q ProcID) bool {
	m := &w.mutexes[w.procs[q].BlockedOn]
	return m.Kind == MutexFIFO || slices.Contains(m.Waiters, q)
}
