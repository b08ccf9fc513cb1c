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

// BenchmarkSplitReplica is what a replica costs a state: a new replica
// advanced through every level of Vitess fixed C=3 ITER=2 (the levels'
// batches made once, before the timer), as every worker process and the
// coordinator of a distributed bfs advance theirs.
func BenchmarkSplitReplica(b *testing.B) {
	reg := catalog.New()
	cfg := check.Config{Scenario: "vitess-messager", Preset: "lock-level", Variant: "fixed", Params: map[string]any{"clients": 3, "iterations": 2},
		Strategy: check.BFS, Reductions: check.DefaultReductions(check.BFS)}
	const parts = 8
	s, err := check.NewSplit(reg, cfg, parts)
	if err != nil {
		b.Fatal(err)
	}
	type level struct{ insts, decs [][][]byte }
	var levels []level
	keep := func(dst *[][]byte) func([]byte) error {
		return func(bt []byte) error { *dst = append(*dst, append([]byte(nil), bt...)); return nil }
	}
	for {
		l := level{make([][][]byte, parts), make([][][]byte, parts)}
		if _, err := s.Expand(nil, 0, s.Chunks(), 256<<10, func(p int, bt []byte) error { return keep(&l.insts[p])(bt) }); err != nil {
			b.Fatal(err)
		}
		for p := range parts {
			if _, err := s.Merge(p, l.insts[p], 256<<10, keep(&l.decs[p])); err != nil {
				b.Fatal(err)
			}
		}
		levels = append(levels, l)
		adv, err := s.Advance(l.insts, l.decs)
		if err != nil {
			b.Fatal(err)
		}
		if adv.Next == 0 {
			break
		}
	}
	states := s.States()
	b.ResetTimer()
	for range b.N {
		r, err := check.NewSplit(reg, cfg, parts)
		if err != nil {
			b.Fatal(err)
		}
		for _, l := range levels {
			if _, err := r.Advance(l.insts, l.decs); err != nil {
				b.Fatal(err)
			}
		}
		if r.States() != states {
			b.Fatalf("replica: %d states, not %d", r.States(), states)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(states), "ns/state")
}
