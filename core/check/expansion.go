package check

import (
	"fmt"
	"slices"

	"github.com/racetrack-sim/racetrack/core/sim"
)

// dfsEngine is depth-first search over a LIFO frontier of worlds.
// expansion expands states and collects what that found: successors
// (handed to emit), counters, the first violation, whether the depth
// bound cut the search, what (process, pc) steps were found local. It
// reads the engine and its visited set and writes only itself, so that
// bfs workers can run expansions of one level concurrently.
type expansion struct {
	e           *graphEngine
	emit        func(s succ, sleep []footprint)
	transitions int
	depth       int
	cut         bool
	err         error
	found       *finding
	safe        [][2]int
	sampled     bool   // a value was tried at sampled options only
	rebuilds    int    // states rebuilt after their world was used up
	sink        uint64 // what warm read (never used)
	*scratch
}

// scratch is the memory expansions reuse from one state to the next.
// pool holds the worlds of the successors being computed, by slot,
// recycled from one expanded state to the next (own takes one out for
// an emit that keeps it; an empty slot is refilled from free, if any);
// the rest are buffers.
type scratch struct {
	pool  []*sim.World
	free  *[]*sim.World
	fc    forceChooser
	h     sim.Hasher
	ready []sim.Event
	succs []succ
	done  []footprint
	sleep []footprint
	idx   []int
}

// own hands s's world to an emit that keeps it: the expansion no longer
// recycles it.
func (ex *expansion) own(s succ) *sim.World {
	for i, w := range ex.pool {
		if w == s.w {
			ex.pool[i] = nil
		}
	}
	return s.w
}

// flush hands what the expansion found to the explorer and the engine.
func (ex *expansion) flush() {
	x, e := ex.e.x, ex.e
	x.prog.Transitions += ex.transitions
	x.prog.Depth = max(x.prog.Depth, ex.depth)
	x.sampled = x.sampled || ex.sampled
	x.rebuilds += ex.rebuilds
	for _, k := range ex.safe {
		e.safeAt[k] = true
	}
	if ex.err != nil && x.err == nil {
		x.err = ex.err
	}
	if ex.found != nil && x.found == nil && x.err == nil {
		x.report(ex.found.spec, ex.found.violation)
	}
}

// stopped reports whether the expansion found a violation or failed.
func (ex *expansion) stopped() bool { return ex.found != nil || ex.err != nil }

// report keeps the first violation found.
func (ex *expansion) report(w *sim.World, v sim.Violation) {
	if ex.found == nil {
		ex.found = &finding{spec: ex.e.x.counterexample(w), violation: v}
	}
}

// succ is one successor of the node being expanded.
type succ struct {
	w   *sim.World
	key stateKey
	fp  footprint
	// perm is the renaming of w into the state key stands for (see
	// graphEngine.hash).
	perm int
}

// expand computes the successors of n, reports a violation or a
// completed end state, and emits the successors not seen before.
func (ex *expansion) expand(n *node) {
	e := ex.e
	x := e.x
	w := n.w
	ex.depth = max(ex.depth, w.Steps())
	ex.ready = w.ReadyInto(ex.ready)
	ready := ex.ready
	if len(ready) == 0 {
		ex.settleEnd(w)
		return
	}
	if w.Steps() >= x.cfg.Budget.Depth || (e.horizon > 0 && w.Now() > e.horizon) {
		ex.cut = true
		return
	}
	if e.locks && ex.expandStubborn(n, ready) {
		return
	}
	succs := ex.succs[:0]
	defer func() { clear(succs); ex.succs = succs[:0] }()
	ex.idx = e.order(w, ready, ex.idx)
	// The last option tried may step n's world itself when n allows it
	// (it saves a copy; see node.rebuild).
	last := -1
	sleeping := maskOf(n.sleep)
	if n.rebuild != nil {
		for _, k := range ex.idx {
			if !e.asleep(n, sleeping, ready, k) {
				last = k
			}
		}
	}
	for _, k := range ex.idx {
		if e.asleep(n, sleeping, ready, k) {
			continue
		}
		single := true
		var vals []int
		for {
			b := ex.before(w, &ready[k])
			inPlace := k == last && vals == nil
			slot := len(succs)
			if inPlace {
				slot = inPlaceSlot
			}
			c, ch, ok := ex.try(w, k, vals, slot)
			if !ok {
				return
			}
			if inPlace && len(ch.ns) > 0 {
				// The step drew values: the others need n's world again.
				var err error
				ex.rebuilds++
				if w, err = n.rebuild(); err != nil {
					ex.err = err
					return
				}
			}
			if len(ch.ns) > 0 {
				single = false
			}
			fp := ex.footprint(b, c, &ready[k], ch)
			if v, bad := x.violation(c); bad {
				ex.report(c, v)
				return
			}
			key, perm := e.canonKey(c, &ex.h)
			s := succ{w: c, key: key, fp: fp, perm: perm}
			if single && e.por && e.safe(c, &ready[k], fp) {
				if _, seen := e.store.lookup(s.key); !seen {
					// A persistent set of one: the step touches nothing
					// another process can touch, and leads somewhere new.
					ex.emit(s, e.keepAsleep(n.sleep, fp))
					return
				}
			}
			succs = append(succs, s)
			next, more := ch.next()
			if !more {
				break
			}
			vals = next
		}
	}
	ex.pushAll(n, succs)
}

