package check

import (
	"github.com/racetrack-sim/racetrack/core/sim"
)

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

// graphEngine holds what bfs and dfs share: the visited set over
// canonical state keys, the reductions that apply, and the expansion of
// one state into its successors. dfs (dfsEngine) keeps a LIFO frontier of
// worlds; bfs (bfsEngine) is level-synchronous and keeps no worlds
// between levels: the first violation it finds has a shortest schedule
// in steps.
type graphEngine struct {
	x     *Explorer
	store *stateStore
	exact bool
	por   bool // the persistent-set reduction applies to the property
	racy  bool
	// caps are the model's capabilities, and root the initial state's
	// model, whose configuration the declared accesses and lock sets
	// are read from.
	caps   *sim.Capabilities[sim.Model]
	root   sim.Model
	access bool // the racy model's declared accesses apply
	locks  bool // the model's lock sets allow stubborn sets
	sym    bool // a symmetry reduction applies
	perms  []sim.Permutation
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
	caps := w.Capabilities()
	e := &graphEngine{x: x, exact: x.cfg.Storage == StorageExact, safeAt: map[[2]int]bool{}, caps: caps, root: w.Model()}
	e.racy = true // default safe: see sim.Capabilities.SharesUnlockedState
	if caps.SharesUnlockedState != nil {
		e.racy = caps.SharesUnlockedState(e.root)
	}
	// A Sometimes property may be reached by a step whose end state is
	// also reached another way: sleep sets keep every state, not every
	// step, so a model that shares state gets no reduction then.
	if caps.Accesses != nil && e.racy && !x.reach {
		e.racy, e.access = false, true
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
	e.locks = caps.MayTouch != nil && e.por
	if caps.Symmetries != nil && x.cfg.Reductions.Symmetry {
		if perms := caps.Symmetries(e.root, w); len(perms) > 0 {
			for i := range perms {
				perms[i].Prepare()
			}
			e.sym, e.perms = true, perms
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
	x.applied = Reductions{Sleep: x.cfg.Reductions.Sleep && !e.racy, POR: e.por, Symmetry: e.sym}
	// DPOR is kept to models that share state only under mutexes: with
	// declared accesses (vitess lock-level buggy, 3 clients, 1 iteration)
	// it visited a million states without the deadlock that an unreduced
	// bfs finds among 3,202, so it is not offered where it is unproven.
	if x.cfg.Reductions.DPOR && partialOrder && !e.access {
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
