package parallel_test

import (
	"fmt"
	"testing"

	"github.com/racetrack-sim/racetrack/core/catalog"
	"github.com/racetrack-sim/racetrack/core/check"
	"github.com/racetrack-sim/racetrack/internal/parallel"
)

// BenchmarkBFSVitessFixed reports states/s of the bfs of vitess
// lock-level fixed on 1 and 2 workers (C=3, ITER=1 by default; the
// bench/spin size is -bench 'Fixed/C3I2').
func BenchmarkBFSVitessFixed(b *testing.B) { benchVitessFixed(b, check.BFS) }

// BenchmarkDFSVitessFixed is the same for dfs (with its default
// reductions, of which the partial-order reduction does not apply to
// vitess's Always property, so it runs on the workers).
func BenchmarkDFSVitessFixed(b *testing.B) { benchVitessFixed(b, check.DFS) }

func benchVitessFixed(b *testing.B, strategy string) {
	for _, size := range [][2]int{{3, 1}, {3, 2}} {
		for _, w := range []int{1, 2} {
			b.Run(fmt.Sprintf("C%dI%d/workers=%d", size[0], size[1], w), func(b *testing.B) {
				cfg := check.Config{Scenario: "vitess-messager", Preset: "lock-level", Variant: "fixed", Strategy: strategy,
					Params: map[string]any{"clients": size[0], "iterations": size[1]}, Reductions: check.DefaultReductions(strategy)}
				states := 0
				for i := 0; i < b.N; i++ {
					x, err := check.New(catalog.New(), cfg)
					if err != nil {
						b.Fatal(err)
					}
					states += parallel.Run(x, w).States
				}
				b.ReportMetric(float64(states)/b.Elapsed().Seconds(), "states/s")
			})
		}
	}
}
