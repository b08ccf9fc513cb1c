package check

import (
	"fmt"
	"slices"

	"github.com/racetrack-sim/racetrack/core/scenario"
	"github.com/racetrack-sim/racetrack/core/sim"
)

// Split is the local breadth-first search (bfsEngine) cut where its two
// phases meet, so that separate processes can run one level's expansions
// and merges and still reach the local search's answer exactly: the same
// states, transitions, verdict and counterexample.
//
// Every party holds a replica: the level logs (each state's parent and
// step, as the local search keeps them, so any state's world is rebuilt
// by replaying its path with the local search's cached-path rebuilder)
// and the visited set. A level goes:
//
//   - Expand: any party expands a range of the level's chunks (the local
//     search's fixed-size cuts) and writes each successor as an instance
//     to the batch of the partition that owns its key (Part). It drops
//     only what the local search's expansion would drop: successors its
//     visited set (the levels before) holds with a sleep set no larger.
//   - Merge: the owner of a partition reads the instances sent to it,
//     ranges in order, and decides them as the local search does: wave
//     by wave, first what the local expansion drops (stored by an
//     earlier wave, a duplicate within a chunk), then the merge proper.
//     It writes its decisions: which instances are kept (the
//     partition's part of the next level), with the masks the visited
//     set stores.
//   - Advance: every party reads every partition's instances and
//     decisions and adds the kept instances, in the order of the level,
//     to its visited set and its level log.
//
// A party's decisions depend only on its replica and the bytes it reads,
// so a repeated task writes the same bytes. Instances and decisions are
// outside input: their decoders check every field (ErrSplitData), and a
// rebuilt world is checked against the key its instance came with
// (ErrStateKey, see SetKeyChecks).
type Split struct {
	x        *Explorer
	b        *bfsEngine
	g        *graphEngine
	parts    int
	maskBits uint // the processes a sleep mask may name
	// keys are the current level's states' keys (the levels' before
	// are dropped), as the visited set stores them (encs with exact
	// storage only): an expansion checks the world it rebuilds against
	// them.
	fps  [][]uint64
	encs [][]string
	// spareFps is the memory of a level's keys no longer needed;
	// spareMasks Advance's own.
	spareFps, spareMasks []uint64
	// checkEvery and checkSeed choose the states whose keys Expand
	// checks (see SetKeyChecks).
	checkEvery, checkSeed uint64
}

// NewSplit validates cfg (a bfs without persistent sets, which consult
// the whole visited set while expanding) and returns a replica at the
// first level, whose keys fall into parts partitions.
func NewSplit(reg *scenario.Registry, cfg Config, parts int) (*Split, error) {
	if parts < 1 || parts > MaxSplitParts {
		return nil, fieldErr("parts", "%d partitions; a split bfs has 1 to %d", parts, MaxSplitParts)
	}
	x, b, err := newDistributedBFS(reg, cfg)
	if err != nil {
		return nil, err
	}
	sp := &Split{x: x, b: b, g: b.g, parts: parts, maskBits: 64, checkEvery: 1}
	var fps []uint64
	var encs []string
	for _, r := range b.roots {
		k := b.g.keyOf(r)
		fps = append(fps, k.fp)
		if b.g.exact {
			encs = append(encs, k.enc)
		}
	}
	sp.fps, sp.encs = [][]uint64{fps}, [][]string{encs}
	if len(b.g.perms) > 0 {
		sp.maskBits = uint(len(b.roots[0].Procs())) // renamings index masks by process
	}
	return sp, nil
}

// SetKeyChecks has Expand check the key of about one state in every
// (1, the default: all of them), chosen with seed: the rebuilt world
// must hash to the key the state's expander sent. A forged key would
// have the visited set hold a world under another state's key and drop
// that state as seen; checking costs a hash a state (a quarter of an
// expansion for Vitess), so a party that trusts no expander but wants
// speed checks a secret sample: a forger cannot tell which of its states
// are checked.
func (s *Split) SetKeyChecks(every int, seed uint64) {
	s.checkEvery, s.checkSeed = uint64(max(every, 1)), seed
}

