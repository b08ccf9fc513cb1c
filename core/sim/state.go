package sim

import (
	"maps"
	"slices"
)

// Clone returns an independent copy of the world: kernel state and model.
// The copy records no trace and has no chooser until SetChooser.
func (w *World) Clone() *World {
	c := w.cloneExceptSchedule()
	c.schedule = slices.Clone(w.schedule)
	return c
}

// cloneExceptSchedule is Clone leaving the copy's schedule aliased to w's.
func (w *World) cloneExceptSchedule() *World {
	c := *w
	c.model = w.model.Clone()
	c.chooser = nil
	c.trace = nil
	c.opts.Trace = false
	c.queue = slices.Clone(w.queue)
	c.nodes = slices.Clone(w.nodes)
	c.procs = slices.Clone(w.procs)
	c.mutexes = slices.Clone(w.mutexes)
	for i := range c.mutexes {
		c.mutexes[i].Waiters = slices.Clone(c.mutexes[i].Waiters)
	}
	c.conds = slices.Clone(w.conds)
	for i := range c.conds {
		c.conds[i].Waiters = slices.Clone(c.conds[i].Waiters)
	}
	c.net.links = slices.Clone(w.net.links)
	c.net.lastFIFO = slices.Clone(w.net.lastFIFO)
	c.cancelled = maps.Clone(w.cancelled)
	c.violated = slices.Clone(w.violated)
	c.violations = slices.Clone(w.violations)
	c.reached = slices.Clone(w.reached)
	c.last = slices.Clone(w.last)
	c.ties, c.tieProcs, c.tieIdx = nil, nil, nil
	c.ownsSchedule = false
	return &c
}

// SnapshotInto is Snapshot into dst, reusing dst's memory: dst becomes
// a copy of w exactly as Snapshot's result would be, and is returned. A
// nil dst, or one from another model, gets fresh memory. The explorers
// copy a world at every transition and throw most copies away: reusing
// one keeps the search from allocating per step. dst must not be w, and
// nothing may use dst's previous state afterwards.
func (w *World) SnapshotInto(dst *World) *World {
	if dst == w {
		panic("sim: SnapshotInto a world's own memory")
	}
	if dst == nil {
		dst = &World{}
	}
	// Keep dst's buffers (only those: copying the whole world twice
	// costs more than the rest of a small world's copy).
	m := dst.model
	queue, nodes, procs, mutexes, conds := dst.queue, dst.nodes, dst.procs, dst.mutexes, dst.conds
	links, lastFIFO, cancelled := dst.net.links, dst.net.lastFIFO, dst.cancelled
	violated, violations, reached, last := dst.violated, dst.violations, dst.reached, dst.last
	ties, tieProcs, tieIdx := dst.ties, dst.tieProcs, dst.tieIdx
	oldSched, ownsSched := dst.schedule, dst.ownsSchedule
	*dst = *w
	dst.model = w.cloneModelInto(m)
	dst.chooser = nil
	dst.trace = nil
	dst.opts.Trace = false
	dst.queue = append(queue[:0], w.queue...)
	dst.nodes = append(nodes[:0], w.nodes...)
	dst.procs = append(procs[:0], w.procs...)
	dst.mutexes = copyWaited(mutexes, w.mutexes)
	dst.conds = copyWaited(conds, w.conds)
	dst.net.links = append(links[:0], w.net.links...)
	dst.net.lastFIFO = append(lastFIFO[:0], w.net.lastFIFO...)
	// An empty set of cancelled timers may be nil (CancelTimer makes it).
	dst.cancelled = cancelled
	if len(dst.cancelled) > 0 {
		clear(dst.cancelled)
	}
	if len(w.cancelled) > 0 {
		if dst.cancelled == nil {
			dst.cancelled = make(map[int64]struct{}, len(w.cancelled))
		}
		maps.Copy(dst.cancelled, w.cancelled)
	}
	dst.violated = append(violated[:0], w.violated...)
	dst.violations = append(violations[:0], w.violations...)
	dst.reached = append(reached[:0], w.reached...)
	dst.last = append(last[:0], w.last...)
	dst.ties, dst.tieProcs, dst.tieIdx = ties[:0], tieProcs[:0], tieIdx[:0]
	// The schedule is copied into memory dst owns (and may overwrite
	// when it is recycled again), never shared: a snapshot aliasing it
	// would see it change.
	var sched []int
	if ownsSched {
		sched = oldSched[:0]
	}
	if cap(sched) < len(w.schedule)+1 {
		sched = make([]int, 0, len(w.schedule)+16)
	}
	dst.schedule, dst.ownsSchedule = append(sched, w.schedule...), true
	return dst
}

// waited is a kernel object with a waiter list: a mutex or a condition
// variable.
type waited[T any] interface {
	*T
	waiters() *[]ProcID
}

func (m *Mutex) waiters() *[]ProcID { return &m.Waiters }
func (c *Cond) waiters() *[]ProcID  { return &c.Waiters }

// copyWaited copies src into dst's memory, each waiter list into the
// list dst's element had.
func copyWaited[T any, P waited[T]](dst, src []T) []T {
	old := dst[:cap(dst)]
	if cap(dst) < len(src) {
		dst, old = make([]T, len(src)), old[:0]
	} else {
		dst = dst[:len(src)]
	}
	for i := range src {
		var keep []ProcID
		if i < len(old) {
			keep = *P(&old[i]).waiters()
		}
		dst[i] = src[i]
		*P(&dst[i]).waiters() = append(keep[:0], *P(&src[i]).waiters()...)
	}
	return dst
}

// cloneModelInto copies w's model, into dst's memory when the model can
// (Capabilities.CloneInto).
func (w *World) cloneModelInto(dst Model) Model {
	if r := w.caps.CloneInto; r != nil && dst != nil {
		if c := r(w.model, dst); c != nil {
			return c
		}
	}
	return w.model.Clone()
}

// Hash is the canonical hash of the world's state: the processes, locks,
// nodes and links, the pending events as a multiset with times relative to
// now, and the model's own state. The path that led here (step count,
// absolute time, sequence numbers, the schedule) is left out, so two paths
// to the same state hash the same. It is HashPermuted under the identity.
func (w *World) Hash() uint64 { return w.HashPermuted(nil, w.model.Hash) }

// Snapshot is Clone for keeping many copies of one long run: the copy
// shares the schedule recorded so far with w instead of copying it. The
// schedule is append-only and the copy's view of it is capped at its
// current length, so neither world ever sees the other's later choices;
// a snapshot every K steps of an N-step run then costs O(N/K) rather than
// O(N²/K) memory. Callers must not write into the slice Schedule returns.
// Like Clone it only reads w, so snapshots of one world may be taken
// concurrently.
func (w *World) Snapshot() *World {
	c := w.cloneExceptSchedule()
	c.schedule = w.schedule[:len(w.schedule):len(w.schedule)]
	if w.ownsSchedule {
		// w's schedule memory is recycled by SnapshotInto: copy it.
		c.schedule = slices.Clone(w.schedule)
	}
	return c
}

// SetSchedule replaces w's record of the choices it has made with s. It
// lets core/timeline hand the worlds it restores from snapshots a view of
// the recorded run's schedule instead of a copy: s must hold exactly the
// choices w's run made, in order, and belongs to w afterwards (cap it,
// s[:n:n], so that later choices never write into a shared array).
func (w *World) SetSchedule(s []int) { w.schedule, w.ownsSchedule = s, false }
