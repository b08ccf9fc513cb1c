package check

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/racetrack-sim/racetrack/core/sim"
)

// ErrSplitData is wrapped by the errors of malformed instances or kept
// lists (Split.Merge, Split.Advance): bytes a party sent that no replica
// writes.
var ErrSplitData = errors.New("check: malformed split bfs data")

// instance is one successor sent to its key's partition: the state of
// the current level it was reached from (parent), its place among that
// state's successors (eidx, from 1), its key, its sleep mask in the
// names of the state the key stands for, the renaming into that state,
// the choices of its step (uvarints) and its sleep set.
type instance struct {
	parent  uint32
	eidx    uint32
	key     stateKey
	mask    uint64
	perm    int32
	only    uint64 // as decided (Advance)
	choices []byte
	sleep   []footprint
}

// before orders instances as the local search meets them.
func (a *instance) before(b *instance) bool {
	return a.parent < b.parent || a.parent == b.parent && a.eidx < b.eidx
}

// The first byte of a batch says what it holds.
const (
	batchInstances = 1
)

// A batch is its kind, then entries of: the parent (the first entry's
// itself, the others' as the difference from the entry before), eidx,
// the fingerprint (8 bytes, little-endian), the encoding with exact
// storage (length, bytes), the mask, perm+1, the choices (length, bytes)
// and the sleep set: its
// size, then each footprint as its index in the batch's dictionary, the
// footprints met so far in the batch in order; the index one past them
// is a new one, written in full (proc×2+global, mutex+1, reads, writes)
// and added.
type batchWriter struct {
	kind       byte
	exact      bool
	b          []byte
	lastParent uint32
	dict       map[footprint]uint64
}

func (w *batchWriter) reset() {
	w.b, w.lastParent = w.b[:0], 0
	clear(w.dict)
}

func (w *batchWriter) add(in *instance, sleep []footprint) {
	if len(w.b) == 0 {
		w.b = append(w.b, w.kind)
		w.lastParent = 0
	}
	b := binary.AppendUvarint(w.b, uint64(in.parent-w.lastParent))
	w.lastParent = in.parent
	b = binary.AppendUvarint(b, uint64(in.eidx))
	b = binary.LittleEndian.AppendUint64(b, in.key.fp)
	if w.exact {
		b = binary.AppendUvarint(b, uint64(len(in.key.enc)))
		b = append(b, in.key.enc...)
	}
	b = binary.AppendUvarint(b, in.mask)
	b = binary.AppendUvarint(b, uint64(in.perm+1))
	b = binary.AppendUvarint(b, uint64(len(in.choices)))
	b = append(b, in.choices...)
	b = binary.AppendUvarint(b, uint64(len(sleep)))
	for _, z := range sleep {
		if i, ok := w.dict[z]; ok {
			b = binary.AppendUvarint(b, i)
			continue
		}
		if w.dict == nil {
			w.dict = map[footprint]uint64{}
		}
		n := uint64(len(w.dict))
		w.dict[z] = n
		b = binary.AppendUvarint(b, n)
		g := uint64(0)
		if z.global {
			g = 1
		}
		b = binary.AppendUvarint(b, uint64(z.proc)<<1|g)
		b = binary.AppendUvarint(b, uint64(int64(z.mutex)+1))
		b = binary.AppendUvarint(b, z.reads)
		b = binary.AppendUvarint(b, z.writes)
	}
	w.b = b
}

// instanceWriter writes an expansion's instances for one partition.
type instanceWriter struct{ batchWriter }

func newInstanceWriter(exact bool) instanceWriter {
	return instanceWriter{batchWriter{kind: batchInstances, exact: exact}}
}

func (w *instanceWriter) add(in instance, choices []int, sleep []footprint) {
	var buf [32]byte
	c := buf[:0]
	for _, v := range choices {
		c = binary.AppendUvarint(c, uint64(v))
	}
	in.choices = c
	w.batchWriter.add(&in, sleep)
}

// batchReader reads a batch, checking every field against the replica.
// Sleep sets go to arena, which the caller keeps from batch to batch.
type batchReader struct {
	s     *Split
	b     []byte
	err   error
	dict  []footprint
	arena *[]footprint
	first bool // no entry read yet
}

