package check_test

import (
	"bytes"
	"errors"
	"fmt"
	"reflect"
	"testing"

	"github.com/racetrack-sim/racetrack/core/catalog"
	"github.com/racetrack-sim/racetrack/core/check"
	"github.com/racetrack-sim/racetrack/core/check/checktest"
	"github.com/racetrack-sim/racetrack/core/scenario"
)

// splitBFS drives a split bfs as a cluster does: a coordinator's replica
// and two workers' replicas; each level's chunks cut into ranges of
// rangeChunks, expanded by the workers in turn, each partition merged by
// one of them, every replica advanced with every partition's kept list.
// Batches are cut at limit bytes. A level has parts partitions (0: a
// number that changes from level to level, as a cluster's does when
// workers join, set on every replica with SetParts).
func splitBFS(t *testing.T, reg *scenario.Registry, cfg check.Config, partsArg, rangeChunks, limit int) check.Result {
	t.Helper()
	partsAt := func(level int) int {
		if partsArg > 0 {
			return partsArg
		}
		return []int{1, 3, 2, 5, 8}[level%5]
	}
	mk := func() *check.Split {
		s, err := check.NewSplit(reg, cfg, partsAt(0))
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	coord := mk()
	workers := []*check.Split{mk(), mk()}
	scratch := []*check.Scratch{{}, {}}
	var o check.Outcome
	for {
		parts := partsAt(coord.Depth())
		for _, s := range append([]*check.Split{coord}, workers...) {
			if err := s.SetParts(parts); err != nil {
				t.Fatal(err)
			}
		}
		chunks := coord.Chunks()
		insts := make([][][]byte, parts)
		found := -1
		for r, lo := 0, 0; lo < chunks && found < 0; r, lo = r+1, lo+rangeChunks {
			w := r % len(workers)
			x, err := workers[w].Expand(scratch[w], lo, min(chunks, lo+rangeChunks), limit, func(p int, b []byte) error {
				insts[p] = append(insts[p], append([]byte(nil), b...))
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			o.Transitions += x.Transitions
			o.Depth = max(o.Depth, x.Depth)
			o.Cut = o.Cut || x.Cut
			o.Sampled = o.Sampled || x.Sampled
			if x.FoundChunk >= 0 {
				if x.FoundChunk < lo || x.FoundChunk >= lo+rangeChunks || x.Found == nil {
					t.Fatalf("a range [%d, %d) found a violation in chunk %d", lo, lo+rangeChunks, x.FoundChunk)
				}
				found = x.FoundChunk
				o.Found = x.Found
			}
		}
		if found >= 0 {
			o.States = coord.States()
			return coord.Result(o)
		}
		// The coordinator's audit expands chunks alone: an honest
		// range's instances pass it, wherever the range starts.
		for _, c := range []int{0, chunks / 2, chunks - 1} {
			if _, err := coord.CheckChunk(c, insts); err != nil {
				t.Fatalf("chunk %d of %d, ranges of %d: %v", c, chunks, rangeChunks, err)
			}
		}
		kept := make([][][]byte, parts)
		news := 0
		for p := range parts {
			m, err := workers[(p+1)%len(workers)].Merge(p, insts[p], limit, func(b []byte) error {
				kept[p] = append(kept[p], append([]byte(nil), b...))
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			news += m.New
		}
		next := -1
		for _, s := range append([]*check.Split{coord}, workers...) {
			adv, err := s.Advance(insts, kept)
			if err != nil {
				t.Fatal(err)
			}
			n, l := adv.New, adv.Next
			if n != news || (next >= 0 && l != next) {
				t.Fatalf("a replica advanced by %d new states to a level of %d; the merges said %d new, another replica %d", n, l, news, next)
			}
			next = l
		}
		o.States = coord.States()
		if next == 0 {
			o.Done = true
			return coord.Result(o)
		}
		if o.States >= coord.Config().Budget.States {
			return coord.Result(o)
		}
	}
}

// Split across replicas, ranges and partitions, a bfs is the local bfs:
// the whole result is equal, transitions included, for every bfs
// configuration, both storages, one and several partitions (and a number
// that changes from level to level), ranges of one chunk and of several,
// batches cut small and not at all (with -short,
// one of those shapes for each configuration and storage, in turn).
func TestSplitGivesTheLocalResult(t *testing.T) {
	reg := catalog.New()
	cfgs := checktest.BFSConfigs(reg)
	if len(cfgs) < 4 {
		t.Fatalf("only %d bfs configurations", len(cfgs))
	}
	shapes := [][3]int{{1, 1, 1 << 30}, {3, 1, 64}, {8, 3, 4096}, {0, 2, 1024}}
	for i, cfg := range cfgs {
		for j, storage := range check.Storages {
			cfg.Storage = storage
			local := search(t, reg, cfg)
			for k, shape := range shapes {
				if testing.Short() && k != (i+j)%len(shapes) {
					continue // one shape a configuration, each in turn
				}
				name := fmt.Sprintf("%s/%s/%s %+v %s, %d parts (0: varying), ranges of %d chunks, batches of %d bytes", cfg.Scenario, cfg.Preset, cfg.Variant, cfg.Reductions, cfg.Storage, shape[0], shape[1], shape[2])
				got := splitBFS(t, reg, cfg, shape[0], shape[1], shape[2])
				if !reflect.DeepEqual(got, local) {
					t.Fatalf("%s:\n got %+v\nlocal %+v", name, got, local)
				}
			}
		}
	}
}

// A level large enough for several waves (the local search merges each
// wave before it expands the next) still gives the local result.
func TestSplitAcrossWavesGivesTheLocalResult(t *testing.T) {
	reg := catalog.New()
	cfg := check.Config{Scenario: "vitess-messager", Preset: "lock-level", Variant: "fixed", Params: map[string]any{"clients": 3, "iterations": 1},
		Strategy: check.BFS, Reductions: check.DefaultReductions(check.BFS)}
	local := search(t, reg, cfg)
	got := splitBFS(t, reg, cfg, 4, 5, 1<<16)
	if !reflect.DeepEqual(got, local) {
		t.Fatalf("got %+v\nlocal %+v", got, local)
	}
}

// A search the state budget stops, or the depth bound cuts, stops where
// the local one does, with the same result.
func TestSplitStopsWhereTheLocalSearchStops(t *testing.T) {
	reg := catalog.New()
	base := check.Config{Scenario: "vitess-messager", Preset: "lock-level", Variant: "fixed", Params: map[string]any{"clients": 3, "iterations": 1},
		Strategy: check.BFS, Reductions: check.DefaultReductions(check.BFS)}
	budget, depth := base, base
	budget.Budget.States = 5000
	depth.Budget.Depth = 12
	for name, cfg := range map[string]check.Config{"state budget": budget, "depth bound": depth} {
		local := search(t, reg, cfg)
		got := splitBFS(t, reg, cfg, 3, 2, 1<<12)
		if !reflect.DeepEqual(got, local) {
			t.Fatalf("%s:\n got %+v\nlocal %+v", name, got, local)
		}
		if local.Exhaustive || local.States == 0 {
			t.Fatalf("%s: the local search is exhaustive (%d states): the case tests nothing", name, local.States)
		}
	}
}

// smallVitess is Vitess fixed C=2 ITER=1, whose levels are a chunk or
// two.
func smallVitess() check.Config {
	return check.Config{Scenario: "vitess-messager", Preset: "lock-level", Variant: "fixed", Params: map[string]any{"clients": 2, "iterations": 1},
		Strategy: check.BFS, Reductions: check.DefaultReductions(check.BFS)}
}

// newSmallSplit is a split of smallVitess into parts partitions.
func newSmallSplit(t testing.TB, parts int) *check.Split {
	t.Helper()
	s, err := check.NewSplit(catalog.New(), smallVitess(), parts)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// expandLevel expands the current level of s whole and returns each of
// its parts partitions' instance batches.
func expandLevel(t testing.TB, s *check.Split, parts int) [][][]byte {
	t.Helper()
	insts := make([][][]byte, parts)
	if _, err := s.Expand(nil, 0, s.Chunks(), 1<<20, func(p int, b []byte) error {
		insts[p] = append(insts[p], append([]byte(nil), b...))
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return insts
}

// Bytes no replica writes are refused with ErrSplitData, naming what is
// wrong, and change nothing.
func TestSplitRefusesMalformedBatches(t *testing.T) {
	s := newSmallSplit(t, 2)
	insts := expandLevel(t, s, 2)
	p := 0
	if len(insts[0]) == 0 {
		p = 1
	}
	good := insts[p][0]
	for name, bad := range map[string][]byte{
		"empty":                    {},
		"decisions, not instances": append([]byte{3}, good[1:]...),
		"cut short":                good[:len(good)-1],
		"other partition":          nil, // filled below
		"parent too large":         append([]byte{1, 0x80, 0x80, 0x04}, good[2:]...),
	} {
		if name == "other partition" {
			if _, err := s.Merge(1-p, [][]byte{good}, 1<<20, func([]byte) error { return nil }); !errors.Is(err, check.ErrSplitData) {
				t.Fatalf("%s: %v", name, err)
			}
			continue
		}
		if _, err := s.Merge(p, [][]byte{bad}, 1<<20, func([]byte) error { return nil }); !errors.Is(err, check.ErrSplitData) {
			t.Fatalf("%s: %v", name, err)
		}
	}
	if _, err := s.Merge(p, [][]byte{good, good}, 1<<20, func([]byte) error { return nil }); !errors.Is(err, check.ErrSplitData) {
		t.Fatalf("a batch sent twice: %v", err)
	}
	if _, err := s.Merge(p, [][]byte{good}, 1<<20, func([]byte) error { return nil }); err != nil {
		t.Fatalf("the good batch after the bad ones: %v", err)
	}
}

// SetParts refuses a number of partitions a split cannot have, naming
// the field, and keeps the one it had; instances routed under another
// number of partitions than the replica's for the level are refused.
func TestSplitSetPartsRefusesBadCounts(t *testing.T) {
	s := newSmallSplit(t, 2)
	for _, n := range []int{0, -1, check.MaxSplitParts + 1} {
		var fe *scenario.FieldError
		if err := s.SetParts(n); !errors.As(err, &fe) || fe.Field != "parts" {
			t.Fatalf("SetParts(%d): %v", n, err)
		}
		if s.Parts() != 2 {
			t.Fatalf("SetParts(%d) left %d partitions", n, s.Parts())
		}
	}
	insts := expandLevel(t, s, 2)
	if err := s.SetParts(3); err != nil {
		t.Fatal(err)
	}
	for p := range 2 {
		if len(insts[p]) == 0 {
			continue
		}
		if _, err := s.Merge(p, insts[p], 1<<20, func([]byte) error { return nil }); !errors.Is(err, check.ErrSplitData) {
			t.Fatalf("partition %d of 2 merged as one of 3: %v", p, err)
		}
		return
	}
	t.Fatal("the level sent nothing")
}

// CheckChunk takes a chunk's successors as its expansion sent them, and
// catches them dropped or sent twice.
func TestSplitCheckChunkCatchesDroppedSuccessors(t *testing.T) {
	s := newSmallSplit(t, 2)
	insts := expandLevel(t, s, 2)
	if _, err := s.CheckChunk(0, insts); err != nil {
		t.Fatalf("the honest expansion: %v", err)
	}
	for name, bad := range map[string][][][]byte{
		"dropped": {nil, nil},
		"twice":   {append(insts[0], insts[0]...), append(insts[1], insts[1]...)},
	} {
		if _, err := s.CheckChunk(0, bad); !errors.Is(err, check.ErrSplitData) {
			t.Fatalf("%s: %v", name, err)
		}
	}
}

// A successor sent under another state's key (which would have the
// visited set drop that state as seen) is caught when the next level
// rebuilds its world: ErrStateKey, with every key checked, and with one
// in three checked for some seed.
func TestSplitRefusesAForgedKey(t *testing.T) {
	forge := func(every int, seed uint64) error {
		s := newSmallSplit(t, 1)
		s.SetKeyChecks(every, seed)
		insts := expandLevel(t, s, 1)[0]
		// The first instance (kind, parent 0, successor 1, then its
		// fingerprint) takes the fingerprint of the second.
		b := insts[0]
		if b[1] != 0 || b[2] != 1 {
			t.Fatalf("the batch starts %v", b[:3])
		}
		second := bytes.Index(b[11:], []byte{0, 2}) // parent +0, successor 2
		if second < 0 {
			t.Fatal("no second successor")
		}
		copy(b[3:11], b[11+second+2:11+second+10])
		var decs [][]byte
		if _, err := s.Merge(0, insts, 1<<20, func(d []byte) error { decs = append(decs, append([]byte(nil), d...)); return nil }); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Advance([][][]byte{insts}, [][][]byte{decs}); err != nil {
			t.Fatal(err)
		}
		_, err := s.Expand(nil, 0, s.Chunks(), 1<<20, func(int, []byte) error { return nil })
		return err
	}
	if err := forge(1, 0); !errors.Is(err, check.ErrStateKey) {
		t.Fatalf("every key checked: %v", err)
	}
	caught := 0
	for seed := range uint64(12) {
		if errors.Is(forge(3, seed), check.ErrStateKey) {
			caught++
		}
	}
	if caught == 0 || caught == 12 {
		t.Fatalf("one in three checked: caught for %d of 12 seeds", caught)
	}
}

// FuzzSplitBatches feeds Merge and Advance arbitrary bytes: an error or
// a decision, never a panic.
func FuzzSplitBatches(f *testing.F) {
	s := newSmallSplit(f, 1)
	seed := expandLevel(f, s, 1)[0]
	var kept []byte
	if _, err := s.Merge(0, seed, 1<<20, func(b []byte) error { kept = append(kept, b...); return nil }); err != nil {
		f.Fatal(err)
	}
	f.Add(seed[0])
	f.Add(kept)
	f.Fuzz(func(t *testing.T, b []byte) {
		s := newSmallSplit(t, 1)
		_, _ = s.Merge(0, [][]byte{b}, 1<<20, func([]byte) error { return nil })
		_, _ = s.Advance([][][]byte{{b}}, [][][]byte{{kept}})
		_, _ = s.Advance([][][]byte{seed}, [][][]byte{{b}})
	})
}
