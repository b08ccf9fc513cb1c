package check

import (
	"testing"

	"github.com/racetrack-sim/racetrack/core/catalog"
	"github.com/racetrack-sim/racetrack/core/sim"
)

// BenchmarkVitessParts times what bfs does per transition on a state 20
// steps into vitess lock-level fixed (3 clients, 2 iterations): copy the
// world, step a copy, hash a state.
func BenchmarkVitessParts(b *testing.B) {
	x, err := New(catalog.New(), Config{Scenario: "vitess-messager", Preset: "lock-level", Variant: "fixed", Strategy: BFS,
		Params: map[string]any{"clients": 3, "iterations": 2}, Reductions: DefaultReductions(BFS), NoShrink: true})
	if err != nil {
		b.Fatal(err)
	}
	bfs := x.eng.(*bfsEngine)
	w := bfs.roots[0].Snapshot()
	for i := 0; i < 20; i++ {
		w.SetChooser(&forceChooser{event: i % 2})
		if !w.Step() {
			b.Fatalf("step %d: %v", i, w.Err())
		}
	}
	b.Run("snapshot", func(b *testing.B) {
		var c *sim.World
		for b.Loop() {
			c = w.SnapshotInto(c)
		}
	})
	b.Run("step", func(b *testing.B) {
		var c *sim.World
		ch := &forceChooser{}
		for b.Loop() {
			c = w.SnapshotInto(c)
			c.SetChooser(ch)
			c.Step()
		}
	})
	b.Run("hash", func(b *testing.B) {
		var h sim.Hasher
		for b.Loop() {
			bfs.g.hash(w, &h)
		}
	})
}
