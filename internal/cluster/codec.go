package cluster

import (
	"bytes"
	"cmp"
	"compress/flate"
	"encoding/binary"
	"errors"
	"io"
	"math"
	"slices"
	"strings"
	"sync"

	"github.com/racetrack-sim/racetrack/core/check"
)

// item is a bfs state on the wire: the state (its world encoded by the
// model's state codec, check.BFSState.World, and the schedule that
// reached it, for a counterexample) and its index path (the indices of
// the successors taken from the root), which orders a level as the
// local search orders it.
type item struct {
	s     check.BFSState
	order []int
}

func compareItems(a, b item) int { return slices.Compare(a.order, b.order) }

// Bounds on decoded sizes: a malformed message must not allocate much.
const (
	maxPath  = 1 << 20
	maxSleep = 64 * 16
	// maxPerm bounds a state's renaming (check.BFSState.Renaming; the
	// Expander checks it against the model's symmetries).
	maxPerm = 1 << 16
)

var errCodec = errors.New("cluster: malformed state batch")

func appendInts(b []byte, v []int) []byte {
	b = binary.AppendUvarint(b, uint64(len(v)))
	for _, x := range v {
		b = binary.AppendUvarint(b, uint64(x))
	}
	return b
}

// appendItem encodes one state alone (see appendItemAfter).
func appendItem(b []byte, it item) []byte { return appendItemAfter(b, item{}, it) }

// appendItemAfter encodes one state after prev, the state before it in
// its batch: fingerprint, depth, path, sleep set, renaming, the
// processes it is expanded for, order, canonical encoding (empty but
// with exact storage) and world. The path, the order, the encoding and
// the world are written as the length of the prefix they share with
// prev's and the rest: states of a batch come from the same or nearby
// parents, in index-path order, so most of each is shared (and the
// batch's compression finds most of what is left).
func appendItemAfter(b []byte, prev, it item) []byte {
	b = binary.LittleEndian.AppendUint64(b, it.s.Key)
	b = binary.AppendUvarint(b, uint64(it.s.Depth))
	b = appendIntsAfter(b, prev.s.Path, it.s.Path)
	b = binary.AppendUvarint(b, uint64(len(it.s.Sleep)))
	b = append(b, it.s.Sleep...)
	b = binary.AppendUvarint(b, uint64(it.s.Renaming))
	b = binary.AppendUvarint(b, it.s.Only)
	b = appendIntsAfter(b, prev.order, it.order)
	n := sharedPrefix([]byte(prev.s.Enc), []byte(it.s.Enc))
	b = binary.AppendUvarint(b, uint64(n))
	b = binary.AppendUvarint(b, uint64(len(it.s.Enc)-n))
	b = append(b, it.s.Enc[n:]...)
	return appendBytesAfter(b, prev.s.World, it.s.World)
}

// appendBytesAfter writes v after prev: the lengths of the prefix and of
// the suffix they share, then the middle. Two states of a batch often
// differ only in a few bytes in the middle of their worlds (a process's
// counter, one event), which this leaves alone for the compression.
func appendBytesAfter(b, prev, v []byte) []byte {
	pre := sharedPrefix(prev, v)
	suf := 0
	for suf < len(prev)-pre && suf < len(v)-pre && prev[len(prev)-1-suf] == v[len(v)-1-suf] {
		suf++
	}
	b = binary.AppendUvarint(b, uint64(pre))
	b = binary.AppendUvarint(b, uint64(suf))
	b = binary.AppendUvarint(b, uint64(len(v)-pre-suf))
	return append(b, v[pre:len(v)-suf]...)
}

func sharedPrefix[T comparable](a, b []T) int {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return n
}

func appendIntsAfter(b []byte, prev, v []int) []byte {
	n := sharedPrefix(prev, v)
	b = binary.AppendUvarint(b, uint64(n))
	return appendInts(b, v[n:])
}

type reader struct {
	b   []byte
	err error
	// ints and bytes are memory the decoded states' lists are cut from
	// (a batch's states are thousands of small lists: one allocation
	// each would be most of decoding them).
	ints  []int
	bytes []byte
}

// arenaSize is the length of a reader's arenas.
const arenaSize = 16 << 10

// newInts is a list of n ints cut from the arena (capacity n: appending
// to it copies).
func (r *reader) newInts(n int) []int {
	if n > arenaSize/4 {
		return make([]int, n)
	}
	if len(r.ints) < n {
		r.ints = make([]int, arenaSize)
	}
	out := r.ints[:n:n]
	r.ints = r.ints[n:]
	return out
}

