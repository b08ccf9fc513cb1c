package check

import (
	"cmp"
	"fmt"
	"math/bits"
	"slices"

	"github.com/racetrack-sim/racetrack/core/scenario"
	"github.com/racetrack-sim/racetrack/core/sim"
)

// Symmetric is implemented by models whose processes are interchangeable
// (identical clients, the philosophers of a round table): renaming the
// processes and mutexes by any of the listed permutations maps every
// behaviour to a behaviour and the searched properties to themselves.
// With the symmetry reduction on, bfs and dfs store each state once per
// orbit: its hash is the least over the symmetries.
type Symmetric interface {
	// Symmetries lists the permutations (the identity not needed).
	Symmetries(w *sim.World) []sim.Permutation
	// HashPermuted folds the model's state as it is after renaming by p;
	// p == nil is the identity.
	HashPermuted(h *sim.Hasher, p *sim.Permutation)
}

// ProcSignatures is implemented by Symmetric models that can say what of
// their state belongs to one process alone: values a renaming moves with
// their process (a client's counters and flags), never a reference to
// another process or mutex. hash adds them to the kernel's part of each
// process's signature, so that fewer renamings tie for the least
// signature vector and fewer are hashed. Any function of the process's
// own state is sound; one that maps different states to one value only
// leaves more ties.
type ProcSignatures interface {
	ProcSignature(w *sim.World, p sim.ProcID) uint64
}

// UnlockedSharing says whether a model's threads share state outside the
// kernel's mutexes (atomics, racy reads). The sleep-set and partial-order
// reductions assume that steps of different threads touching different
// mutexes commute, which holds only for a model whose SharesUnlockedState
// returns false. The switch defaults safe: a model that does not implement
// UnlockedSharing is taken to share state, so every pair of its steps is
// dependent (unless it declares its accesses, SharedAccess), and a model
// that forgets the declaration loses speed, never a counterexample.
type UnlockedSharing interface {
	SharesUnlockedState() bool
}

// SharedAccess is implemented by models whose threads share state outside
// the kernel's mutexes (UnlockedSharing) and that declare which of it
// each step may touch. Accesses names, as bits of masks (at most 64
// variables), the shared model variables the next step of thread p in w
// may read and write (a superset is sound); ok false means it cannot say,
// and the step is then dependent on every other. With the declarations,
// two steps of different threads are independent when they touch
// different mutexes and neither writes a variable the other reads or
// writes, so sleep sets, persistent sets and DPOR apply to such a model
// too. A model that shares state and declares nothing gets none of them.
type SharedAccess interface {
	Accesses(w *sim.World, p sim.ProcID) (reads, writes uint64, ok bool)
}

// node is a state waiting to be expanded.
type node struct {
	w     *sim.World
	key   stateKey
	sleep []footprint // transitions not to take from here, by process
	// only, when not 0, is the processes whose steps are to be taken
	// (a state expanded again: the others' were taken the first time).
	only uint64
	// pushed: a successor (not an initial state), whose world dfs
	// recycles once it is expanded.
	pushed bool
	// rebuild, when set, says w is the expansion's to use up: its last
	// successor is stepped on w itself, and rebuild returns a new world
	// of this state if the rest of the expansion needs one (the step
	// drew values, each to try from this state).
	rebuild func() (*sim.World, error)
}

// inPlaceSlot is the slot that makes try step w itself.
const inPlaceSlot = -2

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

// graphEngine holds what bfs and dfs share: the visited set over
// canonical state keys, the reductions that apply, and the expansion of
// one state into its successors. dfs (dfsEngine) keeps a LIFO frontier of
// worlds; bfs (bfsEngine) is level-synchronous and keeps no worlds
// between levels: the first violation it finds has a shortest schedule
// in steps.
type graphEngine struct {
	x        *Explorer
	store    *stateStore
	exact    bool
	por      bool // the persistent-set reduction applies to the property
	racy     bool
	access   SharedAccess // the racy model's declared accesses
	locks    bool         // the model's lock sets allow stubborn sets
	lockSets LockSets
	sym      Symmetric
	perms    []sim.Permutation
	// invs are the perms' inverses on processes (nil: not renamed), and
	// group says the perms and the identity are closed under composition:
	// then hash tries only the renamings that sort the processes'
	// signatures least (see hash).
	invs  [][]sim.ProcID
	group bool
	// moved are the processes some symmetry renames, in order: the
	// others compare equal under every renaming.
	moved []int
	// horizon: states past this virtual time are not expanded (0: none).
	horizon sim.Time
	// safeAt remembers which (process, pc) steps were found local, to try
	// them first. Expansions only read it; what they learn is merged in
	// by the engine between expansions (at the end of a bfs level), so
	// that it does not depend on the order in which workers ran.
	safeAt map[[2]int]bool
}

