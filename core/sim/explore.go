package sim

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"slices"
)

// This file holds what the schedule explorers (core/check) need from the
// kernel beyond stepping, cloning and hashing: what the last step touched,
// counters of effects, and the state hash under a renaming of processes.

// StepInfo describes the step executed last.
type StepInfo struct {
	Proc ProcID
	Kind StepKind
	// Obj is the mutex (lock, block, unlock), condition variable (wait,
	// signal) or timer tag (timer) of the step, or -1.
	Obj int32
	// Msg is the message received, 0 otherwise.
	Msg MsgID
}

// LastStep describes the step executed last (the zero StepInfo before the
// first step).
func (w *World) LastStep() StepInfo {
	return StepInfo{Proc: w.cur.proc, Kind: w.cur.kind, Obj: w.cur.obj, Msg: w.cur.msg}
}

// Effects counts effects that reach other processes: messages sent and
// timers set since the start of the run. An explorer compares them before
// and after a step to learn whether the step touched anything beyond its
// process and the kernel object LastStep names.
func (w *World) Effects() (sent MsgID, timers int64) { return w.msgSeq, w.timerSeq }

// Permutation renames processes and mutexes: process i becomes Procs[i]
// and mutex j becomes Mutexes[j]. A nil slice leaves that kind of object
// as it is. Nodes, condition variables and links are not renamed.
type Permutation struct {
	Procs   []ProcID
	Mutexes []MutexID
	// procInv and mutexInv are the inverses, once Prepare made them.
	procInv  []ProcID
	mutexInv []MutexID
}

// Prepare computes p's inverses once for a p that will be hashed many
// times (FoldPermuted otherwise computes them at every call). p must not
// change afterwards.
func (p *Permutation) Prepare() {
	if p.Procs != nil {
		p.procInv = inverse(p.Procs, len(p.Procs), nil)
	}
	if p.Mutexes != nil {
		p.mutexInv = inverse(p.Mutexes, len(p.Mutexes), nil)
	}
}

func (p *Permutation) proc(q ProcID) ProcID {
	if p == nil || p.Procs == nil || q < 0 {
		return q
	}
	return p.Procs[q]
}

func (p *Permutation) mutex(m MutexID) MutexID {
	if p == nil || p.Mutexes == nil || m < 0 {
		return m
	}
	return p.Mutexes[m]
}

// inverse returns, for each new index, the old one, in buf when it has
// room for n.
func inverse[T ~int32](perm []T, n int, buf []T) []T {
	inv := buf[:0]
	if cap(buf) < n {
		inv = make([]T, n)
	}
	inv = inv[:n]
	for i := range inv {
		inv[i] = T(i)
	}
	for i, j := range perm {
		inv[j] = T(i)
	}
	return inv
}

// HashPermuted is the state hash of the world as it would be after
// renaming by p, with model folding the model's state renamed the same
// way. Explorers take the least hash over a model's symmetries as the
// canonical hash of a state (symmetry reduction). With p nil it is Hash.
func (w *World) HashPermuted(p *Permutation, model func(h *Hasher)) uint64 {
	h := NewHasher()
	w.FoldPermuted(&h, p, model)
	return h.Sum()
}

// packedFlag marks the one-word forms of foldProc and foldEvent: their
// longer forms start with a word below it, so the encodings of the two
// forms never meet.
const packedFlag = 1 << 63

// small reports whether v+1 fits in 16 bits (v >= -1).
func small(v int) bool { return v >= -1 && v < 1<<16-1 }

// foldProc folds a process's scheduling state: one word when its fields
// are small (most states), else each field.
func foldProc(h *Hasher, status ProcStatus, pc int, blockedOn MutexID, waitingOn CondID) {
	if pc >= 0 && pc < 1<<23 && small(int(blockedOn)) && small(int(waitingOn)) {
		h.Uint64(packedFlag | uint64(pc)<<40 | uint64(blockedOn+1)<<24 | uint64(waitingOn+1)<<8 | uint64(status))
		return
	}
	h.Int(int(status))
	h.Int(pc)
	h.Int(int(blockedOn))
	h.Int(int(waitingOn))
}

