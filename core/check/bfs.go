package check

import (
	"encoding/binary"

	"github.com/racetrack-sim/racetrack/core/sim"
)

// bfsEngine is level-synchronous breadth-first search that keeps no
// world between levels. A stored state costs its entry in the visited set
// plus, in the level it was found at, its parent's index and the choices
// of the one step from the parent (about 10 bytes): enough to rebuild its
// world by replaying the path from the root, and to write the
// counterexample. The frontier of the level being expanded also keeps
// each state's sleep set.
//
// A level is done in two phases of independent tasks, which a caller may
// run on as many goroutines as it likes (see Explorer.Tasks):
//
//   - expand: each task expands a fixed-size chunk of the level's states
//     (rebuilding their worlds along a cached path) into candidate
//     successors not stored before the level, grouped by the part of the
//     visited set their fingerprint falls in;
//   - merge: each task owns one part of the visited set and stores the
//     candidates that fall in it, visiting the chunks in order.
//
// Then the engine builds the next level from the kept candidates in chunk
// order. Chunks are cut by position, never by worker, and every decision
// is taken in chunk order, so the states, the verdict and the
// counterexample (the first violation in chunk order, a shortest one) are
// the same for any number of workers.
type bfsEngine struct {
	g *graphEngine
	// roots are the initial states: level 0, entry i is roots[i] (its
	// choices are those its Init drew).
	roots []*sim.World
	depth int // depth of the level being expanded
	// levels[d] records the states found at depth d.
	levels []levelLog
	// curSleep is the sleep sets of the level being expanded, by entry;
	// spareSleep holds the memory of the level above it, which the next
	// level's sleep sets reuse.
	curSleep, spareSleep sleepArena
	// A level is expanded and merged a wave of bfsWave states at a time,
	// so that only one wave's candidates are held at once: levelN is the
	// level's size, waveLo its first state not yet in a wave, next and
	// nextSleep the next level as the waves merge it, and levelStates
	// the states stored before the level.
	levelN, waveLo int
	nextLog        levelLog
	nextSleep      sleepArena
	levelStates    int
	phase          int
	// chunks are the current wave's; pool holds chunks of past waves,
	// to reuse their memory.
	chunks  []*chunk
	pool    []*chunk
	next    int // the next task to run in Step
	scratch Scratch
	// sinks keep the values warm read, by group: each merge task
	// writes its own (never used: the reads are the point).
	sinks [storeGroups]uint64
	// scratches are the drivers' goroutines' (Explorer.Scratch).
	scratches []*Scratch
	cut       bool
}

// Phases of a level.
const (
	phaseExpand = iota
	phaseMerge
)

// bfsChunk is the number of states of one expand task, bfsWave of a
// wave (64 tasks).
const (
	bfsChunk = 256
	bfsWave  = 64 * bfsChunk
)

func newBFSEngine(g *graphEngine, roots []*sim.World) *bfsEngine {
	b := &bfsEngine{g: g, roots: roots}
	var l levelLog
	for _, r := range roots {
		l.add(0, r.Schedule())
		b.curSleep.add(nil)
	}
	b.levels = append(b.levels, l)
	b.startLevel()
	return b
}

// startLevel cuts the level being expanded into chunks.
func (b *bfsEngine) startLevel() {
	b.levelN, b.waveLo = b.levels[b.depth].len(), 0
	b.nextLog = levelLog{}
	b.nextSleep = sleepArena{sets: b.spareSleep.sets[:0], off: b.spareSleep.off[:0], only: b.spareSleep.only[:0]}
	b.spareSleep = sleepArena{}
	b.levelStates = b.g.store.Len()
	b.g.x.prog.Frontier = b.levelN
	b.startWave()
}

// startWave cuts the level's next wave into chunks. Waves are cut by
// position, so they are the same for any number of workers; a wave's
// expansions see the states the waves before it stored, which drops
// their successors already stored before they are held, and decides
// nothing differently: the merge would have dropped them in the same
// order.
func (b *bfsEngine) startWave() {
	hi := min(b.levelN, b.waveLo+bfsWave)
	b.chunks = b.chunks[:0]
	for lo := b.waveLo; lo < hi; lo += bfsChunk {
		b.chunks = append(b.chunks, b.newChunk(lo, min(hi, lo+bfsChunk)))
	}
	b.waveLo = hi
	b.phase, b.next = phaseExpand, 0
}