// order lists the options, the ones likely to be local first when the
// partial-order reduction is on (a local step found early saves computing
// the other successors).
func (e *graphEngine) order(w *sim.World, ready []sim.Event, buf []int) []int {
	idx := buf[:0]
	for i := range ready {
		idx = append(idx, i)
	}
	if !e.por {
		return idx
	}
	rank := func(i int) int {
		ev := &ready[i]
		switch {
		case ev.Kind == sim.EvAcquire:
			return 0
		case e.safeAt[[2]int{int(ev.Proc), w.Proc(ev.Proc).PC}]:
			return 1
		}
		return 2
	}
	slices.SortStableFunc(idx, func(a, b int) int { return rank(a) - rank(b) })
	return idx
}

// safe reports whether a step is alone a persistent set: a thread's step
// that touched no kernel object another process can touch (local work, a
// sleep, an exit, taking over a FIFO mutex already handed to it; a woken
// waiter's try at a Go mutex is not: a thread locking it first wins).
func (e *graphEngine) safe(w *sim.World, ev *sim.Event, fp footprint) bool {
	return !fp.global && fp.local() && (fp.mutex < 0 || ev.Kind == sim.EvAcquire && w.Mutex(ev.Mutex).Kind == sim.MutexFIFO)
}

// try runs option k of w's ready events with the given values for the
// value choices inside the step, on a copy of w: the world of pool slot
// slot, recycled, or (slot < 0) a new one; or on w itself (slot ==
// inPlaceSlot). The chooser it returns is valid until the next try.
func (ex *expansion) try(w *sim.World, k int, vals []int, slot int) (*sim.World, *forceChooser, bool) {
	e := ex.e
	x := e.x
	var c *sim.World
	switch {
	case slot == inPlaceSlot:
		c = w
	case slot < 0:
		c = w.Snapshot()
	default:
		for len(ex.pool) <= slot {
			ex.pool = append(ex.pool, nil)
		}
		if ex.pool[slot] == nil && ex.free != nil && len(*ex.free) > 0 {
			f := *ex.free
			ex.pool[slot], *ex.free = f[len(f)-1], f[:len(f)-1]
		}
		c = w.SnapshotInto(ex.pool[slot])
		ex.pool[slot] = c
	}
	ch := &ex.fc
	*ch = forceChooser{event: k, values: vals, samples: x.cfg.ValueSamples, ns: ch.ns[:0], used: ch.used[:0]}
	c.SetChooser(ch)
	ex.transitions++
	c.Step()
	if ch.tooMany != "" {
		ex.err = fmt.Errorf("%w: %s draws %q with %d options at step %d; %s enumerates values of at most %d options (set valueSamples to try a few of them, use an untimed preset, or random or pct)",
			ErrUnsupported, e.x.sc.ID, ch.tooMany, ch.tooManyN, w.Steps(), x.cfg.Strategy, MaxValueOptions)
		return nil, nil, false
	}
	ex.sampled = ex.sampled || ch.sampled
	if err := c.Err(); err != nil {
		ex.err = err
		return nil, nil, false
	}
	return c, ch, true
}

// pre is what footprint needs of the state a step leaves, taken before
// the step (which may run on that state's own world).
type pre struct {
	kind          sim.ProcKind
	pc            int
	sent          sim.MsgID
	timers        int64
	reads, writes uint64
	declared      bool // the model declared the step's accesses
}

// before takes what footprint needs of w before ev's step.
func (ex *expansion) before(w *sim.World, ev *sim.Event) pre {
	p := w.Proc(ev.Proc)
	b := pre{kind: p.Kind, pc: p.PC}
	b.sent, b.timers = w.Effects()
	if ex.e.access && p.Kind == sim.Thread {
		// Only a thread's step can be local enough to use them.
		b.reads, b.writes, b.declared = ex.e.caps.Accesses(ex.e.root, w, ev.Proc)
	}
	return b
}

// footprint learns what the step from the state b was taken of to c
// touched.
func (ex *expansion) footprint(b pre, c *sim.World, ev *sim.Event, ch *forceChooser) footprint {
	e := ex.e
	st := c.LastStep()
	fp := footprint{proc: ev.Proc, mutex: -1}
	sent1, timers1 := c.Effects()
	fp.global = e.racy || b.kind != sim.Thread || len(ch.ns) > 0 || b.sent != sent1 || b.timers != timers1
	if e.access && !fp.global {
		fp.reads, fp.writes, fp.global = b.reads, b.writes, !b.declared
	}
	switch st.Kind {
	case sim.StepLock, sim.StepBlock, sim.StepUnlock:
		fp.mutex = st.Obj
	case sim.StepWait, sim.StepSignal:
		fp.mutex = int32(c.Conds()[st.Obj].L)
	case sim.StepLocal, sim.StepExit:
	default:
		fp.global = true
	}
	if e.por && e.safe(c, ev, fp) {
		if k := [2]int{int(ev.Proc), b.pc}; !e.safeAt[k] {
			ex.safe = append(ex.safe, k)
		}
	}
	return fp
}

// settleEnd runs the end of a run that has nothing left to step (the
// kernel's end-of-run checks) and reports what it violates.
func (ex *expansion) settleEnd(w *sim.World) {
	w.StepWithin(sim.Limits{})
	w.Finish()
	if v, ok := ex.e.x.violation(w); ok {
		ex.report(w, v)
	}
}