// checks reports whether an expansion checking one state in every
// checks state i of the current level.
func (s *Split) checks(i int, every uint64) bool {
	if every == 1 {
		return true
	}
	x := (uint64(i)<<20 ^ uint64(s.b.depth)) * 0x9e3779b97f4a7c15
	x ^= s.checkSeed
	x ^= x >> 29
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 32
	return x%every == 0
}

// maskOK reports whether a sleep mask from the wire names only processes
// the model has (a renaming would index past its table otherwise).
func (s *Split) maskOK(m uint64) bool { return m>>s.maskBits == 0 }

// MaxSplitParts bounds the partitions of a split bfs.
const MaxSplitParts = 1024

// SplitChunk is the number of states of a chunk, the unit of Expand.
const SplitChunk = bfsChunk

// Config is the normalised configuration.
func (s *Split) Config() Config { return s.x.cfg }

// Depth is the level the replica is at: the one Expand and Merge work on.
func (s *Split) Depth() int { return s.b.depth }

// Len is the number of states of the current level.
func (s *Split) Len() int { return s.b.levels[s.b.depth].len() }

// Chunks is the number of chunks of the current level.
func (s *Split) Chunks() int { return (s.Len() + bfsChunk - 1) / bfsChunk }

// States is the number of states in the replica's visited set: the
// states stored through the current level.
func (s *Split) States() int { return s.g.store.Len() }

// Exact reports whether states are stored by their encodings.
func (s *Split) Exact() bool { return s.g.exact }

// Parts is the number of partitions the current level's successors fall
// into.
func (s *Split) Parts() int { return s.parts }

// SetParts sets the number of partitions the current level's successors
// fall into (NewSplit's until set; Advance keeps it for the next level).
// The visited set is not partitioned, only a level's instances are: a
// level may have more partitions than the one before when more parties
// share its merges. Every party must use the same number for a level,
// and set it before the level's first Expand, Merge, Advance or
// CheckChunk; like Advance, it must run alone.
func (s *Split) SetParts(parts int) error {
	if parts < 1 || parts > MaxSplitParts {
		return fieldErr("parts", "%d partitions; a split bfs has 1 to %d", parts, MaxSplitParts)
	}
	s.parts = parts
	return nil
}

// Part is the partition a fingerprint falls in: parts equal ranges of
// its top bits.
func (s *Split) Part(fp uint64) int { return partOf(fp, s.parts) }

func partOf(fp uint64, parts int) int { return int((fp >> 32) * uint64(parts) >> 32) }

// SplitExpansion is what expanding a range of chunks found.
type SplitExpansion struct {
	// Transitions is the steps executed in the range's chunks through
	// the one with the first violation, if any (the local search counts
	// no further).
	Transitions int `json:"transitions"`
	// Depth is the largest step count of a state expanded.
	Depth    int  `json:"depth"`
	Cut      bool `json:"cut,omitempty"`
	Sampled  bool `json:"sampled,omitempty"`
	Rebuilds int  `json:"rebuilds,omitempty"`
	// FoundChunk is the first chunk with a violation, -1 for none.
	FoundChunk int `json:"foundChunk"`
	// Found is that violation (it is not sent: whoever trusts no
	// expander expands FoundChunk again).
	Found *Finding `json:"-"`
}

// Expand expands chunks [lo, hi) of the current level, as the local
// search does, and hands each partition's instances to flush in batches
// of about limit bytes (each batch is decoded on its own; a partition's
// batches come in order; a batch's memory is reused once flush returns:
// flush copies what it keeps). It stops at the first chunk with a
// violation.
func (s *Split) Expand(sc *Scratch, lo, hi, limit int, flush func(part int, batch []byte) error) (SplitExpansion, error) {
	return s.expand(sc, lo, hi, limit, s.checkEvery, flush)
}

