package sim

import (
	"cmp"
	"fmt"
	"slices"
)

// StopReason says why a run ended.
type StopReason uint8

// Stop reasons.
const (
	StopNone      StopReason = iota // still running
	StopQuiescent                   // nothing left to happen
	StopMaxSteps                    // the step budget was used up
	StopMaxTime                     // the next event lies beyond the time budget
	StopViolation                   // StopOnViolation and a property failed
	StopError                       // a schedule mismatch or a model error
)

var stopNames = [...]string{"running", "quiescent", "max-steps", "max-time", "violation", "error"}

func (s StopReason) String() string { return stopNames[s] }

// MarshalText makes stop reasons readable in JSON.
func (s StopReason) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// Stop is why the run ended (StopNone while it can go on).
func (w *World) Stop() StopReason { return w.stop }

// Limits bound a run.
type Limits struct {
	MaxSteps int  // 0: unbounded
	MaxTime  Time // 0: unbounded
}

// Run steps the world until it stops, then checks what must hold at the end.
func (w *World) Run(l Limits) error {
	for w.stop == StopNone {
		w.StepWithin(l)
	}
	w.Finish()
	return w.err
}

// StepWithin runs one step unless a limit or the end is reached, in which
// case it sets the stop reason. It reports whether a step ran.
func (w *World) StepWithin(l Limits) bool {
	if w.stop != StopNone {
		return false
	}
	if l.MaxSteps > 0 && w.steps >= l.MaxSteps {
		w.stop = StopMaxSteps
		return false
	}
	w.dropStaleHead()
	if len(w.queue) == 0 {
		w.stop = StopQuiescent
		return false
	}
	if l.MaxTime > 0 && w.queue[0].At > l.MaxTime {
		w.now = l.MaxTime
		w.stop = StopMaxTime
		return false
	}
	return w.Step()
}

// Step runs the next event. It returns false when nothing is left or the
// run failed.
func (w *World) Step() bool {
	if w.err != nil {
		return false
	}
	e, ok := w.next()
	if !ok {
		if w.stop == StopNone {
			w.stop = StopQuiescent
		}
		return false
	}
	// The event is kept in the world: the model's Handle receives a
	// pointer to it, which a local would escape through (an allocation
	// per step).
	w.event = e
	w.exec(&w.event)
	if w.err != nil {
		return false
	}
	w.check()
	if w.opts.StopOnViolation && len(w.violations) > 0 && w.stop == StopNone {
		w.stop = StopViolation
	}
	return true
}

// Ready lists the events that could run next: those at the earliest time,
// in queue order. Each is an option of the next event choice.
func (w *World) Ready() []Event { return w.ReadyInto(nil) }

// ReadyInto is Ready appending to buf[:0].
func (w *World) ReadyInto(buf []Event) []Event {
	w.dropStaleHead()
	if len(w.queue) == 0 {
		return nil
	}
	at := w.queue[0].At
	out := buf[:0]
	for _, e := range w.queue {
		if e.At == at && !w.stale(&e) {
			out = append(out, e)
		}
	}
	sortEvents(out)
	return w.eligible(out)
}

// blockedByFIFO reports whether ties[i] is a delivery on a FIFO link with
// an earlier message of the same link also ready: that one must go first.
func (w *World) blockedByFIFO(ties []Event, i int) bool {
	e := &ties[i]
	if e.Kind != EvDeliver {
		return false
	}
	a, b := w.procs[e.From].Node, w.procs[e.Proc].Node
	if !w.net.links[int(a)*w.net.n+int(b)].FIFO {
		return false
	}
	for j := range ties {
		o := &ties[j]
		if j != i && o.Kind == EvDeliver && o.seq < e.seq && w.procs[o.From].Node == a && w.procs[o.Proc].Node == b {
			return true
		}
	}
	return false
}

// eligible filters a sorted list of ready events to those that may run.
func (w *World) eligible(ready []Event) []Event {
	blocked := false
	for i := range ready {
		blocked = blocked || w.blockedByFIFO(ready, i)
	}
	if !blocked {
		return ready
	}
	out := ready[:0:0]
	for i := range ready {
		if !w.blockedByFIFO(ready, i) {
			out = append(out, ready[i])
		}
	}
	return out
}

