package sim

import "math"

// Hasher folds values into a 64-bit hash. It is deterministic across
// platforms and runs (no per-process seed), so a state's hash can appear in
// golden files and be compared between native and wasm builds.
type Hasher struct{ h uint64 }

const hashMul = 0x9E3779B97F4A7C15

// NewHasher returns a hasher with the fixed initial state.
func NewHasher() Hasher { return Hasher{h: 0xcbf29ce484222325} }

// Uint64 folds v.
func (h *Hasher) Uint64(v uint64) {
	x := (h.h ^ v) * hashMul
	h.h = x ^ (x >> 32)
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