func (s *Split) expand(sc *Scratch, lo, hi, limit int, every uint64, flush func(part int, batch []byte) error) (SplitExpansion, error) {
	if lo < 0 || hi > s.Chunks() || lo >= hi {
		return SplitExpansion{}, fmt.Errorf("check: chunks [%d, %d) of a level of %d", lo, hi, s.Chunks())
	}
	if sc == nil {
		sc = &Scratch{}
	}
	b, g := s.b, s.g
	if sc.rb.b != b {
		sc.rb = rebuilder{b: b}
	}
	rb := &sc.rb
	if len(sc.out) != s.parts || sc.out[0].exact != g.exact {
		sc.out = make([]instanceWriter, s.parts)
		for p := range sc.out {
			sc.out[p] = newInstanceWriter(g.exact)
		}
	}
	out := sc.out
	for p := range out {
		out[p].reset()
	}
	var flushErr error
	send := func(p int) {
		if flushErr == nil && len(out[p].b) > 0 {
			flushErr = flush(p, out[p].b)
		}
		out[p].reset()
	}
	var parent uint32
	var pathLen, eidx int
	sent := map[stateKey]uint64{} // the chunk's keys sent, with their first mask
	res := SplitExpansion{FoundChunk: -1}
	ex := expansion{e: g, scratch: &sc.ex}
	ex.emit = func(su succ, sleep []footprint) {
		eidx++
		mask := g.canonMask(maskOf(sleep), su.perm)
		if stored, seen := g.store.lookup(su.key); seen {
			if _, _, again := g.again(stored, mask, su.perm); !again {
				return // the local expansion drops it too
			}
		}
		// A later successor of the chunk with the same key and a sleep
		// set no smaller changes nothing the merge decides: it is
		// dropped with the first one, or joins it and keeps the first
		// one's set. (Across chunks it would be dropped too, but a chunk
		// expanded alone, as the coordinator's audit does, must send
		// what it sends within its range.)
		if first, ok := sent[su.key]; ok && mask&first == first {
			return
		} else if !ok {
			sent[su.key] = mask
		}
		p := s.Part(su.key.fp)
		out[p].add(instance{parent: parent, eidx: uint32(eidx), key: su.key, mask: mask, perm: int32(su.perm)}, su.w.Schedule()[pathLen:], sleep)
		if len(out[p].b) >= limit {
			send(p)
		}
	}
	n := s.Len()
	for c := lo; c < hi && flushErr == nil; c++ {
		before := ex.transitions
		clear(sent)
		err := b.expandStates(&ex, rb, c*bfsChunk, min(n, (c+1)*bfsChunk), func(i int, w *sim.World) error {
			// The key is the word of whoever expanded the parent: a
			// forged one would have the visited set hold this world
			// under another state's key, and drop that state as seen.
			if s.checks(i, every) {
				if k := g.keyOfWith(w, &sc.h); k.fp != s.fps[b.depth][i] || g.exact && k.enc != s.encs[b.depth][i] {
					return fmt.Errorf("%w: state %d of level %d (its path %v) hashes to %016x, not to the fingerprint %016x it was sent with", ErrStateKey, i, b.depth, w.Schedule(), k.fp, s.fps[b.depth][i])
				}
			}
			parent, pathLen, eidx = uint32(i), len(w.Schedule()), 0
			return nil
		})
		if err != nil {
			return res, err
		}
		res.Transitions += ex.transitions - before
		if ex.err != nil {
			return res, ex.err
		}
		if ex.found != nil {
			res.FoundChunk = c
			res.Found = &Finding{Counterexample: ex.found.spec, Violation: ex.found.violation}
			break
		}
	}
	res.Depth, res.Cut, res.Sampled, res.Rebuilds = ex.depth, ex.cut, ex.sampled, ex.rebuilds
	ex.scratch = nil
	for p := range out {
		send(p)
	}
	return res, flushErr
}

// SplitMerge is what merging a partition's instances decided.
type SplitMerge struct {
	// Kept is the instances kept (to expand at the next level); New the
	// ones of them not stored before.
	Kept, New int
}