// holdBackFIFO returns the later messages of a FIFO link to the queue
// until the earlier ones have been delivered.
func (w *World) holdBackFIFO(ties []Event) []Event {
	if len(ties) < 2 {
		return ties
	}
	keep := 0
	for i := range ties {
		if w.blockedByFIFO(ties, i) {
			w.queue.push(ties[i])
			continue
		}
		ties[keep] = ties[i]
		keep++
	}
	return ties[:keep]
}

func sortEvents(es []Event) {
	slices.SortFunc(es, func(a, b Event) int {
		if a.At != b.At {
			return cmp.Compare(a.At, b.At)
		}
		return cmp.Compare(a.seq, b.seq)
	})
}

func (w *World) dropStaleHead() {
	for len(w.queue) > 0 && w.stale(&w.queue[0]) {
		e := w.queue.pop()
		w.discard(&e)
	}
}

// stale reports whether an event can no longer fire: a cancelled timer,
// or an event for a node that crashed since it was scheduled.
func (w *World) stale(e *Event) bool {
	if e.Kind == EvTimer && len(w.cancelled) > 0 {
		if _, ok := w.cancelled[e.TimerID]; ok {
			return true
		}
	}
	if w.crashes == 0 {
		// No node ever went down: every incarnation is still 0.
		return false
	}
	n := &w.nodes[w.procs[e.Proc].Node]
	return n.Down || n.Incarnation != e.inc
}

func (w *World) discard(e *Event) {
	switch e.Kind {
	case EvTimer:
		delete(w.cancelled, e.TimerID)
	case EvDeliver:
		if w.trace != nil && e.Msg > 0 {
			m := w.trace.Message(e.Msg)
			if m.RecvStep < 0 && !m.Dropped {
				m.Dropped = true
				m.DropReason = DropReceiverDown
			}
		}
	}
}

// next pops the event to run, asking the chooser when several are ready
// at the same time.
func (w *World) next() (Event, bool) {
	w.dropStaleHead()
	if len(w.queue) == 0 {
		return Event{}, false
	}
	if q := w.queue; len(q) == 1 || (q[1].At != q[0].At && (len(q) < 3 || q[2].At != q[0].At)) {
		// One event is next (the heap's children of its root are later).
		return w.queue.pop(), true
	}
	if w.crashes == 0 && len(w.cancelled) == 0 {
		if e, ok, done := w.nextInPlace(); done {
			return e, ok
		}
	}
	e := w.queue.pop()
	ties := append(w.ties[:0], e)
	for len(w.queue) > 0 && w.queue[0].At == e.At {
		x := w.queue.pop()
		if w.stale(&x) {
			w.discard(&x)
			continue
		}
		ties = append(ties, x)
	}
	ties = w.holdBackFIFO(ties)
	k := 0
	if len(ties) > 1 {
		procs := w.tieProcs[:0]
		for i := range ties {
			procs = append(procs, ties[i].Proc)
		}
		w.tieProcs = procs
		k = w.choose(ChooseEvent, len(ties), "next event", procs)
	}
	chosen := ties[k]
	for i := range ties {
		if i != k {
			w.queue.push(ties[i])
		}
	}
	w.ties = ties[:0]
	return chosen, w.err == nil
}

// nextInPlace is next when no event can be stale: it finds the events
// tied for the earliest time where they are in the heap and takes out
// only the one chosen (next pops them all and pushes the others back).
// done is false when a tie is a message delivery (whose FIFO order next
// handles).
func (w *World) nextInPlace() (e Event, ok, done bool) {
	at := w.queue[0].At
	idx := w.tieIdx[:0]
	for i := range w.queue {
		x := &w.queue[i]
		if x.At != at {
			continue
		}
		if x.Kind == EvDeliver {
			return Event{}, false, false
		}
		// Insertion in (time, seq) order: the order next pops them in.
		j := len(idx)
		idx = append(idx, int32(i))
		for j > 0 && w.queue[idx[j-1]].seq > x.seq {
			idx[j] = idx[j-1]
			j--
		}
		idx[j] = int32(i)
	}
	procs := w.tieProcs[:0]
	for _, i := range idx {
		procs = append(procs, w.queue[i].Proc)
	}
	w.tieProcs = procs
	k := w.choose(ChooseEvent, len(idx), "next event", procs)
	e = w.queue.remove(int(idx[k]))
	w.tieIdx = idx[:0]
	return e, w.err == nil, true
}

