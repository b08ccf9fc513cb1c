package sim

import "strings"

// Mutex is a kernel mutex: one holder and queued waiters, so the kernel
// knows the wait-for graph.
type Mutex struct {
	ID      MutexID
	Name    string
	Node    NodeID
	Holder  ProcID // None when free
	Waiters []ProcID
	// Kind is how the mutex passes to a waiter, set when it is created.
	Kind MutexKind
	// lockStep is the step at which the holder acquired it; releaseStep
	// the step that last released it (a happens-before edge to the next
	// acquirer).
	lockStep    int32
	releaseStep int32
}

// Cond is a condition variable bound to a mutex, like sync.Cond.
type Cond struct {
	ID      CondID
	Name    string
	L       MutexID
	Waiters []ProcID
}

// AddMutex creates a FIFO mutex on node n (see MutexKind).
func (w *World) AddMutex(n NodeID, name string) MutexID {
	return w.AddMutexKind(n, name, MutexFIFO)
}

// AddCond creates a condition variable whose lock is l.
func (w *World) AddCond(l MutexID, name string) CondID {
	w.mustSetUp("AddCond")
	id := CondID(len(w.conds))
	w.conds = append(w.conds, Cond{ID: id, Name: name, L: l})
	return id
}

func (w *World) lock(p *Proc, id MutexID, cost Time) {
	m := &w.mutexes[id]
	w.cur.obj = int32(id)
	if m.Holder == p.ID {
		w.Failf("%s locks %s, which it already holds (Go mutexes are not reentrant)", p.Name, m.Name)
		return
	}
	if m.Holder == None {
		m.Holder = p.ID
		m.lockStep = int32(w.steps)
		w.cur.kind, w.cur.parent = StepLock, m.releaseStep
		w.schedule1(Event{At: w.delay(cost), Proc: p.ID, Kind: EvStep, Cause: -1})
		return
	}
	m.Waiters = append(m.Waiters, p.ID)
	p.Status, p.BlockedOn = Blocked, id
	// The blocked thread has observed the holder's acquisition: a causal
	// edge, which puts a whole lock cycle in the past of the step that
	// closes it.
	w.cur.kind, w.cur.parent = StepBlock, m.lockStep
	if cycle := w.cycleFrom(p.ID); cycle != "" {
		w.violateDeadlock(cycle)
	}
}

func (w *World) unlock(p *Proc, id MutexID) {
	m := &w.mutexes[id]
	w.cur.kind, w.cur.obj = StepUnlock, int32(id)
	if m.Holder != p.ID {
		w.Failf("%s unlocks %s, which it does not hold", p.Name, m.Name)
		return
	}
	w.release(m)
}

// release frees m and hands it to its first waiter (a Go mutex: wakes
// it).
func (w *World) release(m *Mutex) {
	m.Holder = None
	m.releaseStep = int32(w.steps)
	if m.Kind == MutexGo {
		w.wake(m)
		return
	}
	if len(m.Waiters) == 0 {
		return
	}
	next := m.Waiters[0]
	// A world's waiter lists are its own (Clone and SnapshotInto copy
	// them): shift in place.
	m.Waiters = m.Waiters[:copy(m.Waiters, m.Waiters[1:])]
	m.Holder = next
	w.schedule1(Event{At: 0, Proc: next, Kind: EvAcquire, Mutex: m.ID, Cause: int32(w.steps)})
}

func (w *World) wait(p *Proc, id CondID) {
	c := &w.conds[id]
	m := &w.mutexes[c.L]
	w.cur.kind, w.cur.obj = StepWait, int32(id)
	if m.Holder != p.ID {
		w.Failf("%s waits on %s without holding %s", p.Name, c.Name, m.Name)
		return
	}
	w.release(m)
	c.Waiters = append(c.Waiters, p.ID)
	p.Status, p.WaitingOn = Waiting, id
}

func (w *World) signal(id CondID, all bool) {
	c := &w.conds[id]
	n := len(c.Waiters)
	if n == 0 {
		return
	}
	if !all {
		n = 1
	}
	m := &w.mutexes[c.L]
	for _, q := range c.Waiters[:n] {
		wp := &w.procs[q]
		wp.WaitingOn = None
		// Like sync.Cond.Wait, the woken thread must reacquire the lock.
		if m.Kind == MutexGo {
			// It calls Lock when it runs, against everyone else.
			wp.Status, wp.BlockedOn = Blocked, m.ID
			w.schedule1(Event{At: 0, Proc: q, Kind: EvAcquire, Mutex: m.ID, Relock: true, Cause: int32(w.steps)})
			continue
		}
		if m.Holder == None {
			m.Holder = q
			wp.Status, wp.BlockedOn = Blocked, m.ID
			w.schedule1(Event{At: 0, Proc: q, Kind: EvAcquire, Mutex: m.ID, Cause: int32(w.steps)})
			continue
		}
		m.Waiters = append(m.Waiters, q)
		wp.Status, wp.BlockedOn = Blocked, m.ID
	}
	c.Waiters = c.Waiters[:copy(c.Waiters, c.Waiters[n:])]
}

// cycleFrom follows the wait-for graph from p and describes the cycle
// through p, or returns "".
func (w *World) cycleFrom(p ProcID) string {
	var chain []ProcID
	q := p
	for range w.procs {
		pr := &w.procs[q]
		if pr.Status != Blocked {
			return ""
		}
		chain = append(chain, q)
		h := w.mutexes[pr.BlockedOn].Holder
		if h == None || !w.queued(q) {
			return ""
		}
		if h == p {
			return w.describeCycle(chain)
		}
		q = h
	}
	return ""
}

// describeCycle writes "a holds X, waits for Y; b holds Y, waits for X".
func (w *World) describeCycle(chain []ProcID) string {
	var b strings.Builder
	for i, q := range chain {
		prev := chain[(i+len(chain)-1)%len(chain)]
		held := w.mutexes[w.procs[prev].BlockedOn].Name
		wants := w.mutexes[w.procs[q].BlockedOn].Name
		if i > 0 {
			b.WriteString("; ")
		}
		b.WriteString(w.procLabel(q) + " holds " + held + ", waits for " + wants)
	}
	return b.String()
}

// stuckThreads describes threads blocked or waiting for ever.
func (w *World) stuckThreads() string {
	var parts []string
	for i := range w.procs {
		p := &w.procs[i]
		switch p.Status {
		case Blocked:
			m := &w.mutexes[p.BlockedOn]
			holder := "none"
			if m.Holder != None {
				holder = w.procLabel(m.Holder)
			}
			parts = append(parts, w.procLabel(p.ID)+" waits for "+m.Name+" (held by "+holder+")")
		case Waiting:
			parts = append(parts, w.procLabel(p.ID)+" waits on "+w.conds[p.WaitingOn].Name+" with no one left to signal")
		}
	}
	return strings.Join(parts, "; ")
}

// procLabel names q in deadlock reports: the model's ProcLabel when it
// has one, else the process name.
func (w *World) procLabel(q ProcID) string {
	if l := w.caps.ProcLabel; l != nil {
		if s := l(w.model, w, q); s != "" {
			return s
		}
	}
	return w.procs[q].Name
}