// newChunk is a chunk for states [lo, hi), in the memory of a chunk of
// an earlier wave when there is one (the wave's candidates are built
// into the next level by then).
func (b *bfsEngine) newChunk(lo, hi int) *chunk {
	n := len(b.pool)
	if n == 0 {
		return &chunk{lo: lo, hi: hi}
	}
	c := b.pool[n-1]
	b.pool = b.pool[:n-1]
	byGroup := c.byGroup
	for g := range byGroup {
		byGroup[g] = byGroup[g][:0]
	}
	clear(c.dup)
	clear(c.dupFP)
	clear(c.encs)
	*c = chunk{lo: lo, hi: hi, byGroup: byGroup, dup: c.dup, dupFP: c.dupFP,
		cands: c.cands[:0], encs: c.encs[:0], choices: c.choices[:0], sleeps: c.sleeps[:0]}
	return c
}

// tasks is the number of tasks of the current phase.
func (b *bfsEngine) tasks() int {
	if b.phase == phaseExpand {
		return len(b.chunks)
	}
	return storeGroups
}

// Scratch is the memory one goroutine reuses across the bfs tasks it
// runs (RunTaskWith): the worlds of successors and of the path the last
// state was rebuilt along. A Scratch belongs to one goroutine at a time;
// what it holds never changes a result.
type Scratch struct {
	ex scratch
	rb rebuilder
	// decoded is the world Expander.ExpandWith decoded last.
	decoded *sim.World
	// h hashes the state Expander.ExpandWith is given, to check its key.
	h sim.Hasher
	// out is Split.Expand's batch writers, a partition each (their
	// memory kept from one range to the next).
	out []instanceWriter
}

// runTask runs task i of the current phase with sc (nil: its own).
func (b *bfsEngine) runTask(i int, sc *Scratch) {
	if b.phase == phaseExpand {
		b.expandChunk(b.chunks[i], sc)
		return
	}
	b.mergeGroup(i)
}

// endPhase ends the current phase: after expand, it reports a violation
// or moves to merge; after merge, it builds the next level.
func (b *bfsEngine) endPhase() {
	x := b.g.x
	if b.phase == phaseExpand {
		for _, c := range b.chunks {
			b.cut = b.cut || c.ex.cut
			c.ex.flush()
			if x.found != nil || x.err != nil {
				x.prog.States = b.levelStates
				x.prog.Done = x.prog.Done || x.err != nil
				b.chunks = nil
				return
			}
		}
		b.phase, b.next = phaseMerge, 0
		return
	}
	for _, c := range b.chunks {
		for i := range c.cands {
			cd := &c.cands[i]
			if !cd.keep {
				continue
			}
			b.nextLog.addRaw(cd.parent, c.choices[c.start(uint32(i), choiceEnd):cd.choiceEnd])
			b.nextSleep.addMasked(c.sleeps[c.start(uint32(i), sleepEnd):cd.sleepEnd], b.g.instanceMask(cd.mask, int(cd.perm)))
			if cd.only != 0 {
				b.nextSleep.setOnly(b.nextLog.len()-1, cd.only)
			}
		}
	}
	b.pool = append(b.pool, b.chunks...)
	b.chunks = b.chunks[:0]
	if b.waveLo < b.levelN {
		b.startWave()
		return
	}
	next, sleep := b.nextLog, b.nextSleep
	b.nextLog, b.nextSleep = levelLog{}, sleepArena{}
	x.prog.States = b.g.store.Len()
	if next.len() == 0 {
		x.prog.Done, x.prog.Frontier = true, 0
		x.verified, x.bounded = !b.cut, b.cut
		return
	}
	b.levels = append(b.levels, next)
	b.curSleep, b.spareSleep = sleep, b.curSleep
	b.depth++
	if x.prog.States >= x.cfg.Budget.States {
		x.prog.Done = true
		return
	}
	b.startLevel()
}

// step runs tasks in order on the caller's goroutine, counting the states
// expanded (and one unit per merge) against budget.
func (b *bfsEngine) step(budget int) int {
	x := b.g.x
	used := 0
	for used < budget && !x.prog.Done && x.found == nil && x.err == nil {
		if b.next < b.tasks() {
			if b.phase == phaseExpand {
				c := b.chunks[b.next]
				used += c.hi - c.lo
			} else {
				used++
			}
			b.runTask(b.next, &b.scratch)
			b.next++
			continue
		}
		b.endPhase()
		used++
	}
	return used
}

