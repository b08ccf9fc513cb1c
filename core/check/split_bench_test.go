package check_test

import (
	"testing"
	"time"

	"github.com/racetrack-sim/racetrack/core/catalog"
	"github.com/racetrack-sim/racetrack/core/check"
)

// BenchmarkSplitPhases runs Vitess fixed C=3 ITER=2 as one replica of a
// split bfs (8 partitions, ranges of 16 chunks) on one goroutine and
// reports the time a state of each phase (what a cluster adds to the
// local search is Merge, and Advance once for each replica; Expand checks
// one key in eight, as a worker does) and the
// bytes a state a cluster publishes; the local bfs on one goroutine runs
// first, for comparison:
//
//	go test ./core/check -run '^$' -bench SplitPhases -benchtime 1x
func BenchmarkSplitPhases(b *testing.B) {
	reg := catalog.New()
	cfg := check.Config{Scenario: "vitess-messager", Preset: "lock-level", Variant: "fixed", Params: map[string]any{"clients": 3, "iterations": 2},
		Strategy: check.BFS, Reductions: check.DefaultReductions(check.BFS)}
	const parts = 8
	for range b.N {
		start := time.Now()
		x, err := check.New(reg, cfg)
		if err != nil {
			b.Fatal(err)
		}
		local := x.Run()
		localTime := time.Since(start)
		s, err := check.NewSplit(reg, cfg, parts)
		if err != nil {
			b.Fatal(err)
		}
		s.SetKeyChecks(8, 1) // as a worker checks keys
		sc := &check.Scratch{}
		var bytes int
		var expand, merge, advance time.Duration
		for {
			insts := make([][][]byte, parts)
			t0 := time.Now()
			for lo, n := 0, s.Chunks(); lo < n; lo += 16 {
				if _, err := s.Expand(sc, lo, min(n, lo+16), 256<<10, func(p int, bt []byte) error {
					insts[p] = append(insts[p], append([]byte(nil), bt...))
					bytes += len(bt)
					return nil
				}); err != nil {
					b.Fatal(err)
				}
			}
			t1 := time.Now()
			decs := make([][][]byte, parts)
			for p := range parts {
				if _, err := s.Merge(p, insts[p], 256<<10, func(bt []byte) error {
					decs[p] = append(decs[p], append([]byte(nil), bt...))
					bytes += len(bt)
					return nil
				}); err != nil {
					b.Fatal(err)
				}
			}
			t2 := time.Now()
			adv, err := s.Advance(insts, decs)
			if err != nil {
				b.Fatal(err)
			}
			expand, merge, advance = expand+t1.Sub(t0), merge+t2.Sub(t1), advance+time.Since(t2)
			if adv.Next == 0 {
				break
			}
		}
		if s.States() != local.States {
			b.Fatalf("split: %d states, local %d", s.States(), local.States)
		}
		per := func(d time.Duration) float64 { return float64(d.Nanoseconds()) / float64(local.States) }
		b.ReportMetric(per(localTime), "local-ns/state")
		b.ReportMetric(per(expand), "expand-ns/state")
		b.ReportMetric(per(merge), "merge-ns/state")
		b.ReportMetric(per(advance), "advance-ns/state")
		b.ReportMetric(float64(bytes)/float64(local.States), "B/state")
	}
}
