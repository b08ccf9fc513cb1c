package sim

import (
	"encoding/binary"
	"math"
)

// Hasher folds values into a 64-bit hash. It is deterministic across
// platforms and runs (no per-process seed), so a state's hash can appear in
// golden files and be compared between native and wasm builds.
//
// A Hasher made by NewEncoder also records every value folded, as
// varints: that record is the state's canonical encoding, which the
// explorers store when they are asked for exact storage instead of
// fingerprints. Two states with the same encoding are the same state;
// the hash is a function of the encoding.
type Hasher struct {
	h   uint64
	rec bool
	buf []byte
}

const hashMul = 0x9E3779B97F4A7C15

// NewHasher returns a hasher with the fixed initial state.
func NewHasher() Hasher { return Hasher{h: 0xcbf29ce484222325} }

// NewEncoder returns a hasher that also records what it folds, appending
// to buf[:0].
func NewEncoder(buf []byte) Hasher { return Hasher{h: 0xcbf29ce484222325, rec: true, buf: buf[:0]} }

// Recording reports whether h records an encoding (NewEncoder).
func (h *Hasher) Recording() bool { return h.rec }

// Bytes is the encoding recorded so far (nil unless NewEncoder).
func (h *Hasher) Bytes() []byte { return h.buf }

// fold is the hash state after folding v into h.
func fold(h, v uint64) uint64 {
	x := (h ^ v) * hashMul
	return x ^ (x >> 32)
}

// Uint64 folds v.
func (h *Hasher) Uint64(v uint64) {
	h.h = fold(h.h, v)
	if h.rec {
		h.buf = binary.AppendUvarint(h.buf, v)
	}
}

// raw appends bytes to the encoding without folding them (the explorers'
// multiset encodings, whose hash is folded separately).
func (h *Hasher) raw(b []byte) {
	if h.rec {
		h.buf = binary.AppendUvarint(h.buf, uint64(len(b)))
		h.buf = append(h.buf, b...)
	}
}

// Int folds v.
func (h *Hasher) Int(v int) { h.Uint64(uint64(v)) }

// Int64 folds v.
func (h *Hasher) Int64(v int64) { h.Uint64(uint64(v)) }

// Bool folds v.
func (h *Hasher) Bool(v bool) {
	if v {
		h.Uint64(1)
	} else {
		h.Uint64(2)
	}
}

// Float folds v by its bits.
func (h *Hasher) Float(v float64) { h.Uint64(math.Float64bits(v)) }

// String folds s and its length.
func (h *Hasher) String(s string) {
	h.Uint64(uint64(len(s)))
	var w uint64
	n := 0
	for i := 0; i < len(s); i++ {
		w = w<<8 | uint64(s[i])
		n++
		if n == 8 {
			h.Uint64(w)
			w, n = 0, 0
		}
	}
	if n > 0 {
		h.Uint64(w)
	}
}

// Sum returns the hash with a final avalanche.
func (h *Hasher) Sum() uint64 { return Mix64(h.h) }

// Mix64 is a bijective avalanche of x (the murmur3 finaliser), used to
// combine unordered collections by summing mixed element hashes.
func Mix64(x uint64) uint64 {
	x ^= x >> 33
	x *= 0xff51afd7ed558ccd
	x ^= x >> 33
	x *= 0xc4ceb9fe1a85ec53
	x ^= x >> 33
	return x
}

// Hashable is implemented by message payloads (and other values) that fold
// themselves into a state hash. Payloads that do not implement it are hashed
// by their printed form, which must then not contain pointers.
type Hashable interface {
	HashInto(h *Hasher)
}