// expandChunk expands the states of c, rebuilding their worlds.
func (b *bfsEngine) expandChunk(c *chunk, sc *Scratch) {
	if c.ran {
		return
	}
	c.ran = true
	g := b.g
	if sc == nil {
		sc = &Scratch{}
	}
	if sc.rb.b != b {
		sc.rb = rebuilder{b: b}
	}
	rb := &sc.rb
	var parent uint32
	var pathLen int
	c.ex = expansion{e: g, scratch: &sc.ex}
	c.ex.emit = func(s succ, sleep []footprint) {
		mask := g.canonMask(maskOf(sleep), s.perm)
		if stored, seen := g.store.lookup(s.key); seen {
			if _, _, again := g.again(stored, mask, s.perm); !again {
				return
			}
		}
		if j, ok := c.lookupDup(s.key, g.exact); ok {
			// Expanding it once with the smaller sleep set explores what
			// both would have.
			cd := &c.cands[j]
			cd.mask &= mask
			return
		}
		c.putDup(s.key, uint32(len(c.cands)), g.exact)
		for _, v := range s.w.Schedule()[pathLen:] {
			c.choices = binary.AppendUvarint(c.choices, uint64(v))
		}
		c.sleeps = append(c.sleeps, sleep...)
		cd := candidate{fp: s.key.fp, mask: mask, parent: parent, choiceEnd: uint32(len(c.choices)), sleepEnd: uint32(len(c.sleeps)), perm: int32(s.perm)}
		if g.exact {
			c.encs = append(c.encs, s.key.enc)
		}
		grp := s.key.group()
		c.byGroup[grp] = append(c.byGroup[grp], uint32(len(c.cands)))
		c.cands = append(c.cands, cd)
	}
	if err := b.expandStates(&c.ex, rb, c.lo, c.hi, func(i int, w *sim.World) error {
		parent, pathLen = uint32(i), len(w.Schedule())
		return nil
	}); err != nil {
		c.ex.err = err
	}
	c.ex.scratch = nil
}

// expandStates expands states [lo, hi) of the level being expanded with
// ex, in order, rebuilding their worlds with rb, until ex stops; before
// each expansion it hands at the state's index and world (an error from
// at, or from a rebuild, stops it).
func (b *bfsEngine) expandStates(ex *expansion, rb *rebuilder, lo, hi int, at func(i int, w *sim.World) error) error {
	cur := uint32(lo)
	// The world rb returns is the expansion's to use up: should it step
	// it into a successor and still need the state, rb rebuilds it into
	// fresh memory (the old one is the successor's now).
	rebuild := func() (*sim.World, error) {
		rb.last = nil
		return rb.world(b.depth, cur, -1)
	}
	for i := lo; i < hi && !ex.stopped(); i++ {
		next := int64(i + 1)
		if i+1 == hi {
			next = -1
		}
		w, err := rb.world(b.depth, uint32(i), next)
		if err != nil {
			return err
		}
		if err := at(i, w); err != nil {
			return err
		}
		cur = uint32(i)
		n := &node{w: w, sleep: b.curSleep.get(i), only: b.curSleep.onlyOf(i)}
		if inPlaceSteps {
			n.rebuild = rebuild
		}
		ex.expand(n)
	}
	return nil
}

// inPlaceSteps is off only in tests that compare bfs with and without
// stepping an expanded state's world into its last successor.
var inPlaceSteps = true

// mergeGroup stores the candidates of part g of the visited set, in
// chunk order, and marks those to expand at the next level.
func (b *bfsEngine) mergeGroup(g int) {
	e := b.g
	var fps [8]uint64
	for _, c := range b.chunks {
		for at, j := range c.byGroup[g] {
			if at%len(fps) == 0 {
				// Warm the next few candidates' slots at once.
				batch := c.byGroup[g][at:min(len(c.byGroup[g]), at+len(fps))]
				for i, k := range batch {
					fps[i] = c.cands[k].fp
				}
				b.sinks[g] += e.store.warm(fps[:len(batch)])
			}
			cd := &c.cands[j]
			mask := cd.mask
			key := c.key(j)
			if stored, seen := e.store.lookup(key); seen {
				var again bool
				if mask, cd.only, again = e.again(stored, mask, int(cd.perm)); !again {
					continue
				}
			}
			e.store.put(key, mask)
			cd.mask, cd.keep = mask, true
		}
	}
}