func (r *batchReader) fail(format string, args ...any) {
	if r.err == nil {
		r.err = fmt.Errorf("%w: %s", ErrSplitData, fmt.Sprintf(format, args...))
	}
}

func (r *batchReader) uvarint(what string, limit uint64) uint64 {
	if r.err != nil {
		return 0
	}
	v, n := binary.Uvarint(r.b)
	if n <= 0 {
		r.fail("%s: not a varint", what)
		return 0
	}
	if v > limit {
		r.fail("%s is %d, above %d", what, v, limit)
		return 0
	}
	r.b = r.b[n:]
	return v
}

// bytes reads a length (what) and that many bytes.
func (r *batchReader) bytes(what string) []byte {
	n := r.uvarint(what, uint64(len(r.b)))
	if r.err == nil && n > uint64(len(r.b)) {
		r.fail("%s is %d, %d bytes are left", what, n, len(r.b))
	}
	if r.err != nil {
		return nil
	}
	v := r.b[:n:n]
	r.b = r.b[n:]
	return v
}

// maxEidx bounds a state's successors (a step's options times the
// values it may draw).
const maxEidx = 1 << 24

// entry reads one entry after prev (nil for the first).
func (r *batchReader) entry(part int, prev *instance) instance {
	s := r.s
	var in instance
	d := r.uvarint("parent", uint64(s.Len()))
	if prev != nil {
		d += uint64(prev.parent)
	}
	if r.err == nil && d >= uint64(s.Len()) {
		r.fail("parent %d of a level of %d states", d, s.Len())
	}
	in.parent = uint32(d)
	in.eidx = uint32(r.uvarint("successor index", maxEidx))
	if r.err == nil && len(r.b) < 8 {
		r.fail("a fingerprint is cut short")
	}
	if r.err != nil {
		return in
	}
	in.key.fp = binary.LittleEndian.Uint64(r.b)
	r.b = r.b[8:]
	if s.Part(in.key.fp) != part {
		r.fail("fingerprint %016x belongs to partition %d, not %d", in.key.fp, s.Part(in.key.fp), part)
	}
	if s.g.exact {
		in.key.enc = string(r.bytes("encoding length"))
	}
	in.mask = r.uvarint("mask", ^uint64(0))
	if r.err == nil && !s.maskOK(in.mask) {
		r.fail("mask %#x names processes the model does not have", in.mask)
	}
	return in
}

func (r *batchReader) rest(in *instance) {
	in.choices = r.bytes("choices length")
	for c := in.choices; len(c) > 0 && r.err == nil; {
		_, n := binary.Uvarint(c)
		if n <= 0 {
			r.fail("choices: not varints")
		}
		c = c[max(n, 1):]
	}
	n := r.uvarint("sleep set size", min(64, uint64(len(r.b))))
	a := *r.arena
	start := len(a)
	for range n {
		i := r.uvarint("footprint index", uint64(len(r.dict)))
		if r.err != nil {
			break
		}
		if i < uint64(len(r.dict)) {
			a = append(a, r.dict[i])
			continue
		}
		pg := r.uvarint("sleeping process", 2*64-1)
		mu := r.uvarint("sleeping step's mutex", 1<<31)
		rd := r.uvarint("sleeping step's reads", ^uint64(0))
		wr := r.uvarint("sleeping step's writes", ^uint64(0))
		z := footprint{proc: sim.ProcID(pg >> 1), global: pg&1 == 1, mutex: int32(int64(mu) - 1), reads: rd, writes: wr}
		r.dict = append(r.dict, z)
		a = append(a, z)
	}
	in.sleep = a[start:len(a):len(a)]
	*r.arena = a
}

// uv reads a uvarint, the one-byte ones first.
func uv(b []byte) (uint64, []byte, bool) {
	if len(b) > 0 && b[0] < 0x80 {
		return uint64(b[0]), b[1:], true
	}
	v, n := binary.Uvarint(b)
	if n <= 0 {
		return 0, b, false
	}
	return v, b[n:], true
}

