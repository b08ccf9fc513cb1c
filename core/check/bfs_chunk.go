package check

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

func sleepEnd(cd *candidate) uint32 { return cd.sleepEnd }