// foldEvent folds what identifies a pending event besides its time:
// one word when every field is small, else each field.
func foldEvent(h *Hasher, proc int, kind EventKind, from, obj int) {
	if small(proc) && small(from) && small(obj) {
		h.Uint64(packEvent(proc, kind, from, obj))
		return
	}
	h.Int(proc)
	h.Int(int(kind))
	h.Int(from)
	h.Int(obj)
}

// packEvent is foldEvent's one word (all fields small).
func packEvent(proc int, kind EventKind, from, obj int) uint64 {
	return packedFlag | uint64(kind)<<48 | uint64(proc+1)<<32 | uint64(from+1)<<16 | uint64(obj+1)
}

// FoldPermuted folds into h the state HashPermuted hashes. When h records
// (NewEncoder), the record is the canonical encoding of that state: the
// pending events, a multiset, are encoded in sorted order, so equal
// states have equal encodings whatever order their queues are in.
func (w *World) FoldPermuted(h *Hasher, p *Permutation, model func(h *Hasher)) {
	var procInv []ProcID
	var mutexInv []MutexID
	if p != nil && p.Procs != nil {
		procInv = p.procInv
		if len(procInv) != len(w.procs) {
			var buf [64]ProcID
			procInv = inverse(p.Procs, len(w.procs), buf[:])
		}
	}
	if p != nil && p.Mutexes != nil {
		mutexInv = p.mutexInv
		if len(mutexInv) != len(w.mutexes) {
			var buf [64]MutexID
			mutexInv = inverse(p.Mutexes, len(w.mutexes), buf[:])
		}
	}
	for j := range w.procs {
		i := j
		if procInv != nil {
			i = int(procInv[j])
		}
		q := &w.procs[i]
		foldProc(h, q.Status, q.PC, p.mutex(q.BlockedOn), q.WaitingOn)
	}
	for i := range w.nodes {
		h.Bool(w.nodes[i].Down)
	}
	for j := range w.mutexes {
		i := j
		if mutexInv != nil {
			i = int(mutexInv[j])
		}
		m := &w.mutexes[i]
		h.Int(int(p.proc(m.Holder)))
		h.Int(len(m.Waiters))
		for _, q := range m.Waiters {
			h.Int(int(p.proc(q)))
		}
	}
	for i := range w.conds {
		h.Int(len(w.conds[i].Waiters))
		for _, q := range w.conds[i].Waiters {
			h.Int(int(p.proc(q)))
		}
	}
	for i := range w.net.links {
		h.Bool(w.net.links[i].Down)
	}
	var events uint64
	var encoded [][]byte
	var ph *Hasher // payloads fold into it: eh would escape through the call
	for i := range w.queue {
		e := &w.queue[i]
		if w.stale(e) {
			continue
		}
		from, obj := int(e.From), e.Timer
		if e.Kind == EvDeliver {
			from = int(p.proc(e.From))
		}
		if e.Kind == EvAcquire {
			obj, from = int(p.mutex(e.Mutex)), int(b2u(e.Relock))
		}
		proc := int(p.proc(e.Proc))
		if !h.rec && e.Payload == nil && small(proc) && small(from) && small(obj) {
			// What the lines below compute for such an event, without a
			// hasher of its own.
			eh := Hasher{h: fold(fold(NewHasher().h, uint64(e.At-w.now)), packEvent(proc, e.Kind, from, obj))}
			events += eh.Sum()
			continue
		}
		eh := NewHasher()
		if h.rec {
			eh = NewEncoder(nil)
		}
		eh.Int64(int64(e.At - w.now))
		foldEvent(&eh, proc, e.Kind, from, obj)
		switch pl := e.Payload.(type) {
		case nil:
		case Hashable:
			if ph == nil {
				ph = new(Hasher)
			}
			*ph = eh
			pl.HashInto(ph)
			eh = *ph
		default:
			eh.String(fmt.Sprintf("%T%+v", pl, pl))
		}
		events += eh.Sum() // already avalanched: the sum is over mixed values
		if h.rec {
			encoded = append(encoded, eh.buf)
		}
	}
	h.Uint64(events)
	if h.rec {
		slices.SortFunc(encoded, bytes.Compare)
		h.buf = binary.AppendUvarint(h.buf, uint64(len(encoded)))
		for _, b := range encoded {
			h.raw(b)
		}
	}
	model(h)
}