// fastEntry reads an instance as entry, perm and rest do, without
// naming what is wrong: it reports false for anything they refuse, and
// reads nothing then.
func (r *batchReader) fastEntry(in *instance, part int, prev *instance) bool {
	s := r.s
	b := r.b
	parent, b, ok1 := uv(b)
	if parent > uint64(s.Len()) {
		return false
	}
	if prev != nil {
		parent += uint64(prev.parent)
	}
	eidx, b, ok2 := uv(b)
	if !ok1 || !ok2 || parent >= uint64(s.Len()) || eidx > maxEidx || len(b) < 8 {
		return false
	}
	in.parent, in.eidx = uint32(parent), uint32(eidx)
	in.key.fp = binary.LittleEndian.Uint64(b)
	in.key.enc = ""
	b = b[8:]
	if s.Part(in.key.fp) != part {
		return false
	}
	if s.g.exact {
		n, rest, ok := uv(b)
		if !ok || n > uint64(len(rest)) {
			return false
		}
		in.key.enc, b = string(rest[:n]), rest[n:]
	}
	mask, b, ok1 := uv(b)
	perm, b, ok2 := uv(b)
	n, b, ok3 := uv(b)
	if !ok1 || !ok2 || !ok3 || !s.maskOK(mask) || perm > uint64(len(s.g.perms)) || n > uint64(len(b)) {
		return false
	}
	in.mask, in.perm = mask, int32(perm)-1
	in.choices, b = b[:n:n], b[n:]
	for c := in.choices; len(c) > 0; {
		var ok bool
		if _, c, ok = uv(c); !ok {
			return false
		}
	}
	n, b, ok1 = uv(b)
	if !ok1 || n > 64 || n > uint64(len(b)) {
		return false
	}
	a := *r.arena
	start := len(a)
	for range n {
		i, rest, ok := uv(b)
		if !ok || i > uint64(len(r.dict)) {
			return false
		}
		b = rest
		if i < uint64(len(r.dict)) {
			a = append(a, r.dict[i])
			continue
		}
		pg, b1, ok1 := uv(b)
		mu, b2, ok2 := uv(b1)
		rd, b3, ok3 := uv(b2)
		wr, b4, ok4 := uv(b3)
		if !ok1 || !ok2 || !ok3 || !ok4 || pg > 2*64-1 || mu > 1<<31 {
			return false
		}
		b = b4
		z := footprint{proc: sim.ProcID(pg >> 1), global: pg&1 == 1, mutex: int32(int64(mu) - 1), reads: rd, writes: wr}
		r.dict = append(r.dict, z)
		a = append(a, z)
	}
	in.sleep = a[start:len(a):len(a)]
	*r.arena = a
	r.b = b
	return true
}

// instanceCursor reads a partition's instance batches in order, one
// instance at a time, checking that they come in the level's order.
type instanceCursor struct {
	s       *Split
	part    int
	batches [][]byte
	r       *batchReader
	cur     instance // the instance read last
	n       int      // instances read
	arena   *[]footprint
}

// next reads the next instance into the cursor and returns it; it and
// its slices are valid until the next call (the cursor's memory is
// reused).
func (c *instanceCursor) next() (*instance, bool, error) {
	for c.r == nil || len(c.r.b) == 0 {
		if len(c.batches) == 0 {
			return nil, false, nil
		}
		b := c.batches[0]
		c.batches = c.batches[1:]
		if len(b) == 0 || b[0] != batchInstances {
			return nil, false, fmt.Errorf("%w: not a batch of instances", ErrSplitData)
		}
		if c.r == nil {
			c.r = &batchReader{s: c.s, arena: c.arena}
		}
		c.r.b, c.r.dict, c.r.first = b[1:], c.r.dict[:0], true
	}
	r := c.r
	*r.arena = (*r.arena)[:0]
	prev := instance{parent: c.cur.parent, eidx: c.cur.eidx} // what next compares and counts from
	var pp *instance
	if !r.first {
		pp = &prev
	}
	dict := len(r.dict)
	in := &c.cur
	if !r.fastEntry(in, c.part, pp) {
		// Read again field by field, for the error naming what is wrong.
		*r.arena, r.dict = (*r.arena)[:0], r.dict[:dict]
		*in = r.entry(c.part, pp)
		perm := r.uvarint("renaming", uint64(len(c.s.g.perms)))
		in.perm = int32(perm) - 1
		r.rest(in)
		if r.err == nil {
			r.fail("an instance the fast reader refused") // never: both read the same format
		}
		return in, false, r.err
	}
	if c.n > 0 && !prev.before(in) {
		return in, false, fmt.Errorf("%w: instances out of the level's order (parent %d step %d after parent %d step %d)", ErrSplitData, in.parent, in.eidx, prev.parent, prev.eidx)
	}
	r.first = false
	c.n++
	return in, true, nil
}