// Merge decides the instances sent to one partition for the current
// level (batches: every range's, ranges in order) and hands its
// decisions (which instances are kept, with which sleep mask) to flush
// in batches of about limit bytes (reused once flush returns, as
// Expand's). It does not change the replica:
// Advance does, with every partition's instances and decisions.
func (s *Split) Merge(part int, batches [][]byte, limit int, flush func(batch []byte) error) (SplitMerge, error) {
	if part < 0 || part >= s.parts {
		return SplitMerge{}, fmt.Errorf("check: partition %d of %d", part, s.parts)
	}
	size := 0
	for _, b := range batches {
		size += len(b)
	}
	insts := make([]mergeInstance, 0, size/12) // an instance is 12 bytes or more
	var arena []footprint
	cur := instanceCursor{s: s, part: part, batches: batches, arena: &arena}
	for {
		in, ok, err := cur.next()
		if err != nil {
			return SplitMerge{}, err
		}
		if !ok {
			break
		}
		insts = append(insts, mergeInstance{parent: in.parent, perm: in.perm, mask: in.mask, key: in.key})
	}
	// The replica's visited set does not change during a merge: it is
	// read first, in a loop of its own that keeps many cache misses in
	// flight, and the waves read what it held.
	base := make([]baseEntry, len(insts))
	for i := range insts {
		base[i].mask, base[i].seen = s.g.store.lookup(insts[i].key)
	}
	m := mergeOverlay{over: newStateStore(s.g.exact, s.g.store.masks)}
	var res SplitMerge
	out := decisionWriter{}
	var flushErr error
	send := func() {
		if flushErr == nil && len(out.b) > 0 {
			flushErr = flush(out.b)
		}
		out.b = out.b[:0]
	}
	masks := make([]uint64, len(insts)) // as merged with the chunk's duplicates
	for i := range insts {
		masks[i] = insts[i].mask
	}
	// The local search's waves, each expanded against the visited set as
	// the waves before left it, then merged.
	var cands []int
	dup := map[stateKey]int{}
	for lo := 0; lo < len(insts); {
		wave := int(insts[lo].parent) / bfsWave
		hi := lo
		for hi < len(insts) && int(insts[hi].parent)/bfsWave == wave {
			hi++
		}
		cands = cands[:0]
		chunk := -1
		for i := lo; i < hi; i++ {
			in := &insts[i]
			if c := int(in.parent) / bfsChunk; c != chunk {
				chunk = c
				clear(dup)
			}
			if stored, seen := m.lookup(in.key, base[i]); seen {
				if _, _, again := s.g.again(stored, in.mask, int(in.perm)); !again {
					continue
				}
			}
			if j, ok := dup[in.key]; ok {
				masks[j] &= in.mask // expanded once with the smaller sleep set
				continue
			}
			dup[in.key] = i
			cands = append(cands, i)
		}
		for _, i := range cands {
			in := &insts[i]
			mask := masks[i]
			var only uint64
			stored, seen := m.lookup(in.key, base[i])
			if seen {
				var again bool
				if mask, only, again = s.g.again(stored, mask, int(in.perm)); !again {
					continue
				}
			} else {
				res.New++
			}
			m.put(in.key, mask)
			res.Kept++
			out.add(i, in.mask, mask, only)
			if len(out.b) >= limit {
				send()
			}
		}
		lo = hi
	}
	send()
	return res, flushErr
}

// SplitAdvance is what advancing a replica added.
type SplitAdvance struct {
	// New is the states new to the replica, Next the next level's size
	// (0: the search is over); by partition, the states each added and
	// its instances kept.
	New, Next             int
	NewByPart, KeptByPart []int
}

