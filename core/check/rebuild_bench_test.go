package check

import (
	"testing"

	"github.com/racetrack-sim/racetrack/core/catalog"
	"github.com/racetrack-sim/racetrack/core/sim"
)

// BenchmarkRebuildOrDecode answers whether a bfs should rebuild a level's
// states by replaying their paths (what the local and the split bfs do:
// the worlds along the last path are kept, so neighbours replay only
// where their paths differ) or decode each from bytes (sim.Codec, what
// shipping states as bytes needs): both rebuild every state of one level
// of Vitess fixed C=3 ITER=2 (level 30, 96,414 states, reached by a
// split bfs), in the level's order, and report ns a state. The
// encoding is made before the timer starts.
//
//	go test ./core/check -run '^$' -bench RebuildOrDecode
func BenchmarkRebuildOrDecode(b *testing.B) {
	s, err := NewSplit(catalog.New(), Config{Scenario: "vitess-messager", Preset: "lock-level", Variant: "fixed", Strategy: BFS,
		Params: map[string]any{"clients": 3, "iterations": 2}, Reductions: DefaultReductions(BFS)}, 1)
	if err != nil {
		b.Fatal(err)
	}
	for s.Depth() < 30 {
		var insts, decs [][]byte
		if _, err := s.Expand(nil, 0, s.Chunks(), 1<<20, func(_ int, bt []byte) error { insts = append(insts, append([]byte(nil), bt...)); return nil }); err != nil {
			b.Fatal(err)
		}
		if _, err := s.Merge(0, insts, 1<<20, func(bt []byte) error { decs = append(decs, append([]byte(nil), bt...)); return nil }); err != nil {
			b.Fatal(err)
		}
		if _, err := s.Advance([][][]byte{insts}, [][][]byte{decs}); err != nil {
			b.Fatal(err)
		}
	}
	n := s.Len()
	codec, err := sim.NewCodec(s.b.roots[0])
	if err != nil {
		b.Fatal(err)
	}
	rb := rebuilder{b: s.b}
	encoded := make([][]byte, n)
	for i := range n {
		next := int64(i + 1)
		if i+1 == n {
			next = -1
		}
		w, err := rb.world(s.b.depth, uint32(i), next)
		if err != nil {
			b.Fatal(err)
		}
		if encoded[i], err = codec.Append(nil, w); err != nil {
			b.Fatal(err)
		}
	}
	b.Logf("level %d: %d states", s.Depth(), n)
	b.Run("replay", func(b *testing.B) {
		for b.Loop() {
			rb := rebuilder{b: s.b}
			for i := range n {
				next := int64(i + 1)
				if i+1 == n {
					next = -1
				}
				if _, err := rb.world(s.b.depth, uint32(i), next); err != nil {
					b.Fatal(err)
				}
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/state")
	})
	b.Run("decode", func(b *testing.B) {
		for b.Loop() {
			var w *sim.World
			for i := range n {
				if w, err = codec.DecodeInto(w, encoded[i]); err != nil {
					b.Fatal(err)
				}
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/state")
	})
}
