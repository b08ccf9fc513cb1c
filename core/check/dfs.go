package check

import (
	"slices"

	"github.com/racetrack-sim/racetrack/core/sim"
)

// dfsEngine is the depth-first search: a LIFO frontier of states, each
// with its world, expanded one at a time.
//
// On several workers (a driver's PlanWorkers before the first state is
// expanded) the frontier is split into one stack per worker, and the
// search runs in phases: the workers share a phase's quota of states,
// taking a few at a time (so that none waits long for the others at the
// phase's end), and each expands them from the top of its own stack,
// storing their successors in the shared visited set (each of its groups
// behind a lock); a worker whose stack runs dry takes the bottom half of
// the largest one (the states nearest the root, which have the most left
// below them). The core starts no
// concurrency and has no locks: the driver that runs the tasks
// concurrently gives it its locks (Locks).
//
// Which worker stores a state first depends on timing, but the states
// stored when the search has expanded everything do not: with sleep sets
// (a state reached again with a sleep set that is not a superset of the
// stored one is expanded again) and symmetry (a canonical key per state)
// every reachable state is stored, whatever the order. So a parallel dfs
// that runs to its end has the verdict and the state count of the
// one-worker dfs. Anything else could depend on timing: which violation
// is met first, which states a depth, horizon or state bound leaves out.
// So the moment a worker meets any of these (or an error), the search
// starts over on one goroutine and gives exactly the one-worker result.
//
// Partial-order reduction takes a persistent set of one step only when it
// leads to a state not yet stored, which makes the reduced state space
// depend on the order: a dfs with it runs on one goroutine.
type dfsEngine struct {
	g   *graphEngine
	cut bool // a state was left unexpanded at the depth bound
	// workers hold the frontier: one on one goroutine, one each on
	// several (see PlanWorkers), locked with locks (noLocks on one).
	workers []*dfsWorker
	locks   Locks
	// left is the part of the phase's quota no worker has claimed yet,
	// under the last of the locks.
	left int
	// started: a state was expanded on one goroutine (or the parallel
	// search gave up): the search stays there.
	started bool
	// initial are copies of the initial states, and sampled what
	// x.sampled was, while a parallel search may still start over.
	initial []*node
	sampled bool
}

// dfsWorker expands states from its stack (behind its lock, as other
// workers may take from it) with its own expansion and memory: the
// worlds of states it expanded go to free, where its expansion takes the
// worlds of new successors from.
type dfsWorker struct {
	d     *dfsEngine
	lock  int
	stack []*node
	free  []*sim.World
	nodes []*node // nodes of expanded successors, to reuse with their sleep sets' memory
	ex    *expansion
	lend  lender
	added int // new states stored since the engine last counted them
	// stop: the worker met a violation, a bound or an error; a parallel
	// search starts over on one goroutine at the end of the phase.
	stop bool
}

func (d *dfsEngine) newWorker(i int) *dfsWorker {
	wk := &dfsWorker{d: d, lock: storeGroups + i, lend: lender{x: d.g.x}}
	wk.ex = &expansion{e: d.g, emit: wk.push, scratch: &scratch{free: &wk.free}}
	return wk
}

// parallel reports whether the search runs split among workers.
func (d *dfsEngine) parallel() bool { return len(d.workers) > 1 }

// Locks are mutual-exclusion locks numbered from 0, which a driver that
// runs the tasks of a parallel dfs concurrently gives it (PlanWorkers).
type Locks interface {
	Lock(i int)
	Unlock(i int)
}

// LocksFor is the number of locks a dfs on workers needs: one per
// group of the visited set, one per worker's stack, and the phase's
// quota's.
func LocksFor(workers int) int { return storeGroups + workers + 1 }

// noLocks are the locks of tasks that never run concurrently.
type noLocks struct{}

func (noLocks) Lock(int)   {}
func (noLocks) Unlock(int) {}

// Quotas of a phase of a parallel dfs: states a worker expands (each
// takes a few microseconds) before the phase ends and the explorer
// reports its progress; the short quota while some worker has nothing to
// do.
const (
	dfsQuota      = 8192
	dfsShortQuota = 64
	// dfsClaim is how many states of the phase's quota a worker claims
	// at a time.
	dfsClaim = 64
)

func newDFSEngine(e *graphEngine, nodes []*node) *dfsEngine {
	slices.Reverse(nodes) // the first initial state is expanded first
	d := &dfsEngine{g: e, locks: noLocks{}}
	d.workers = []*dfsWorker{d.newWorker(0)}
	d.workers[0].stack = nodes
	return d
}

// lender lends the world of a state being expanded to its expansion, to
// step into its last successor: dfs recycles that world afterwards
// anyway, and this saves copying it once a state (see node.rebuild).
// Should that step draw values, the others are tried from the state's
// world rebuilt by replaying its schedule from the start, and the lender
// lends no more: in a search whose steps draw values such replays, each
// as long as the state's schedule, would cost more than the copies.
type lender struct {
	x       *Explorer
	cur     *node // the state lent, while its world is its own
	steps   int
	sched   []int
	rebuild func() (*sim.World, error)
	off     bool
}