// A decision batch is its kind, the index (among the partition's
// instances of the level) its first entry counts from, then per kept
// instance: (its index minus the next one's after the entry before)×4
// + flags, then the mask the merge stored if flag 1 (else the
// instance's own), then only if flag 2.
const batchDecisions = 3

type decisionWriter struct {
	b    []byte
	next int // the index after the last entry's
}

func (w *decisionWriter) add(i int, own, mask, only uint64) {
	if len(w.b) == 0 {
		w.b = append(w.b, batchDecisions)
		w.b = binary.AppendUvarint(w.b, uint64(w.next))
	}
	flags := uint64(0)
	if mask != own {
		flags |= 1
	}
	if only != 0 {
		flags |= 2
	}
	w.b = binary.AppendUvarint(w.b, uint64(i-w.next)<<2|flags)
	if flags&1 != 0 {
		w.b = binary.AppendUvarint(w.b, mask)
	}
	if flags&2 != 0 {
		w.b = binary.AppendUvarint(w.b, only)
	}
	w.next = i + 1
}

// keptCursor reads a partition's kept instances: its decisions applied
// to its instances.
type keptCursor struct {
	insts   instanceCursor
	batches [][]byte
	r       *batchReader
	next0   int // the index after the last decision's
}

func (c *keptCursor) next() (*instance, bool, error) {
	for c.r == nil || len(c.r.b) == 0 {
		if len(c.batches) == 0 {
			return nil, false, nil
		}
		b := c.batches[0]
		c.batches = c.batches[1:]
		if len(b) == 0 || b[0] != batchDecisions {
			return nil, false, fmt.Errorf("%w: not a batch of decisions", ErrSplitData)
		}
		c.r = &batchReader{s: c.insts.s, b: b[1:]}
		start := c.r.uvarint("first decision's index", 1<<40)
		if c.r.err == nil && start < uint64(c.next0) {
			c.r.fail("decisions from instance %d after instance %d", start, c.next0)
		}
		if c.r.err != nil {
			return nil, false, c.r.err
		}
		c.next0 = int(start)
	}
	r := c.r
	v := r.uvarint("decision", 1<<42)
	i := c.next0 + int(v>>2)
	mask, only := uint64(0), uint64(0)
	if v&1 != 0 {
		mask = r.uvarint("mask", ^uint64(0))
	}
	if v&2 != 0 {
		only = r.uvarint("only", ^uint64(0))
	}
	if r.err == nil && (!c.insts.s.maskOK(mask) || !c.insts.s.maskOK(only)) {
		r.fail("decision %d: mask %#x or only %#x names processes the model does not have", i, mask, only)
	}
	if r.err != nil {
		return nil, false, r.err
	}
	for {
		in, ok, err := c.insts.next()
		if err != nil {
			return in, false, err
		}
		if !ok {
			return in, false, fmt.Errorf("%w: a decision for instance %d of %d", ErrSplitData, i, c.insts.n)
		}
		if c.insts.n-1 < i {
			continue
		}
		if v&1 != 0 {
			in.mask = mask
		}
		in.only = only
		c.next0 = i + 1
		return in, true, nil
	}
}

// countDecisions counts the entries of decision batches, as far as they
// read (it is a size hint: keptCursor checks them).
func countDecisions(batches [][]byte) int {
	n := 0
	for _, b := range batches {
		if len(b) == 0 || b[0] != batchDecisions {
			continue
		}
		_, b, ok := uv(b[1:])
		for ok && len(b) > 0 {
			var v uint64
			if v, b, ok = uv(b); !ok {
				break
			}
			n++
			if v&1 != 0 {
				_, b, ok = uv(b)
			}
			if ok && v&2 != 0 {
				_, b, ok = uv(b)
			}
		}
	}
	return n
}
