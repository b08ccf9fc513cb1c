package check

import (
	"cmp"
	"fmt"
	"math/bits"

	"github.com/racetrack-sim/racetrack/core/sim"
)

// hash is the canonical hash of a state, folded in h (a caller's
// scratch hasher: a local one would escape to the heap through the
// model's fold): the least hash of the state renamed by each symmetry.
//
// When the symmetries form a group G, it hashes only the renamings p
// whose process signatures (status, pc, condition waited on: what the
// state hash folds of each process that no renaming changes), read in
// the renamed order, are least (with the model's part of each process,
// ProcSignatures). For a state t = q·s of s's orbit the
// renamed states {p·t : p in G} are {p·s : p in G}, so the least
// signature vector and the renamings reaching it cover the same states,
// and the least hash among them is the same for the whole orbit: the
// key stays canonical while it costs about one hash instead of |G|.
//
// It also returns the renaming that gave the least hash (an index into
// e.perms; -1: the identity), which renames w into the state the key
// stands for (see canonMask).
func (e *graphEngine) hash(w *sim.World, h *sim.Hasher) (uint64, int) {
	if !e.sym {
		*h = sim.NewHasher()
		w.FoldPermuted(h, nil, w.Model().Hash)
		return h.Sum(), -1
	}
	m := w.Model()
	fold := func(p *sim.Permutation) uint64 {
		*h = sim.NewHasher()
		w.FoldPermuted(h, p, func(h *sim.Hasher) { e.caps.HashPermuted(m, h, p) })
		return h.Sum()
	}
	if !e.group || !pruneSignatures {
		best, by := fold(nil), -1
		for i := range e.perms {
			if v := fold(&e.perms[i]); v < best {
				best, by = v, i
			}
		}
		return best, by
	}
	procs := w.Procs()
	var sigBuf [64]uint64
	sigs := sigBuf[:]
	if len(procs) > len(sigBuf) {
		sigs = make([]uint64, len(procs))
	}
	ps := e.caps.ProcSignature
	for _, j := range e.moved {
		q := &procs[j]
		var model uint64
		if ps != nil {
			model = ps(m, w, sim.ProcID(j))
		}
		sigs[j] = signature(q, model)
	}
	least := -1 // index into perms of a least signature vector; -1: identity
	var cands [64]int
	ties := append(cands[:0], -1)
	for i := range e.perms {
		switch c := compareSignatures(sigs, e.moved, e.invs[i], e.invOf(least)); {
		case c < 0:
			least, ties = i, append(ties[:0], i)
		case c == 0:
			ties = append(ties, i)
		}
	}
	best, by := uint64(0), -1
	for j, i := range ties {
		var p *sim.Permutation
		if i >= 0 {
			p = &e.perms[i]
		}
		if v := fold(p); j == 0 || v < best {
			best, by = v, i
		}
	}
	return best, by
}

// canonMask renames the processes of sleep mask mask of a state as
// renaming perm (what hash returned for it) renames the state into the
// one its key stands for. The visited set keeps sleep masks in those
// names, so that under symmetry the masks of two members of an orbit
// compare process for process.
func (e *graphEngine) canonMask(mask uint64, perm int) uint64 {
	if perm < 0 || mask == 0 || e.perms[perm].Procs == nil {
		return mask
	}
	return renameMask(mask, e.perms[perm].Procs)
}

// instanceMask is canonMask's inverse: the processes of the state the
// key stands for named as in the state renaming perm renamed into it.
func (e *graphEngine) instanceMask(mask uint64, perm int) uint64 {
	if perm < 0 || mask == 0 || e.invs[perm] == nil {
		return mask
	}
	return renameMask(mask, e.invs[perm])
}

// renameMask is the mask of processes to[i] for each process i in mask.
func renameMask(mask uint64, to []sim.ProcID) uint64 {
	var out uint64
	for m := mask; m != 0; m &= m - 1 {
		out |= 1 << uint(to[bits.TrailingZeros64(m)])
	}
	return out
}

// pruneSignatures is off only in tests that compare hash with and
// without the signature pruning.
var pruneSignatures = true

func (e *graphEngine) invOf(i int) []sim.ProcID {
	if i < 0 {
		return nil
	}
	return e.invs[i]
}

// signature is what hash compares of a process, in one word: its
// status, condition waited on and pc, and what the model says belongs to
// it alone (ProcSignatures). Two processes whose signatures differ may
// share the word: that only leaves more renamings tied, each hashed.
func signature(q *sim.Proc, model uint64) uint64 {
	return model*0x9E3779B97F4A7C15 ^ (uint64(q.Status) | uint64(q.PC)<<8 | uint64(uint32(q.WaitingOn))<<40)
}

// compareSignatures compares the process signatures of a state read in
// the order of two renamings' inverses (nil: the identity), at the
// positions moved (those of the processes the renamings move: they move
// no other there, and the rest compare equal).
func compareSignatures(sigs []uint64, moved []int, a, b []sim.ProcID) int {
	for _, j := range moved {
		x, y := sigs[j], sigs[j]
		if a != nil {
			x = sigs[a[j]]
		}
		if b != nil {
			y = sigs[b[j]]
		}
		if x != y {
			return cmp.Compare(x, y)
		}
	}
	return 0
}

// symmetryGroup returns the inverses of perms on nprocs processes and
// whether perms plus the identity are closed under composition (on
// processes and on nmutexes mutexes). At most 63 renamings are checked
// (beyond, hash takes the least over all of them).
func symmetryGroup(perms []sim.Permutation, nprocs, nmutexes int) ([][]sim.ProcID, bool) {
	invs := make([][]sim.ProcID, len(perms))
	for i, p := range perms {
		if p.Procs == nil {
			continue
		}
		inv := make([]sim.ProcID, nprocs)
		for a, b := range p.Procs {
			inv[b] = sim.ProcID(a)
		}
		invs[i] = inv
	}
	if len(perms) > 63 {
		return invs, false
	}
	type key struct{ procs, mutexes string }
	keyOf := func(procs []sim.ProcID, mutexes []sim.MutexID) key {
		return key{fmt.Sprint(procs), fmt.Sprint(mutexes)}
	}
	identity := func(n int) []int32 {
		s := make([]int32, n)
		for i := range s {
			s[i] = int32(i)
		}
		return s
	}
	full := func(p sim.Permutation) ([]sim.ProcID, []sim.MutexID) {
		procs, mutexes := p.Procs, p.Mutexes
		if procs == nil {
			for _, v := range identity(nprocs) {
				procs = append(procs, sim.ProcID(v))
			}
		}
		if mutexes == nil {
			for _, v := range identity(nmutexes) {
				mutexes = append(mutexes, sim.MutexID(v))
			}
		}
		return procs, mutexes
	}
	members := map[key]bool{keyOf(full(sim.Permutation{})): true}
	all := []sim.Permutation{{}}
	for _, p := range perms {
		members[keyOf(full(p))] = true
		all = append(all, p)
	}
	for _, p := range all {
		pp, pm := full(p)
		for _, q := range all {
			qp, qm := full(q)
			cp, cm := make([]sim.ProcID, nprocs), make([]sim.MutexID, nmutexes)
			for i := range cp {
				cp[i] = pp[qp[i]]
			}
			for i := range cm {
				cm[i] = pm[qm[i]]
			}
			if !members[keyOf(cp, cm)] {
				return invs, false
			}
		}
	}
	return invs, true
}