// lendTo lends n's world to its expansion, if it is a successor's (an
// initial state's world is kept).
func (l *lender) lendTo(n *node) {
	l.cur = nil
	if !n.pushed || !inPlaceSteps || l.off {
		return
	}
	if l.rebuild == nil {
		l.rebuild = func() (*sim.World, error) {
			l.off = true
			return l.x.replayTo(l.sched, l.steps)
		}
	}
	l.cur, l.steps, l.sched = n, n.w.Steps(), n.w.Schedule()
	n.rebuild = l.rebuild
}

// took is told of each successor's world a push keeps: if it is the
// lent one, the expanded state no longer owns it.
func (l *lender) took(w *sim.World) {
	if l.cur != nil && l.cur.w == w {
		l.cur.w = nil
	}
}

// plan splits the search among workers if it can run on them: before
// its first state is expanded, and without partial-order reduction.
// locks (nil: the tasks never run concurrently) makes LocksFor(workers)
// locks.
func (d *dfsEngine) plan(workers int, locks func(n int) Locks) {
	e := d.g
	if workers < 2 || d.started || d.parallel() || e.por || e.x.prog.Done {
		return
	}
	first := d.workers[0]
	d.initial = make([]*node, len(first.stack))
	for i, n := range first.stack {
		d.initial[i] = &node{w: n.w.Clone(), key: n.key}
	}
	d.sampled = e.x.sampled
	if locks != nil {
		d.locks = locks(LocksFor(workers))
	}
	for i := 1; i < workers; i++ {
		d.workers = append(d.workers, d.newWorker(i))
	}
	d.left = dfsShortQuota * workers
	e.store.shared = true
	e.store.startPhase()
}

// tasks is the number of tasks of a parallel phase: one per worker (0:
// the search runs on one goroutine).
func (d *dfsEngine) tasks() int {
	if !d.parallel() {
		return 0
	}
	return len(d.workers)
}

// workersUsed is the number of goroutines the result was computed on.
func (d *dfsEngine) workersUsed() int { return len(d.workers) }

func (d *dfsEngine) step(budget int) int {
	x := d.g.x
	used := 0
	for used < budget && d.parallel() && !x.prog.Done {
		// The phases' tasks one after the other, on this goroutine.
		for i := range d.workers {
			used += d.runTask(i)
		}
		d.endPhase()
		used++
	}
	if d.parallel() {
		return used
	}
	wk := d.workers[0]
	for used < budget && x.found == nil && x.err == nil {
		if x.ended(len(wk.stack), d.cut) {
			break
		}
		d.started = true
		used++
		ex := wk.ex
		ex.transitions, ex.rebuilds, ex.safe = 0, 0, ex.safe[:0]
		wk.expandNext()
		ex.flush()
		x.prog.States += wk.added
		wk.added = 0
		d.cut = d.cut || ex.cut
		x.prog.Frontier = len(wk.stack)
	}
	return used
}

// runTask runs worker i's part of a phase: states from its stack (taking
// from the others' when it runs dry) while the phase's quota lasts, and
// returns how many it expanded. Workers run concurrently; each touches
// only itself, and under their locks the stacks, the visited set and
// the quota.
func (d *dfsEngine) runTask(i int) int {
	wk := d.workers[i]
	n := 0
	for !wk.stop {
		k := d.claim(dfsClaim)
		if k == 0 {
			break
		}
		for ; k > 0 && !wk.stop; k-- {
			if !wk.expandNext() {
				d.claim(-k) // what it cannot use goes back
				return n
			}
			n++
			wk.stop = wk.ex.stopped() || wk.ex.cut
		}
	}
	return n
}

// claim takes up to k states of the phase's quota (gives back -k if k is
// negative) and returns how many it took.
func (d *dfsEngine) claim(k int) int {
	l := LocksFor(len(d.workers)) - 1
	d.locks.Lock(l)
	defer d.locks.Unlock(l)
	k = min(k, d.left)
	d.left -= k
	return k
}

// expandNext expands the state on top of wk's stack (taking from the
// others' stacks when it is empty), and reports whether there was one.
func (wk *dfsWorker) expandNext() bool {
	n := wk.pop()
	if n == nil && wk.steal() {
		n = wk.pop()
	}
	if n == nil {
		return false
	}
	wk.lend.lendTo(n)
	wk.ex.expand(n)
	if n.pushed { // (an initial state and its world are kept)
		if n.w != nil {
			wk.free = append(wk.free, n.w)
		}
		n.w, n.rebuild = nil, nil
		wk.nodes = append(wk.nodes, n)
	}
	return true
}

// pop takes the state on top of wk's stack (nil if empty).
func (wk *dfsWorker) pop() *node {
	locks := wk.d.locks
	locks.Lock(wk.lock)
	defer locks.Unlock(wk.lock)
	k := len(wk.stack)
	if k == 0 {
		return nil
	}
	n := wk.stack[k-1]
	wk.stack[k-1] = nil
	wk.stack = wk.stack[:k-1]
	return n
}

