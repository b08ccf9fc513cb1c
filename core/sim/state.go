package sim

import (
	"fmt"
	"maps"
	"slices"
)

// Clone returns an independent copy of the world: kernel state and model.
// The copy records no trace and has no chooser until SetChooser.
func (w *World) Clone() *World {
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
	c.schedule = slices.Clone(w.schedule)
	c.violated = slices.Clone(w.violated)
	c.violations = slices.Clone(w.violations)
	c.last = slices.Clone(w.last)
	c.ties, c.tieProcs = nil, nil
	return &c
}

// Hash is the canonical hash of the world's state: the processes, locks,
// nodes and links, the pending events as a multiset with times relative to
// now, and the model's own state. The path that led here (step count,
// absolute time, sequence numbers, the schedule) is left out, so two paths
// to the same state hash the same.
func (w *World) Hash() uint64 {
	h := NewHasher()
	for i := range w.procs {
		p := &w.procs[i]
		h.Int(int(p.Status))
		h.Int(p.PC)
		h.Int(int(p.BlockedOn))
		h.Int(int(p.WaitingOn))
	}
	for i := range w.nodes {
		h.Bool(w.nodes[i].Down)
	}
	for i := range w.mutexes {
		m := &w.mutexes[i]
		h.Int(int(m.Holder))
		h.Int(len(m.Waiters))
		for _, q := range m.Waiters {
			h.Int(int(q))
		}
	}
	for i := range w.conds {
		h.Int(len(w.conds[i].Waiters))
		for _, q := range w.conds[i].Waiters {
			h.Int(int(q))
		}
	}
	for i := range w.net.links {
		h.Bool(w.net.links[i].Down)
	}
	var events uint64
	for i := range w.queue {
		e := &w.queue[i]
		if w.stale(e) {
			continue
		}
		events += Mix64(w.eventHash(e))
	}
	h.Uint64(events)
	w.model.Hash(&h)
	return h.Sum()
}

func (w *World) eventHash(e *Event) uint64 {
	h := NewHasher()
	h.Int64(int64(e.At - w.now))
	h.Int(int(e.Proc))
	h.Int(int(e.Kind))
	h.Int(int(e.From))
	h.Int(e.Timer)
	switch p := e.Payload.(type) {
	case nil:
	case Hashable:
		p.HashInto(&h)
	default:
		h.String(fmt.Sprintf("%T%+v", p, p))
	}
	return h.Sum()
}

// Snapshot is Clone for keeping many copies of one long run: the copy
// shares the schedule recorded so far with w instead of copying it. The
// schedule is append-only and the copy's view of it is capped at its
// current length, so neither world ever sees the other's later choices;
// a snapshot every K steps of an N-step run then costs O(N/K) rather than
// O(N²/K) memory. Callers must not write into the slice Schedule returns.
func (w *World) Snapshot() *World {
	sched := w.schedule
	w.schedule = nil
	c := w.Clone()
	w.schedule = sched
	c.schedule = sched[:len(sched):len(sched)]
	return c
}

// SetSchedule replaces w's record of the choices it has made with s. It
// lets core/timeline hand the worlds it restores from snapshots a view of
// the recorded run's schedule instead of a copy: s must hold exactly the
// choices w's run made, in order, and belongs to w afterwards (cap it,
// s[:n:n], so that later choices never write into a shared array).
func (w *World) SetSchedule(s []int) { w.schedule = s }