func newGraphEngine(x *Explorer) (engine, error) {
	e, roots, err := newGraph(x)
	if err != nil || e == nil {
		return nil, err
	}
	if x.cfg.Reductions.DPOR && x.applied.DPOR {
		if len(roots) > 1 {
			return nil, fieldErr("reductions.dpor", "%s/%s draws values while it is set up (%d initial states); dpor explores from one", x.sc.ID, x.base.Preset, len(roots))
		}
		return newDPOREngine(e, roots[0])
	}
	// Initial states reached by different values drawn in Init may be
	// the same state: each is kept once.
	var nodes []*node
	for _, r := range roots {
		key := e.keyOf(r)
		if _, seen := e.store.lookup(key); seen {
			continue
		}
		e.store.put(key, 0)
		nodes = append(nodes, &node{w: r, key: key})
	}
	x.prog.States, x.prog.Frontier = len(nodes), len(nodes)
	if x.cfg.Strategy == DFS {
		return newDFSEngine(e, nodes), nil
	}
	worlds := make([]*sim.World, len(nodes))
	for i, n := range nodes {
		worlds[i] = n.w
	}
	return newBFSEngine(e, worlds), nil
}

// initialWorlds are the worlds a preset can start in: one per
// combination of the values its Init draws (each enumerated, or sampled
// with Config.ValueSamples), in the order of their choices.
func (x *Explorer) initialWorlds() ([]*sim.World, bool, error) {
	var roots []*sim.World
	var vals []int
	sampled := false
	for {
		fc := &forceChooser{values: vals, samples: x.cfg.ValueSamples}
		w, err := x.newWorld(x.base, fc)
		if err != nil {
			return nil, false, err
		}
		if fc.tooMany != "" {
			return nil, false, fieldErr("valueSamples", "%s/%s draws %q with %d options while it is set up; %s enumerates values of at most %d options (set valueSamples to try a few of them, or use random or pct)",
				x.sc.ID, x.base.Preset, fc.tooMany, fc.tooManyN, x.cfg.Strategy, MaxValueOptions)
		}
		if err := w.Err(); err != nil {
			return nil, false, err
		}
		sampled = sampled || fc.sampled
		roots = append(roots, w)
		if len(roots) > MaxInitialStates {
			return nil, false, fieldErr("preset", "%s/%s has more than %d initial states (combinations of the values it draws while it is set up); lower valueSamples or the parameters",
				x.sc.ID, x.base.Preset, MaxInitialStates)
		}
		next, more := fc.next()
		if !more {
			return roots, sampled, nil
		}
		vals = next
	}
}

