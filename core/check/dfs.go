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
// search runs in phases: each worker expands up to a quota of states
// from the top of its own stack, storing their successors in the shared
// visited set (each of its groups behind a lock); a worker whose stack
// runs dry takes the bottom half of the largest one (the states nearest
// the root, which have the most left below them). The core starts no
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
	g        *graphEngine
	frontier []*node
	cut      bool // a state was left unexpanded at the depth bound
	// ex expands every state; the worlds of expanded states go to free,
	// where ex takes the worlds of new successors from.
	ex   *expansion
	free []*sim.World
	lend lender

	// started: a state was expanded on one goroutine (or the parallel
	// search gave up): the search stays there.
	started bool
	par     *dfsPar
	// workers is the number of goroutines the result was computed on.
	workers int
	// initial are copies of the initial states, and sampled what
	// x.sampled was, while a parallel search may still start over.
	initial []*node
	sampled bool
}

// dfsPar is the state of a dfs on several workers.
type dfsPar struct {
	workers []*dfsWorker
	// locks: one per group of the visited set, then one per worker's
	// stack (see LocksFor).
	locks Locks
	quota int // states each worker expands in this phase
}

// dfsWorker is one worker of a parallel dfs: its stack (behind its lock,
// as other workers may take from it), and the expansion (and memory) it
// expands states with.
type dfsWorker struct {
	d     *dfsEngine
	lock  int
	stack []*node
	free  []*sim.World
	ex    *expansion
	lend  lender
	// stop: the worker met a violation, a bound or an error; the
	// search starts over on one goroutine at the end of the phase.
	stop bool
}

// Locks are mutual-exclusion locks numbered from 0, which a driver that
// runs the tasks of a parallel dfs concurrently gives it (PlanWorkers).
type Locks interface {
	Lock(i int)
	Unlock(i int)
}

// LocksFor is the number of locks a dfs on workers needs.
func LocksFor(workers int) int { return storeGroups + workers }

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
)

func newDFSEngine(e *graphEngine, nodes []*node) *dfsEngine {
	slices.Reverse(nodes) // the first initial state is expanded first
	return &dfsEngine{g: e, frontier: nodes, workers: 1, lend: lender{x: e.x}}
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
	if workers < 2 || d.started || d.par != nil || e.por || e.x.prog.Done {
		return
	}
	d.initial = make([]*node, len(d.frontier))
	for i, n := range d.frontier {
		d.initial[i] = &node{w: n.w.Clone(), key: n.key}
	}
	d.sampled = e.x.sampled
	p := &dfsPar{quota: dfsShortQuota, locks: noLocks{}}
	if locks != nil {
		p.locks = locks(LocksFor(workers))
	}
	for i := range workers {
		wk := &dfsWorker{d: d, lock: storeGroups + i, lend: lender{x: e.x}}
		wk.ex = &expansion{e: e, emit: wk.push, scratch: &scratch{free: &wk.free}}
		p.workers = append(p.workers, wk)
	}
	p.workers[0].stack, d.frontier = d.frontier, nil
	e.store.shared = true
	d.par, d.workers = p, workers
}

// tasks is the number of tasks of a parallel phase: one per worker (0:
// the search runs on one goroutine).
func (d *dfsEngine) tasks() int {
	if d.par == nil {
		return 0
	}
	return len(d.par.workers)
}

func (d *dfsEngine) step(budget int) int {
	if d.par != nil {
		// The phases' tasks one after the other, on this goroutine.
		used := 0
		for used < budget && d.par != nil && !d.g.x.prog.Done {
			for i := range d.par.workers {
				used += d.runTask(i)
			}
			d.endPhase()
			used++
		}
		return used
	}
	e, x := d.g, d.g.x
	used := 0
	for used < budget && x.found == nil && x.err == nil {
		if len(d.frontier) == 0 {
			x.prog.Done = true
			x.verified, x.bounded = !d.cut, d.cut
			break
		}
		if x.prog.States >= x.cfg.Budget.States {
			x.prog.Done = true
			break
		}
		d.started = true
		n := d.frontier[len(d.frontier)-1]
		d.frontier[len(d.frontier)-1] = nil
		d.frontier = d.frontier[:len(d.frontier)-1]
		used++
		if d.ex == nil {
			d.ex = &expansion{e: e, emit: d.push, scratch: &scratch{free: &d.free}}
		}
		ex := d.ex
		ex.transitions, ex.rebuilds, ex.safe = 0, 0, ex.safe[:0]
		d.lend.lendTo(n)
		ex.expand(n)
		ex.flush()
		if n.pushed && n.w != nil {
			d.free = append(d.free, n.w)
		}
		d.cut = d.cut || ex.cut
		x.prog.Frontier = len(d.frontier)
	}
	return used
}

// push queues a successor unless it was expanded before with a sleep set
// no larger than this one.
func (d *dfsEngine) push(s succ, sleep []footprint) {
	e := d.g
	mask := maskOf(sleep)
	if stored, seen := e.store.lookup(s.key); seen {
		var again bool
		if mask, again = e.againWith(stored, mask); !again {
			return
		}
		sleep = keepMask(sleep, mask)
	}
	if e.store.put(s.key, mask) {
		e.x.prog.States++ // what the store counts (Len sums its groups)
	}
	d.lend.took(s.w)
	d.frontier = append(d.frontier, &node{w: d.ex.own(s), key: s.key, sleep: slices.Clone(sleep), pushed: true})
}