// size is len(wk.stack), read under its lock.
func (wk *dfsWorker) size() int {
	locks := wk.d.locks
	locks.Lock(wk.lock)
	defer locks.Unlock(wk.lock)
	return len(wk.stack)
}

// steal moves the bottom half of the largest other stack to wk's (empty)
// one, and reports whether it took any.
func (wk *dfsWorker) steal() bool {
	d := wk.d
	var victim *dfsWorker
	most := 1
	for _, o := range d.workers {
		if o == wk {
			continue
		}
		if n := o.size(); n > most {
			victim, most = o, n
		}
	}
	if victim == nil {
		return false
	}
	d.locks.Lock(victim.lock)
	h := len(victim.stack) / 2
	taken := slices.Clone(victim.stack[:h])
	k := copy(victim.stack, victim.stack[h:])
	clear(victim.stack[k:])
	victim.stack = victim.stack[:k]
	d.locks.Unlock(victim.lock)
	if h == 0 {
		return false
	}
	d.locks.Lock(wk.lock)
	wk.stack = append(wk.stack, taken...)
	d.locks.Unlock(wk.lock)
	return true
}

// push queues a successor unless it was expanded before with a sleep set
// no larger than this one. The lookup and the store are one step under
// the lock of the key's group.
func (wk *dfsWorker) push(s succ, sleep []footprint) {
	e := wk.d.g
	st := e.store
	locks := wk.d.locks
	mask := e.canonMask(maskOf(sleep), s.perm)
	keep := ^uint64(0) // the processes of sleep to keep
	var only uint64
	g := s.key.group()
	locks.Lock(g)
	if stored, seen := st.lookup(s.key); seen {
		var again bool
		if mask, only, again = e.again(stored, mask, s.perm); !again {
			locks.Unlock(g)
			return
		}
		keep = e.instanceMask(mask, s.perm)
	}
	if st.put(s.key, mask) {
		wk.added++
	}
	locks.Unlock(g)
	wk.lend.took(s.w)
	var n *node
	if k := len(wk.nodes); k > 0 {
		n, wk.nodes = wk.nodes[k-1], wk.nodes[:k-1]
	} else {
		n = &node{}
	}
	*n = node{w: wk.ex.own(s), key: s.key, sleep: appendMasked(n.sleep[:0], sleep, keep), only: only, pushed: true}
	locks.Lock(wk.lock)
	wk.stack = append(wk.stack, n)
	locks.Unlock(wk.lock)
}

// endPhase ends a parallel phase: it counts what the workers did, starts
// the search over on one goroutine if a worker met a violation, a bound
// or an error, ends it when every stack is empty, and otherwise gives
// each worker with an empty stack the bottom half of the largest one.
func (d *dfsEngine) endPhase() {
	e, x := d.g, d.g.x
	stop := false
	frontier := 0
	for _, wk := range d.workers {
		ex := wk.ex
		x.prog.Transitions += ex.transitions
		x.prog.Depth = max(x.prog.Depth, ex.depth)
		x.sampled = x.sampled || ex.sampled
		x.rebuilds += ex.rebuilds
		ex.transitions, ex.rebuilds, wk.added = 0, 0, 0
		stop = stop || wk.stop
		frontier += len(wk.stack)
	}
	x.prog.States = e.store.Len()
	if stop || x.prog.States >= x.cfg.Budget.States {
		d.restart()
		return
	}
	x.prog.Frontier = frontier
	if frontier == 0 {
		x.prog.Done, x.verified = true, true
		d.initial = nil
		e.store.shared, e.store.phase = false, [storeGroups]*fpData{}
		return
	}
	// A phase stores at most its quota times the states one expansion
	// stores past the bound before the search starts over.
	quota := min(dfsQuota, max(1, (x.cfg.Budget.States-x.prog.States)/len(d.workers)))
	for _, wk := range d.workers {
		if len(wk.stack) == 0 && !wk.steal() {
			quota = min(quota, dfsShortQuota)
		}
	}
	d.left = quota * len(d.workers)
	e.store.startPhase()
}

// restart starts the search over on one goroutine, from copies of the
// initial states, with an empty visited set.
func (d *dfsEngine) restart() {
	e, x := d.g, d.g.x
	d.started, d.cut, d.locks = true, false, noLocks{}
	d.workers = []*dfsWorker{d.newWorker(0)}
	d.workers[0].stack, d.initial = d.initial, nil
	e.store = newStateStore(e.exact, e.store.masks)
	for _, n := range d.workers[0].stack {
		e.store.put(n.key, 0)
	}
	x.sampled = d.sampled
	x.prog.States, x.prog.Frontier, x.prog.Transitions, x.prog.Depth = e.store.Len(), len(d.workers[0].stack), 0, 0
	x.prog.Rerun = true
}
