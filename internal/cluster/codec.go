package cluster

import (
	"cmp"
	"encoding/binary"
	"errors"
	"slices"
	"strings"

	"github.com/racetrack-sim/racetrack/core/check"
)

// item is a bfs state on the wire: the state and its index path (the
// indices of the successors taken from the root), which orders a level
// as the local search orders it.
type item struct {
	s     check.BFSState
	order []int
}

func compareItems(a, b item) int { return slices.Compare(a.order, b.order) }

// Bounds on decoded sizes: a malformed message must not allocate much.
const (
	maxPath  = 1 << 20
	maxSleep = 64 * 16
)

var errCodec = errors.New("cluster: malformed state batch")

func appendInts(b []byte, v []int) []byte {
	b = binary.AppendUvarint(b, uint64(len(v)))
	for _, x := range v {
		b = binary.AppendUvarint(b, uint64(x))
	}
	return b
}

// appendItem encodes one state: fingerprint, depth, path, sleep set,
// order, and its canonical encoding (empty but with exact storage).
func appendItem(b []byte, it item) []byte {
	b = binary.LittleEndian.AppendUint64(b, it.s.Key)
	b = binary.AppendUvarint(b, uint64(it.s.Depth))
	b = appendInts(b, it.s.Path)
	b = binary.AppendUvarint(b, uint64(len(it.s.Sleep)))
	b = append(b, it.s.Sleep...)
	b = appendInts(b, it.order)
	b = binary.AppendUvarint(b, uint64(len(it.s.Enc)))
	return append(b, it.s.Enc...)
}

type reader struct {
	b   []byte
	err error
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

func (r *reader) ints() []int {
	n := r.uvarint(maxPath)
	if r.err != nil || n > uint64(len(r.b)) {
		r.err = errCodec
		return nil
	}
	out := make([]int, n)
	for i := range out {
		out[i] = int(r.uvarint(1 << 31))
	}
	return out
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

// decodeItems decodes a batch of states.
func decodeItems(b []byte, out []item) ([]item, error) {
	r := &reader{b: b}
	for len(r.b) > 0 && r.err == nil {
		if len(r.b) < 8 {
			return out, errCodec
		}
		var it item
		it.s.Key = binary.LittleEndian.Uint64(r.b)
		r.b = r.b[8:]
		it.s.Depth = int(r.uvarint(maxPath))
		it.s.Path = r.ints()
		n := r.uvarint(maxSleep)
		if r.err == nil && n > uint64(len(r.b)) {
			r.err = errCodec
		}
		if r.err == nil {
			it.s.Sleep, r.b = slices.Clone(r.b[:n]), r.b[n:]
		}
		it.order = r.ints()
		it.s.Enc = r.str()
		out = append(out, it)
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
			into.put(k, enc, m)
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