// newBytes is newInts for bytes: length 0, capacity n.
func (r *reader) newBytes(n int) []byte {
	if n > arenaSize/4 {
		return make([]byte, 0, n)
	}
	if len(r.bytes) < n {
		r.bytes = make([]byte, arenaSize)
	}
	out := r.bytes[:0:n]
	r.bytes = r.bytes[n:]
	return out
}

func (r *reader) uvarint(limit uint64) uint64 {
	if r.err != nil {
		return 0
	}
	v, n := binary.Uvarint(r.b)
	if n <= 0 || v > limit {
		r.err = errCodec
		return 0
	}
	r.b = r.b[n:]
	return v
}

// str reads a length and that many bytes (bounded by the message).
func (r *reader) str() string {
	n := r.uvarint(maxPath)
	if r.err != nil || n > uint64(len(r.b)) {
		r.err = errCodec
		return ""
	}
	s := string(r.b[:n])
	r.b = r.b[n:]
	return s
}

// intsAfter reads a list written by appendIntsAfter after prev.
func (r *reader) intsAfter(prev []int) []int {
	shared := r.uvarint(uint64(len(prev)))
	n := r.uvarint(maxPath)
	if r.err != nil || n > uint64(len(r.b)) || shared+n > maxPath {
		r.err = errCodec
		return nil
	}
	out := r.newInts(int(shared + n))
	copy(out, prev[:shared])
	for i := shared; i < uint64(len(out)); i++ {
		out[i] = int(r.uvarint(1 << 31))
	}
	return out
}

// strAfter reads a string written after prev: the shared prefix's
// length, then the rest.
func (r *reader) strAfter(prev string) string {
	shared := r.uvarint(uint64(len(prev)))
	n := r.uvarint(maxPath)
	if r.err != nil || n > uint64(len(r.b)) {
		r.err = errCodec
		return ""
	}
	s := prev[:shared] + string(r.b[:n])
	r.b = r.b[n:]
	return s
}

// bytesAfter reads bytes written by appendBytesAfter after prev; nil
// when empty (a state without its world).
func (r *reader) bytesAfter(prev []byte) []byte {
	pre := r.uvarint(uint64(len(prev)))
	suf := r.uvarint(uint64(len(prev)) - pre)
	n := r.uvarint(maxPath)
	if r.err != nil || n > uint64(len(r.b)) {
		r.err = errCodec
		return nil
	}
	if pre+suf+n == 0 {
		return nil
	}
	out := r.newBytes(int(pre + n + suf))
	out = append(append(append(out, prev[:pre]...), r.b[:n]...), prev[uint64(len(prev))-suf:]...)
	r.b = r.b[n:]
	return out
}

// decodeItems decodes a batch of states.
func decodeItems(b []byte, out []item) ([]item, error) {
	r := &reader{b: b}
	var prev item
	for len(r.b) > 0 && r.err == nil {
		if len(r.b) < 8 {
			return out, errCodec
		}
		var it item
		it.s.Key = binary.LittleEndian.Uint64(r.b)
		r.b = r.b[8:]
		it.s.Depth = int(r.uvarint(maxPath))
		it.s.Path = r.intsAfter(prev.s.Path)
		n := r.uvarint(maxSleep)
		if r.err == nil && n > uint64(len(r.b)) {
			r.err = errCodec
		}
		if r.err == nil {
			it.s.Sleep, r.b = append(r.newBytes(int(n)), r.b[:n]...), r.b[n:]
		}
		it.s.Renaming = int(r.uvarint(maxPerm))
		it.s.Only = r.uvarint(math.MaxUint64)
		it.order = r.intsAfter(prev.order)
		it.s.Enc = r.strAfter(prev.s.Enc)
		it.s.World = r.bytesAfter(prev.s.World)
		out = append(out, it)
		prev = it
	}
	return out, r.err
}

// appendSeen encodes one entry of a visited set: fingerprint, mask and
// canonical encoding (empty but with exact storage).
func appendSeen(b []byte, key, mask uint64, enc string) []byte {
	b = binary.LittleEndian.AppendUint64(b, key)
	b = binary.AppendUvarint(b, mask)
	b = binary.AppendUvarint(b, uint64(len(enc)))
	return append(b, enc...)
}

func decodeSeen(b []byte, into *visitedSet) error {
	return eachSeenMask(b, into.put)
}

