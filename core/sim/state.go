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
	c.ties, c.tieProcs = nil, nil
	return &c
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
	return c
}

// SetSchedule replaces w's record of the choices it has made with s. It
// lets core/timeline hand the worlds it restores from snapshots a view of
// the recorded run's schedule instead of a copy: s must hold exactly the
// choices w's run made, in order, and belongs to w afterwards (cap it,
// s[:n:n], so that later choices never write into a shared array).
func (w *World) SetSchedule(s []int) { w.schedule = s }
