package cluster

import (
	"encoding/binary"
	"errors"
	"slices"

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

// appendItem encodes one state: fingerprint, depth, path, sleep set, order.
func appendItem(b []byte, it item) []byte {
	b = binary.LittleEndian.AppendUint64(b, it.s.Key)
	b = binary.AppendUvarint(b, uint64(it.s.Depth))
	b = appendInts(b, it.s.Path)
	b = binary.AppendUvarint(b, uint64(len(it.s.Sleep)))
	b = append(b, it.s.Sleep...)
	return appendInts(b, it.order)
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
		out = append(out, it)
	}
	return out, r.err
}

// appendSeen encodes one entry of a visited set: fingerprint and mask.
func appendSeen(b []byte, key, mask uint64) []byte {
	b = binary.LittleEndian.AppendUint64(b, key)
	return binary.AppendUvarint(b, mask)
}

func decodeSeen(b []byte, into map[uint64]uint64) error {
	for len(b) > 0 {
		if len(b) < 8 {
			return errCodec
		}
		k := binary.LittleEndian.Uint64(b)
		m, n := binary.Uvarint(b[8:])
		if n <= 0 {
			return errCodec
		}
		into[k] = m
		b = b[8+n:]
	}
	return nil
}