// eachSeen passes each entry's fingerprint and encoding to f.
func eachSeen(b []byte, f func(key uint64, enc string)) error {
	return eachSeenMask(b, func(key uint64, enc string, _ uint64) { f(key, enc) })
}

func eachSeenMask(b []byte, f func(key uint64, enc string, mask uint64)) error {
	r := &reader{b: b}
	for len(r.b) > 0 && r.err == nil {
		if len(r.b) < 8 {
			return errCodec
		}
		k := binary.LittleEndian.Uint64(r.b)
		r.b = r.b[8:]
		m := r.uvarint(^uint64(0))
		enc := r.str()
		if r.err == nil {
			f(k, enc, m)
		}
	}
	return r.err
}

// visitedSet is a partition's visited states and the sleep masks they
// were stored with: by fingerprint, or with exact storage by canonical
// encoding.
type visitedSet struct {
	fps  map[uint64]uint64
	encs map[string]uint64
}

func newVisitedSet(exact bool) *visitedSet {
	if exact {
		return &visitedSet{encs: map[string]uint64{}}
	}
	return &visitedSet{fps: map[uint64]uint64{}}
}

func (v *visitedSet) get(key uint64, enc string) (uint64, bool) {
	var m uint64
	var ok bool
	if v.encs != nil {
		m, ok = v.encs[enc]
	} else {
		m, ok = v.fps[key]
	}
	return m, ok
}

func (v *visitedSet) put(key uint64, enc string, mask uint64) {
	if v.encs != nil {
		v.encs[enc] = mask
	} else {
		v.fps[key] = mask
	}
}

func (v *visitedSet) len() int { return len(v.fps) + len(v.encs) }

// seenEntry is an entry of a visited set.
type seenEntry struct {
	key  uint64
	enc  string
	mask uint64
}

// entries lists the set's entries in a fixed order (by fingerprint, or
// by encoding, whose entries carry no fingerprint), so a repeated task
// publishes the same bytes.
func (v *visitedSet) entries() []seenEntry {
	out := make([]seenEntry, 0, v.len())
	for k, m := range v.fps {
		out = append(out, seenEntry{key: k, mask: m})
	}
	for e, m := range v.encs {
		out = append(out, seenEntry{enc: e, mask: m})
	}
	slices.SortFunc(out, func(a, b seenEntry) int {
		if c := cmp.Compare(a.key, b.key); c != 0 {
			return c
		}
		return strings.Compare(a.enc, b.enc)
	})
	return out
}

// addAll adds every entry of inc.
func (v *visitedSet) addAll(inc *visitedSet) {
	for k, m := range inc.fps {
		v.fps[k] = m
	}
	for e, m := range inc.encs {
		v.encs[e] = m
	}
}

// Messages on the bfs stream are compressed (DEFLATE, fastest level):
// the states of a batch repeat their sleep sets and path values, which
// the prefix sharing of appendItemAfter leaves.
const maxUnpacked = 16 << 20 // a message never unpacks to more

// Compressors are large (hundreds of KiB): they are reused.
var (
	writers = sync.Pool{New: func() any { w, _ := flate.NewWriter(nil, flate.BestSpeed); return w }}
	readers = sync.Pool{New: func() any { return flate.NewReader(bytes.NewReader(nil)) }}
)

func pack(b []byte) []byte {
	var out bytes.Buffer
	zw := writers.Get().(*flate.Writer)
	zw.Reset(&out)
	_, _ = zw.Write(b) // a bytes.Buffer does not fail
	_ = zw.Close()
	writers.Put(zw)
	return out.Bytes()
}

func unpack(b []byte) ([]byte, error) {
	zr := readers.Get().(io.ReadCloser)
	defer readers.Put(zr)
	if err := zr.(flate.Resetter).Reset(bytes.NewReader(b), nil); err != nil {
		return nil, errCodec
	}
	// A batch unpacks to about maxBatch: room for that at once rather
	// than growing from nothing.
	out := make([]byte, 0, min(maxUnpacked, maxBatch+maxBatch/4))
	for {
		if len(out) == cap(out) {
			if len(out) > maxUnpacked {
				return nil, errCodec
			}
			out = slices.Grow(out, min(len(out), maxUnpacked+1-len(out)))
		}
		n, err := zr.Read(out[len(out):cap(out)])
		out = out[:len(out)+n]
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, errCodec
		}
	}
	if len(out) > maxUnpacked {
		return nil, errCodec
	}
	return out, nil
}