func (w *World) exec(e *Event) {
	w.now = e.At
	p := &w.procs[e.Proc]
	w.cur = stepCtx{proc: e.Proc, obj: -1, parent: -1}
	switch e.Kind {
	case EvAcquire:
		m := &w.mutexes[e.Mutex]
		w.cur.kind, w.cur.obj, w.cur.parent = StepLock, int32(e.Mutex), e.Cause
		if !w.acquire(p, m, e.Relock) {
			break
		}
		if w.trace != nil {
			w.cur.label = "acquired " + m.Name
		}
		m.lockStep = int32(w.steps)
		p.Status, p.BlockedOn = Running, None
		w.schedule1(Event{At: 0, Proc: p.ID, Kind: EvStep, Cause: -1})
	case EvDeliver:
		w.cur.kind, w.cur.msg, w.cur.parent = StepReceive, e.Msg, e.Cause
		if w.trace != nil && e.Msg > 0 {
			w.trace.Message(e.Msg).RecvStep = int32(w.steps)
		}
		w.apply(p, w.model.Handle(w, p, e))
	case EvTimer:
		w.cur.kind, w.cur.obj = StepTimer, int32(e.Timer)
		w.apply(p, w.model.Handle(w, p, e))
	case EvStep:
		w.cur.kind = StepLocal
		w.apply(p, w.model.Handle(w, p, e))
	}
	if w.cur.fault {
		w.cur.kind = StepFault
	}
	w.record()
	w.steps++
}

// apply carries out what a step returned.
func (w *World) apply(p *Proc, a Action) {
	w.cur.label = a.Label
	if p.Kind == Actor || p.Status == Crashed {
		return
	}
	switch a.Kind {
	case ActLocal, ActSleep:
		w.schedule1(Event{At: w.delay(a.Cost), Proc: p.ID, Kind: EvStep, Cause: -1})
	case ActLock:
		w.lock(p, a.Mutex, a.Cost)
	case ActUnlock:
		w.unlock(p, a.Mutex)
		w.schedule1(Event{At: w.delay(a.Cost), Proc: p.ID, Kind: EvStep, Cause: -1})
	case ActWait:
		w.wait(p, a.Cond)
	case ActSignal, ActBroadcast:
		w.signal(a.Cond, a.Kind == ActBroadcast)
		w.cur.kind, w.cur.obj = StepSignal, int32(a.Cond)
		w.schedule1(Event{At: w.delay(a.Cost), Proc: p.ID, Kind: EvStep, Cause: -1})
	case ActExit:
		p.Status = Done
		w.cur.kind = StepExit
	default:
		w.Failf("process %s returned unknown action %d", p.Name, a.Kind)
	}
}

// Finish checks, once, what must hold when the run ends: pending liveness
// obligations, and threads left blocked with nothing left to run.
func (w *World) Finish() {
	if w.finished || w.err != nil {
		return
	}
	w.finished = true
	if w.stop == StopNone {
		w.stop = StopMaxSteps
	}
	quiescent := w.stop == StopQuiescent
	for i := range w.props {
		pr := &w.props[i]
		if w.violated[i] {
			continue
		}
		switch pr.Kind {
		case KindNoDeadlock:
			if quiescent {
				if msg := w.stuckThreads(); msg != "" {
					w.violate(i, "nothing can run: "+msg)
				}
			}
		case KindEventually:
			pending, since := pr.Pending(w)
			if !pending {
				continue
			}
			if quiescent {
				w.violate(i, pr.explainIn(w)+fmt.Sprintf(" (outstanding since %s; nothing left to happen)", since))
			} else if w.now-since > pr.Deadline {
				w.violate(i, pr.explainIn(w))
			}
		}
	}
}