// runTask runs worker i's part of a phase: up to the quota of states
// from its stack (taking from the others' when it runs dry), and returns
// how many it expanded. Workers run concurrently; each touches only
// itself, and under their locks the stacks and the visited set.
func (d *dfsEngine) runTask(i int) int {
	p := d.par
	wk := p.workers[i]
	n := 0
	for ; n < p.quota && !wk.stop; n++ {
		nd := wk.pop()
		if nd == nil && wk.steal() {
			nd = wk.pop()
		}
		if nd == nil {
			break
		}
		wk.lend.lendTo(nd)
		wk.ex.expand(nd)
		wk.stop = wk.ex.stopped() || wk.ex.cut
		if nd.pushed && nd.w != nil {
			wk.free = append(wk.free, nd.w)
		}
	}
	return n
}

// pop takes the state on top of wk's stack (nil if empty).
func (wk *dfsWorker) pop() *node {
	locks := wk.d.par.locks
	locks.Lock(wk.lock)
	defer locks.Unlock(wk.lock)
	k := len(wk.stack)
	if k == 0 {
		return nil
	}
	nd := wk.stack[k-1]
	wk.stack[k-1] = nil
	wk.stack = wk.stack[:k-1]
	return nd
}

// size is len(wk.stack), read under its lock.
func (wk *dfsWorker) size() int {
	locks := wk.d.par.locks
	locks.Lock(wk.lock)
	defer locks.Unlock(wk.lock)
	return len(wk.stack)
}

// steal moves the bottom half of the largest other stack to wk's (empty)
// one, and reports whether it took any.
func (wk *dfsWorker) steal() bool {
	p := wk.d.par
	var victim *dfsWorker
	most := 1
	for _, o := range p.workers {
		if n := o.size(); o != wk && n > most {
			victim, most = o, n
		}
	}
	if victim == nil {
		return false
	}
	p.locks.Lock(victim.lock)
	h := len(victim.stack) / 2
	taken := slices.Clone(victim.stack[:h])
	k := copy(victim.stack, victim.stack[h:])
	clear(victim.stack[k:])
	victim.stack = victim.stack[:k]
	p.locks.Unlock(victim.lock)
	if h == 0 {
		return false
	}
	p.locks.Lock(wk.lock)
	wk.stack = append(wk.stack, taken...)
	p.locks.Unlock(wk.lock)
	return true
}

// push is dfsEngine.push for a worker: the lookup and the store are one
// step under the lock of the key's group.
func (wk *dfsWorker) push(s succ, sleep []footprint) {
	e := wk.d.g
	st := e.store
	locks := wk.d.par.locks
	mask := maskOf(sleep)
	g := s.key.group()
	locks.Lock(g)
	if stored, seen := st.lookup(s.key); seen {
		var again bool
		if mask, again = e.againWith(stored, mask); !again {
			locks.Unlock(g)
			return
		}
		sleep = keepMask(sleep, mask)
	}
	st.put(s.key, mask)
	locks.Unlock(g)
	wk.lend.took(s.w)
	nd := &node{w: wk.ex.own(s), key: s.key, sleep: slices.Clone(sleep), pushed: true}
	locks.Lock(wk.lock)
	wk.stack = append(wk.stack, nd)
	locks.Unlock(wk.lock)
}

// endPhase ends a parallel phase: it counts what the workers did, starts
// the search over on one goroutine if a worker met a violation, a bound
// or an error, ends it when every stack is empty, and otherwise gives
// each worker with an empty stack the bottom half of the largest one.
func (d *dfsEngine) endPhase() {
	p := d.par
	e, x := d.g, d.g.x
	for _, wk := range p.workers {
		ex := wk.ex
		x.prog.Transitions += ex.transitions
		x.prog.Depth = max(x.prog.Depth, ex.depth)
		x.sampled = x.sampled || ex.sampled
		x.rebuilds += ex.rebuilds
		ex.transitions, ex.rebuilds = 0, 0
	}
	x.prog.States = e.store.Len()
	stop := x.prog.States >= x.cfg.Budget.States
	for _, wk := range p.workers {
		stop = stop || wk.stop
	}
	if stop {
		d.restart()
		return
	}
	frontier := 0
	for _, wk := range p.workers {
		frontier += len(wk.stack)
	}
	x.prog.Frontier = frontier
	if frontier == 0 {
		x.prog.Done, x.verified = true, true
		d.par, d.initial = nil, nil
		e.store.shared = false
		return
	}
	// A phase stores at most quota states a worker times the states one
	// expansion stores past the bound before the search starts over.
	p.quota = min(dfsQuota, max(1, (x.cfg.Budget.States-x.prog.States)/len(p.workers)))
	for _, wk := range p.workers {
		if len(wk.stack) == 0 && !wk.steal() {
			p.quota = min(p.quota, dfsShortQuota)
		}
	}
}

// restart starts the search over on one goroutine, from copies of the
// initial states, with an empty visited set.
func (d *dfsEngine) restart() {
	e, x := d.g, d.g.x
	d.par, d.started, d.workers, d.cut = nil, true, 1, false
	e.store = newStateStore(e.exact, e.store.masks)
	for _, n := range d.initial {
		e.store.put(n.key, 0)
	}
	d.frontier, d.initial = d.initial, nil
	x.sampled = d.sampled
	x.prog.States, x.prog.Frontier, x.prog.Transitions, x.prog.Depth = e.store.Len(), len(d.frontier), 0, 0
}