// Advance adds what every partition kept (insts[p] and decisions[p]:
// partition p's instance batches, ranges in order, and its merge's
// decisions) to the replica, in the level's order, and moves it to the
// next level unless that is empty. On an error the replica is left
// half advanced: make it again. Expand and Merge only read the replica
// and may run concurrently (each Expand with its own Scratch); Advance
// writes it and must run alone.
func (s *Split) Advance(insts, decisions [][][]byte) (SplitAdvance, error) {
	res := SplitAdvance{NewByPart: make([]int, s.parts), KeptByPart: make([]int, s.parts)}
	if len(insts) != s.parts || len(decisions) != s.parts {
		return res, fmt.Errorf("check: instances of %d and decisions of %d partitions, not %d", len(insts), len(decisions), s.parts)
	}
	var err error
	cursors := make([]keptCursor, s.parts)
	heads := make([]*instance, s.parts)
	// order is a min-heap of the partitions with a head left, by their
	// heads in the level's order: a state costs log(parts) comparisons.
	order := make([]int, 0, s.parts)
	for p := range cursors {
		cursors[p] = keptCursor{insts: instanceCursor{s: s, part: p, batches: insts[p], arena: new([]footprint)}, batches: decisions[p]}
		var live bool
		if heads[p], live, err = cursors[p].next(); err != nil {
			return res, err
		}
		if live {
			order = append(order, p)
			siftUp(order, len(order)-1, heads)
		}
	}
	// The level's size, from the decisions, so that its log is made at
	// once, not grown (and copied) a dozen times.
	hint := 0
	for _, p := range decisions {
		hint += countDecisions(p)
	}
	log := levelLog{parent: make([]uint32, 0, hint), off: make([]uint32, 0, hint+1), choices: make([]byte, 0, 2*hint)}
	// The sleep sets and keys of the level before are not needed any
	// more: the next level's reuse their memory.
	old := s.b.curSleep
	sleep := sleepArena{sets: old.sets[:0], off: old.off[:0], only: old.only[:0]}
	if cap(sleep.off) < hint+1 {
		sleep.off = make([]uint32, 0, hint+1)
	}
	fps := s.spareFps[:0]
	if cap(fps) < hint {
		fps = make([]uint64, 0, hint)
	}
	var encs []string
	masks := s.spareMasks[:0]
	for len(order) > 0 {
		best := order[0]
		k := heads[best]
		res.KeptByPart[best]++
		log.addRaw(k.parent, k.choices)
		fps = append(fps, k.key.fp)
		masks = append(masks, k.mask)
		if s.g.exact {
			encs = append(encs, k.key.enc)
		}
		sleep.addMasked(k.sleep, s.g.instanceMask(k.mask, int(k.perm)))
		if k.only != 0 {
			sleep.setOnly(log.len()-1, k.only)
		}
		var live bool
		if heads[best], live, err = cursors[best].next(); err != nil {
			return res, err
		}
		if !live {
			order[0] = order[len(order)-1]
			order = order[:len(order)-1]
		}
		siftDown(order, 0, heads)
	}
	// The stores come last, in a loop of their own: the visited set is
	// far larger than the caches, and a loop that does nothing else
	// keeps many of its misses in flight at once (the heads' loop above
	// kept one or two).
	s.spareMasks = masks
	for i, fp := range fps {
		k := stateKey{fp: fp}
		if s.g.exact {
			k.enc = encs[i]
		}
		if s.g.store.put(k, masks[i]) {
			res.New++
			res.NewByPart[s.Part(fp)]++
		}
	}
	if res.Next = log.len(); res.Next == 0 {
		s.b.curSleep = old
		return res, nil
	}
	b := s.b
	b.levels = append(b.levels, log)
	s.spareFps, s.fps[b.depth], s.encs[b.depth] = s.fps[b.depth], nil, nil
	s.fps, s.encs = append(s.fps, fps), append(s.encs, encs)
	b.curSleep = sleep
	b.depth++
	return res, nil
}

// siftUp and siftDown keep order a min-heap of partitions by their heads.
func siftUp(order []int, i int, heads []*instance) {
	for i > 0 {
		up := (i - 1) / 2
		if !heads[order[i]].before(heads[order[up]]) {
			return
		}
		order[i], order[up] = order[up], order[i]
		i = up
	}
}

