package cluster

import (
	"context"
	"testing"

	"github.com/racetrack-sim/racetrack/core/check"
)

func BenchmarkScratchProfile(b *testing.B) {
	cfg := check.Config{Scenario: "vitess-messager", Preset: "lock-level", Variant: "fixed",
		Params: map[string]any{"clients": 3, "iterations": 1}, Strategy: check.BFS, Reductions: check.DefaultReductions(check.BFS)}
	c := startClusterWith(b, 0, Options{})
	c.addWorker()
	c.addWorker()
	for i := 0; i < b.N; i++ {
		r, err := c.coord.Search(context.Background(), cfg, nil)
		if err != nil {
			b.Fatal(err)
		}
		b.Logf("%d states", r.States)
	}
}