// newGraph checks the model, sets up the reductions that apply and
// returns the initial states.
func newGraph(x *Explorer) (*graphEngine, []*sim.World, error) {
	roots, sampled, err := x.initialWorlds()
	if err != nil {
		return nil, nil, err
	}
	x.sampled = sampled
	w := roots[0]
	if len(w.Procs()) > 64 && x.cfg.Reductions.Sleep {
		return nil, nil, fieldErr("reductions.sleep", "sleep sets handle at most 64 processes; %s has %d", x.sc.ID, len(w.Procs()))
	}
	e := &graphEngine{x: x, exact: x.cfg.Storage == StorageExact, safeAt: map[[2]int]bool{}}
	e.racy = true // default safe: see UnlockedSharing
	if u, ok := w.Model().(UnlockedSharing); ok {
		e.racy = u.SharesUnlockedState()
	}
	// A Sometimes property may be reached by a step whose end state is
	// also reached another way: sleep sets keep every state, not every
	// step, so a model that shares state gets no reduction then.
	if a, ok := w.Model().(SharedAccess); ok && e.racy && !x.reach {
		e.racy, e.access = false, a
	}
	// Persistent sets and DPOR preserve the reachable end states, not
	// every intermediate state an invariant must hold in.
	partialOrder := !e.racy
	for _, p := range w.PropertyList() {
		if x.cfg.Property != "" && p.Name != x.cfg.Property {
			continue
		}
		if p.Kind == sim.KindAlways || (p.Kind == sim.KindSometimes && p.Name == x.cfg.Property) {
			partialOrder = false
		}
	}
	e.por = x.cfg.Reductions.POR && partialOrder
	if ls, ok := lockSetsOf(w.Model()); ok && e.por {
		e.locks, e.lockSets = true, ls
	}
	if s, ok := symmetryOf(w.Model()); ok && x.cfg.Reductions.Symmetry {
		if perms := s.Symmetries(w); len(perms) > 0 {
			for i := range perms {
				perms[i].Prepare()
			}
			e.sym, e.perms = s, perms
			e.invs, e.group = symmetryGroup(perms, len(w.Procs()), len(w.Mutexes()))
			for j := range w.Procs() {
				for _, inv := range e.invs {
					if inv != nil && inv[j] != sim.ProcID(j) {
						e.moved = append(e.moved, j)
						break
					}
				}
			}
		}
	}
	x.applied = Reductions{Sleep: x.cfg.Reductions.Sleep && !e.racy, POR: e.por, Symmetry: e.sym != nil}
	// DPOR is kept to models that share state only under mutexes: with
	// declared accesses (vitess lock-level buggy, 3 clients, 1 iteration)
	// it visited a million states without the deadlock that an unreduced
	// bfs finds among 3,202, so it is not offered where it is unproven.
	if x.cfg.Reductions.DPOR && partialOrder && e.access == nil {
		x.applied = Reductions{Sleep: x.cfg.Reductions.Sleep, DPOR: true}
	}
	masks := 0
	switch {
	case x.applied.Sleep && len(w.Procs()) <= 16:
		masks = 16
	case x.applied.Sleep:
		masks = 64
	}
	e.store = newStateStore(e.exact, masks)
	if x.cfg.Budget.HorizonMs > 0 {
		e.horizon = sim.Time(x.cfg.Budget.HorizonMs) * sim.Millisecond
	}
	return e, roots, nil
}

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
	if e.sym == nil {
		*h = sim.NewHasher()
		w.FoldPermuted(h, nil, w.Model().Hash)
		return h.Sum(), -1
	}
	m, _ := symmetryOf(w.Model())
	fold := func(p *sim.Permutation) uint64 {
		*h = sim.NewHasher()
		w.FoldPermuted(h, p, func(h *sim.Hasher) { m.HashPermuted(h, p) })
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
	ps, _ := m.(ProcSignatures)
	for _, j := range e.moved {
		q := &procs[j]
		var model uint64
		if ps != nil {
			model = ps.ProcSignature(w, sim.ProcID(j))
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
			if single && e.por && e.safe(&ready[k], fp) {
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
// sleep, an exit, taking over a mutex already handed to it).
func (e *graphEngine) safe(ev *sim.Event, fp footprint) bool {
	return !fp.global && fp.local() && (fp.mutex < 0 || ev.Kind == sim.EvAcquire)
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
	if ex.e.access != nil && p.Kind == sim.Thread {
		// Only a thread's step can be local enough to use them.
		b.reads, b.writes, b.declared = ex.e.access.Accesses(w, ev.Proc)
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
	if e.access != nil && !fp.global {
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
	if e.por && e.safe(ev, fp) {
		if k := [2]int{int(ev.Proc), b.pc}; !e.safeAt[k] {
			ex.safe = append(ex.safe, k)
		}
	}
	return fp
}

// forceChooser takes one given ready event, then the given values for the
// value choices inside the step (0 past their end), recording how many
// options each value choice had so the caller can enumerate them. With
// samples > 0, a value choice of more than MaxValueOptions options (and
// more than samples) offers samples of them, evenly spread.
type forceChooser struct {
	event    int
	values   []int
	samples  int
	ns       []int // options of each value choice met (sampled: samples)
	used     []int // value taken at each, as an index among its options
	tooMany  string
	tooManyN int
	sampled  bool
}

func (f *forceChooser) Choose(c *sim.Choice) int {
	if c.Kind == sim.ChooseEvent {
		return f.event
	}
	n := c.N
	if n > MaxValueOptions {
		if f.samples == 0 {
			if f.tooMany == "" {
				f.tooMany, f.tooManyN = c.Label, c.N
			}
			return 0
		}
		if n > f.samples {
			n, f.sampled = f.samples, true
		}
	}
	v := 0
	if i := len(f.ns); i < len(f.values) {
		v = f.values[i]
	}
	f.ns = append(f.ns, n)
	f.used = append(f.used, v)
	return sampleOption(v, n, c.N)
}

// sampleOption is the option of a choice of total options that sample v
// of n (n <= total) stands for: n evenly spread options, both ends kept.
func sampleOption(v, n, total int) int {
	if n == total || n < 2 {
		return v
	}
	return int((int64(v)*int64(total-1) + int64(n-1)/2) / int64(n-1))
}

// next is the next vector of values in lexicographic order, given the
// options met this time (an odometer over a tree of choices).
func (f *forceChooser) next() ([]int, bool) {
	for j := len(f.used) - 1; j >= 0; j-- {
		if f.used[j]+1 < f.ns[j] {
			out := slices.Clone(f.used[:j+1])
			out[j]++
			return out, true
		}
	}
	return nil, false
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

// counterexample is the spec that replays w's run: the base spec with
// w's schedule.
func (x *Explorer) counterexample(w *sim.World) scenario.RunSpec {
	spec := x.base
	spec.Schedule = slices.Clone(w.Schedule())
	return spec
}
