package check

import (
	"encoding/binary"
	"fmt"

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

// levelLog is the states found at one depth: entry i was reached from
// entry parent[i] of the level above by the step whose choices are
// choices[off[i]:off[i+1]] (uvarints).
type levelLog struct {
	parent  []uint32
	off     []uint32
	choices []byte
}

func (l *levelLog) len() int { return len(l.parent) }

func (l *levelLog) add(parent uint32, choices []int) {
	if len(l.off) == 0 {
		l.off = append(l.off, 0)
	}
	l.parent = append(l.parent, parent)
	for _, c := range choices {
		l.choices = binary.AppendUvarint(l.choices, uint64(c))
	}
	l.off = append(l.off, uint32(len(l.choices)))
}

// addRaw records an entry whose choices are already encoded.
func (l *levelLog) addRaw(parent uint32, choices []byte) {
	if len(l.off) == 0 {
		l.off = append(l.off, 0)
	}
	l.parent = append(l.parent, parent)
	l.choices = append(l.choices, choices...)
	l.off = append(l.off, uint32(len(l.choices)))
}

func (l *levelLog) stepChoices(i uint32, out []int) []int {
	b := l.choices[l.off[i]:l.off[i+1]]
	for len(b) > 0 {
		v, n := binary.Uvarint(b)
		out = append(out, int(v))
		b = b[n:]
	}
	return out
}

// sleepArena holds a sleep set per entry, and which entries are states
// expanded again for some processes only (node.only).
type sleepArena struct {
	off  []uint32
	sets []footprint
	only []uint64 // by entry, up to the last one set
}

func (a *sleepArena) add(sleep []footprint) {
	if len(a.off) == 0 {
		a.off = append(a.off, 0)
	}
	a.sets = append(a.sets, sleep...)
	a.off = append(a.off, uint32(len(a.sets)))
}

// addMasked adds sleep restricted to the processes in mask.
func (a *sleepArena) addMasked(sleep []footprint, mask uint64) {
	if len(a.off) == 0 {
		a.off = append(a.off, 0)
	}
	a.sets = appendMasked(a.sets, sleep, mask)
	a.off = append(a.off, uint32(len(a.sets)))
}

// setOnly says entry i (the last added) is expanded for the processes
// in only (not 0).
func (a *sleepArena) setOnly(i int, only uint64) {
	for len(a.only) <= i {
		a.only = append(a.only, 0)
	}
	a.only[i] = only
}

// onlyOf is entry i's node.only.
func (a *sleepArena) onlyOf(i int) uint64 {
	if i < len(a.only) {
		return a.only[i]
	}
	return 0
}

func (a *sleepArena) get(i int) []footprint {
	if len(a.off) == 0 {
		return nil
	}
	return a.sets[a.off[i]:a.off[i+1]:a.off[i+1]]
}

// candidate is a successor found by an expand task: its fingerprint
// (with exact storage its encoding is in chunk.encs), the entry it was
// reached from, and the ends of its step's choices and its sleep set in
// the chunk's arenas (each starts where the previous candidate's ends).
type candidate struct {
	fp uint64
	// mask is its sleep mask in the names of the state fp stands for
	// (graphEngine.canonMask), and perm the renaming into that state;
	// only, if not 0, the processes it is expanded again for (node.only).
	mask      uint64
	only      uint64
	parent    uint32
	choiceEnd uint32
	sleepEnd  uint32
	perm      int32
	keep      bool // store it and expand it at the next level
}

// chunk is one expand task's input range and output.
type chunk struct {
	lo, hi  int
	ex      expansion
	cands   []candidate
	encs    []string // exact storage: the encoding of each candidate
	choices []byte   // uvarints
	sleeps  []footprint
	byGroup [storeGroups][]uint32
	// dup maps a key to its candidate (dupFP with fingerprint storage,
	// by the fingerprint alone): a state reached twice from the
	// chunk is kept once, with the sleep sets' intersection.
	dup   map[stateKey]uint32
	dupFP map[uint64]uint32
	ran   bool
}

func (c *chunk) key(i uint32) stateKey {
	k := stateKey{fp: c.cands[i].fp}
	if c.encs != nil {
		k.enc = c.encs[i]
	}
	return k
}

// lookupDup returns the candidate of key k, if the chunk has one (exact:
// the search stores encodings).
func (c *chunk) lookupDup(k stateKey, exact bool) (uint32, bool) {
	if !exact {
		j, ok := c.dupFP[k.fp]
		return j, ok
	}
	j, ok := c.dup[k]
	return j, ok
}

// putDup records candidate j as key k's.
func (c *chunk) putDup(k stateKey, j uint32, exact bool) {
	if !exact {
		if c.dupFP == nil {
			c.dupFP = map[uint64]uint32{}
		}
		c.dupFP[k.fp] = j
		return
	}
	if c.dup == nil {
		c.dup = map[stateKey]uint32{}
	}
	c.dup[k] = j
}

// span returns the start of candidate i's part of an arena.
func (c *chunk) start(i uint32, end func(*candidate) uint32) uint32 {
	if i == 0 {
		return 0
	}
	return end(&c.cands[i-1])
}

func choiceEnd(cd *candidate) uint32 { return cd.choiceEnd }
func sleepEnd(cd *candidate) uint32  { return cd.sleepEnd }

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

// appendMasked appends to dst the footprints of sleep whose processes
// are in mask.
func appendMasked(dst, sleep []footprint, mask uint64) []footprint {
	for _, z := range sleep {
		if mask&(1<<uint(z.proc)) != 0 {
			dst = append(dst, z)
		}
	}
	return dst
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
	// The world rb returns is the expansion's to use up: should it step
	// it into a successor and still need the state, rb rebuilds it into
	// fresh memory (the old one is the successor's now).
	rebuild := func() (*sim.World, error) {
		rb.last = nil
		return rb.world(b.depth, parent, -1)
	}
	for i := c.lo; i < c.hi && !c.ex.stopped(); i++ {
		next := int64(i + 1)
		if i+1 == c.hi {
			next = -1
		}
		w, err := rb.world(b.depth, uint32(i), next)
		if err != nil {
			c.ex.err = err
			return
		}
		parent, pathLen = uint32(i), len(w.Schedule())
		n := &node{w: w, sleep: b.curSleep.get(i), only: b.curSleep.onlyOf(i)}
		if inPlaceSteps {
			n.rebuild = rebuild
		}
		c.ex.expand(n)
	}
	c.ex.scratch = nil
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

// rebuilder rebuilds the worlds of one level's states by replaying their
// paths from the root, keeping the worlds along the last path so that
// neighbours (which share most of their path) replay only where they
// differ. Told which state it will be asked for next, it steps the
// worlds of the path that state does not share in place instead of
// copying them first.
type rebuilder struct {
	b      *bfsEngine
	ids    []uint32     // entry at each depth of the cached path
	worlds []*sim.World // its world
	anc    []uint32
	buf    []int
	// free holds worlds dropped from the cached path, to recycle; last
	// is the world world returned last, recycled by the next call.
	free    []*sim.World
	last    *sim.World
	chooser sim.ScriptChooser
}

// world returns a world of entry i at depth d, valid until the next call.
// next is the entry the next call will ask for at depth d, or -1 if
// unknown.
func (r *rebuilder) world(d int, i uint32, next int64) (*sim.World, error) {
	if d == 0 {
		r.last = r.b.roots[i].SnapshotInto(r.last)
		return r.last, nil
	}
	if cap(r.anc) < d+1 {
		r.anc = make([]uint32, d+1)
	}
	anc := r.anc[:d+1]
	anc[d] = i
	// Walk up to the deepest cached world on the path to i: the cached
	// path is a path, so where it meets i's ancestors it holds all the
	// ones above too.
	j := d
	for j > 0 && !(j < len(r.worlds) && r.ids[j] == anc[j]) {
		anc[j-1] = r.b.levels[j].parent[anc[j]]
		j--
	}
	if j == 0 && (len(r.worlds) == 0 || r.ids[0] != anc[0]) {
		// A path from another initial state: drop the cached one.
		if len(r.worlds) > 0 {
			r.free = append(r.free, r.worlds[1:]...)
		}
		r.ids, r.worlds = append(r.ids[:0], anc[0]), append(r.worlds[:0], r.b.roots[anc[0]])
	}
	r.free = append(r.free, r.worlds[j+1:]...) // never an initial state: j >= 0
	r.ids, r.worlds = r.ids[:j+1], r.worlds[:j+1]
	// The worlds of i's path at depths v and below are not on next's
	// path: each is stepped in place into the next one (an initial
	// state never is).
	v := r.divergence(d, i, next)
	w := r.worlds[j]
	for k := j + 1; k <= d; k++ {
		inPlace := k-1 >= v && k-1 > 0
		var into *sim.World
		switch {
		case inPlace:
			r.ids, r.worlds = r.ids[:min(len(r.ids), k-1)], r.worlds[:min(len(r.worlds), k-1)]
		case k == d:
			into = r.last
		default:
			if n := len(r.free); n > 0 {
				into, r.free = r.free[n-1], r.free[:n-1]
			}
		}
		c, err := r.replay(w, k, anc[k], into, inPlace)
		if err != nil {
			return nil, err
		}
		if k == d {
			if inPlace && r.last != nil {
				r.free = append(r.free, r.last)
			}
			r.last = c
			return c, nil
		}
		if !inPlace {
			r.ids, r.worlds = append(r.ids, anc[k]), append(r.worlds, c)
		}
		w = c
	}
	return nil, fmt.Errorf("%w: bfs lost the path to a state", ErrReplay)
}

// divergence is the least depth from which the paths to entries i and
// next of depth d differ: both share their ancestors above it. It is
// d+1 when next is unknown (-1), 0 when their initial states differ.
func (r *rebuilder) divergence(d int, i uint32, next int64) int {
	if next < 0 {
		return d + 1
	}
	a, b := i, uint32(next)
	for k := d; k > 0; k-- {
		pa, pb := r.b.levels[k].parent[a], r.b.levels[k].parent[b]
		if pa == pb {
			return k
		}
		a, b = pa, pb
	}
	return 0
}

// replay steps w (at depth k-1) by entry e of depth k: a copy of w made
// in into's memory, or w itself when inPlace.
func (r *rebuilder) replay(w *sim.World, k int, e uint32, into *sim.World, inPlace bool) (*sim.World, error) {
	r.buf = r.b.levels[k].stepChoices(e, r.buf[:0])
	steps := w.Steps()
	c := w
	if !inPlace {
		c = w.SnapshotInto(into)
	}
	ch := &r.chooser
	*ch = sim.ScriptChooser{Schedule: r.buf}
	c.SetChooser(ch)
	if !c.Step() || ch.Pos != len(r.buf) {
		return nil, fmt.Errorf("%w: bfs replay of a stored state failed at step %d: %v", ErrReplay, steps, c.Err())
	}
	return c, nil
}
