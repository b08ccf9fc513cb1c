package modeltest_test

import (
	"bytes"
	"compress/flate"
	"encoding/binary"
	"testing"

	"github.com/racetrack-sim/racetrack/core/catalog"
	"github.com/racetrack-sim/racetrack/core/scenario"
	"github.com/racetrack-sim/racetrack/core/sim"
)

// The state codec's figures (docs/state-codec.md): bytes per state,
// encode and decode time, decoding against rebuilding a state by
// replaying its path from the initial state (what a distributed bfs
// worker does today), and what a batch of distinct states compresses to.
//
//	go test -run XXX -bench Codec ./core/modeltest/

// codecSpecs are the states measured: Vitess lock-level fixed C=3
// ITER=2 (the distributed search's target) and three philosophers.
var codecSpecs = []struct {
	name string
	spec scenario.RunSpec
}{
	{"vitess-C3-ITER2", scenario.RunSpec{Scenario: "vitess-messager", Preset: "lock-level", Variant: "fixed",
		Params: map[string]any{"clients": int64(3), "iterations": int64(2)}}},
	{"philosophers-3", scenario.RunSpec{Scenario: "dining-philosophers", Preset: "lock-level", Variant: "buggy",
		Params: map[string]any{"philosophers": int64(3)}}},
}

// batchStates is the size of a batch of states a distributed worker
// publishes at once.
const batchStates = 10_000

// reachable returns the initial world of spec and up to n distinct
// states reachable from it, breadth first (each world's schedule is its
// path from the initial state).
func reachable(tb testing.TB, spec scenario.RunSpec, n int) (*sim.World, []*sim.World) {
	tb.Helper()
	_, _, root, err := catalog.New().Build(spec, scenario.Options{})
	if err != nil {
		tb.Fatal(err)
	}
	seen := map[uint64]bool{root.Hash(): true}
	states := []*sim.World{root}
	for next := 0; next < len(states) && len(states) < n; next++ {
		w := states[next]
		for k := range w.Ready() {
			c := w.Clone()
			c.SetChooser(&sim.ScriptChooser{Schedule: []int{k}})
			if !c.Step() {
				continue
			}
			if h := c.Hash(); !seen[h] && len(states) < n {
				seen[h] = true
				states = append(states, c)
			}
		}
	}
	return root, states
}

// midRuns returns the initial world of spec and the states half way
// through n random runs (deeper than a bfs's first levels), each with
// its path from the initial state.
func midRuns(tb testing.TB, spec scenario.RunSpec, n int) (*sim.World, []*sim.World) {
	tb.Helper()
	reg := catalog.New()
	_, _, root, err := reg.Build(spec, scenario.Options{})
	if err != nil {
		tb.Fatal(err)
	}
	var states []*sim.World
	for seed := uint64(1); seed <= uint64(n); seed++ {
		probe := root.Clone()
		probe.SetChooser(sim.NewRandomChooser(seed))
		for probe.Step() {
		}
		w := root.Clone()
		w.SetChooser(sim.NewRandomChooser(seed))
		for w.Steps() < probe.Steps()/2 && w.Step() {
		}
		states = append(states, w)
	}
	return root, states
}

// encodeAll encodes every state.
func encodeAll(tb testing.TB, codec *sim.Codec, states []*sim.World) [][]byte {
	tb.Helper()
	out := make([][]byte, len(states))
	for i, w := range states {
		enc, err := codec.Append(nil, w)
		if err != nil {
			tb.Fatal(err)
		}
		out[i] = enc
	}
	return out
}

func BenchmarkCodec(b *testing.B) {
	for _, set := range []struct {
		name string
		cs   int
		deep bool
	}{{"vitess-C3-ITER2/bfs", 0, false}, {"vitess-C3-ITER2/mid-run", 0, true}, {"philosophers-3/bfs", 1, false}} {
		cs := codecSpecs[set.cs]
		cs.name = set.name
		root, states := reachable(b, cs.spec, batchStates)
		if set.deep {
			root, states = midRuns(b, cs.spec, 1000)
		}
		codec, err := sim.NewCodec(root)
		if err != nil {
			b.Fatal(err)
		}
		encs := encodeAll(b, codec, states)
		total, depth := 0, 0
		for i, e := range encs {
			total += len(e)
			depth += states[i].Steps()
		}
		perState := float64(total) / float64(len(encs))
		b.Run(cs.name+"/encode", func(b *testing.B) {
			var buf []byte
			i := 0
			for b.Loop() {
				buf, _ = codec.Append(buf[:0], states[i%len(states)])
				i++
			}
			b.ReportMetric(perState, "bytes/state")
		})
		b.Run(cs.name+"/decode", func(b *testing.B) {
			i := 0
			for b.Loop() {
				if _, err := codec.Decode(encs[i%len(encs)]); err != nil {
					b.Fatal(err)
				}
				i++
			}
		})
		b.Run(cs.name+"/decode-into", func(b *testing.B) {
			var w *sim.World
			i := 0
			for b.Loop() {
				if w, err = codec.DecodeInto(w, encs[i%len(encs)]); err != nil {
					b.Fatal(err)
				}
				i++
			}
		})
		b.Run(cs.name+"/replay", func(b *testing.B) {
			i := 0
			for b.Loop() {
				s := states[i%len(states)]
				w := root.Snapshot()
				w.SetChooser(&sim.ScriptChooser{Schedule: s.Schedule()})
				for w.Steps() < s.Steps() && w.Step() {
				}
				i++
			}
			b.ReportMetric(float64(depth)/float64(len(states)), "steps/state")
		})
	}
}

// BenchmarkCodecBatch measures what a batch of batchStates distinct
// states (each length-prefixed) compresses to with compress/flate.
func BenchmarkCodecBatch(b *testing.B) {
	for _, cs := range codecSpecs {
		root, states := reachable(b, cs.spec, batchStates)
		codec, err := sim.NewCodec(root)
		if err != nil {
			b.Fatal(err)
		}
		var batch []byte
		for _, e := range encodeAll(b, codec, states) {
			batch = binary.AppendUvarint(batch, uint64(len(e)))
			batch = append(batch, e...)
		}
		for _, level := range []struct {
			name  string
			level int
		}{{"speed", flate.BestSpeed}, {"default", flate.DefaultCompression}} {
			b.Run(cs.name+"/flate-"+level.name, func(b *testing.B) {
				var out bytes.Buffer
				for b.Loop() {
					out.Reset()
					zw, err := flate.NewWriter(&out, level.level)
					if err != nil {
						b.Fatal(err)
					}
					zw.Write(batch)
					zw.Close()
				}
				b.ReportMetric(float64(len(batch))/float64(len(states)), "raw-bytes/state")
				b.ReportMetric(float64(out.Len())/float64(len(states)), "bytes/state")
				b.ReportMetric(float64(len(states)), "states")
			})
		}
	}
}

// TestCodecBatchRoundTrips holds the benchmarks' states to the codec:
// every state of the batch decodes to its own hash.
func TestCodecBatchRoundTrips(t *testing.T) {
	n := batchStates
	if testing.Short() {
		n = 500
	}
	for _, cs := range codecSpecs {
		root, states := reachable(t, cs.spec, n)
		codec, err := sim.NewCodec(root)
		if err != nil {
			t.Fatal(err)
		}
		for i, e := range encodeAll(t, codec, states) {
			d, err := codec.Decode(e)
			if err != nil || d.Hash() != states[i].Hash() {
				t.Fatalf("%s state %d: decoded %v, hash differs: %v", cs.name, i, d != nil, err)
			}
		}
	}
}