func siftDown(order []int, i int, heads []*instance) {
	for {
		least := i
		for _, c := range []int{2*i + 1, 2*i + 2} {
			if c < len(order) && heads[order[c]].before(heads[order[least]]) {
				least = c
			}
		}
		if least == i {
			return
		}
		order[i], order[least] = order[least], order[i]
		i = least
	}
}

// CheckChunk expands chunk c of the current level again and compares its
// successors with the instances of insts (every partition's batches of
// the level, ranges in order) reached from the chunk's states: an
// expander that dropped, added or changed one is caught. It returns the
// chunk's expansion, for its violation and depth cut.
func (s *Split) CheckChunk(c int, insts [][][]byte) (SplitExpansion, error) {
	if len(insts) != s.parts {
		return SplitExpansion{}, fmt.Errorf("check: instances of %d partitions, not %d", len(insts), s.parts)
	}
	mine := make([][][]byte, s.parts)
	x, err := s.expand(nil, c, c+1, 1<<20, 1, func(p int, b []byte) error { // every key of the chunk
		mine[p] = append(mine[p], append([]byte(nil), b...))
		return nil
	})
	if err != nil {
		return x, err
	}
	lo, hi := uint32(c*bfsChunk), uint32((c+1)*bfsChunk)
	for p := range s.parts {
		want := instanceCursor{s: s, part: p, batches: mine[p], arena: new([]footprint)}
		got := instanceCursor{s: s, part: p, batches: insts[p], arena: new([]footprint)}
		for {
			w, wok, err := want.next()
			if err != nil {
				return x, err
			}
			var g *instance
			gok := false
			for {
				if g, gok, err = got.next(); err != nil || !gok || g.parent >= lo {
					break
				}
			}
			if err != nil {
				return x, err
			}
			if gok && g.parent >= hi {
				gok = false
			}
			switch {
			case !wok && !gok:
			case !wok:
				return x, fmt.Errorf("%w: partition %d was sent successor %d of state %d of chunk %d, which the state does not have", ErrSplitData, p, g.eidx, g.parent, c)
			case !gok:
				return x, fmt.Errorf("%w: partition %d was not sent successor %d of state %d of chunk %d", ErrSplitData, p, w.eidx, w.parent, c)
			case !sameInstance(w, g):
				return x, fmt.Errorf("%w: partition %d was sent successor %d of state %d of chunk %d not as it is", ErrSplitData, p, w.eidx, w.parent, c)
			default:
				continue
			}
			break
		}
	}
	return x, nil
}

// sameInstance compares two instances field by field.
func sameInstance(a, b *instance) bool {
	return a.parent == b.parent && a.eidx == b.eidx && a.key == b.key && a.mask == b.mask && a.perm == b.perm &&
		string(a.choices) == string(b.choices) && slices.Equal(a.sleep, b.sleep)
}

// Result is the local search's result for a split search's outcome: the
// counterexample replayed and shrunk here.
func (s *Split) Result(o Outcome) Result { return outcomeResult(s.x, s.g, o) }

// mergeInstance is what Merge needs of an instance.
type mergeInstance struct {
	parent uint32
	perm   int32
	mask   uint64
	key    stateKey
}

// baseEntry is what the replica's visited set holds for an instance's
// key.
type baseEntry struct {
	mask uint64
	seen bool
}

// mergeOverlay is the visited set as a merge sees it: the replica's
// (read before, a baseEntry an instance), with the merge's own stores on
// top (the replica changes only in Advance, so a merge done twice
// decides the same).
type mergeOverlay struct{ over *stateStore }

func (m *mergeOverlay) lookup(k stateKey, base baseEntry) (uint64, bool) {
	if v, ok := m.over.lookup(k); ok {
		return v, true
	}
	return base.mask, base.seen
}

func (m *mergeOverlay) put(k stateKey, mask uint64) { m.over.put(k, mask) }
