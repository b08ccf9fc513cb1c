package catalog_test

import (
	"runtime"
	"testing"

	"github.com/racetrack-sim/racetrack/core/catalog"
	"github.com/racetrack-sim/racetrack/core/check"
	"github.com/racetrack-sim/racetrack/core/scenario"
	"github.com/racetrack-sim/racetrack/core/timeline"
)

func liveHeap() int64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return int64(m.HeapAlloc)
}

// TestRunEstimateBoundsItsMemory records runs of every scenario, small
// and large, and measures the live heap each timeline holds: the
// estimate made before the run (timeline.EstimateBytes) and the one made
// from the recording (Timeline.Bytes) must both cover it, and must not
// overstate a large run more than fourfold (or the server's memory
// budget would refuse work it could do).
func TestRunEstimateBoundsItsMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("records runs of up to 60 000 steps")
	}
	reg := catalog.New()
	const every = timeline.DefaultSnapshotEvery / 4 // the server's
	long := 3_600_000.0
	for _, spec := range []scenario.RunSpec{
		{Scenario: "dining-philosophers"},
		{Scenario: "dining-philosophers", Params: map[string]any{"philosophers": 12.0, "meals": 100.0}, MaxTime: long},
		{Scenario: "scylla-mv-backlog", MaxTime: long},
		{Scenario: "scylla-mv-backlog", Params: map[string]any{"nodes": 16.0, "shards": 64.0, "rf": 3.0, "writeRate": 10000.0, "duration": long}, MaxSteps: 30_000, MaxTime: long},
		{Scenario: "scylla-mv-backlog", Params: map[string]any{"nodes": 8.0, "shards": 16.0, "rf": 3.0, "writeRate": 10000.0, "duration": long}, MaxSteps: 60_000, MaxTime: long},
		{Scenario: "tarantool-raft-relay", MaxSteps: 60_000, MaxTime: long},
		{Scenario: "tarantool-raft-relay", Preset: "random-elections", Params: map[string]any{"instances": 7.0, "faults": 50.0, "writeRate": 1000.0, "duration": 600_000.0}, MaxSteps: 60_000, MaxTime: long},
		{Scenario: "vitess-messager", Params: map[string]any{"clients": 8.0, "cycles": 100.0, "rowEventRate": 1000.0, "rowsPerEvent": 1000.0, "closeAt": long}, MaxTime: long},
		{Scenario: "vitess-messager", Preset: "lock-level", Params: map[string]any{"clients": 8.0, "iterations": 10.0}},
	} {
		before, err := timeline.EstimateBytes(reg, spec, every)
		if err != nil {
			t.Fatal(err)
		}
		h0 := liveHeap()
		tl, err := timeline.Record(reg, spec, timeline.Options{SnapshotEvery: every})
		if err != nil {
			t.Fatal(err)
		}
		held := liveHeap() - h0
		after := tl.Bytes()
		t.Logf("%s %v: %d steps, holds %d B; estimated %d before, %d after", spec.Scenario, spec.Params, tl.Len(), held, before, after)
		if after < held || before < held {
			t.Errorf("%s %v: the timeline holds %d bytes, more than its estimates %d (before) and %d (after)", spec.Scenario, spec.Params, held, before, after)
		}
		if held > 8<<20 && after > 4*held {
			t.Errorf("%s %v: estimate %d is over four times the %d bytes held", spec.Scenario, spec.Params, after, held)
		}
		runtime.KeepAlive(tl)
	}
}

// TestSearchEstimateBoundsItsMemory runs exhaustive searches to their
// states budget and measures what the explorer holds: the estimate made
// before the search must cover it.
func TestSearchEstimateBoundsItsMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("explores 30 000 states per search")
	}
	reg := catalog.New()
	for _, cfg := range []check.Config{
		{Scenario: "vitess-messager", Preset: "lock-level", Params: map[string]any{"clients": 8.0, "iterations": 10.0}, Strategy: check.BFS, Budget: check.Budget{States: 30_000}},
		{Scenario: "dining-philosophers", Preset: "lock-level", Params: map[string]any{"philosophers": 12.0}, Variant: "fixed", Strategy: check.DFS, Budget: check.Budget{States: 30_000}},
		{Scenario: "vitess-messager", Preset: "lock-level", Params: map[string]any{"clients": 3.0, "iterations": 2.0}, Variant: "fixed", Strategy: check.DFS, Reductions: check.DefaultReductions(check.DFS), Budget: check.Budget{States: 30_000}},
		{Scenario: "dining-philosophers", Preset: "lock-level", Params: map[string]any{"philosophers": 12.0}, Variant: "fixed", Strategy: check.BFS, Storage: check.StorageExact, Budget: check.Budget{States: 30_000}},
		{Scenario: "tarantool-raft-relay", Strategy: check.Random, Budget: check.Budget{Runs: 3}},
	} {
		h0 := liveHeap()
		x, err := check.New(reg, cfg)
		if err != nil {
			t.Fatal(err)
		}
		for !x.Step(1000).Done {
		}
		held := liveHeap() - h0
		t.Logf("%s %s: holds %d B; estimated %d (%d per state)", cfg.Scenario, cfg.Strategy, held, x.EstimateBytes(1), x.BytesPerState())
		if x.EstimateBytes(1) < held {
			t.Errorf("%s %s: the search holds %d bytes, more than its estimate %d", cfg.Scenario, cfg.Strategy, held, x.EstimateBytes(1))
		}
		runtime.KeepAlive(x)
	}
}
