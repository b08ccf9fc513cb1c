package check_test

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"testing"

	"github.com/racetrack-sim/racetrack/core/catalog"
	"github.com/racetrack-sim/racetrack/core/check"
	"github.com/racetrack-sim/racetrack/core/check/checktest"
	"github.com/racetrack-sim/racetrack/core/scenario"
)

// item is a state of the driver below with its index path.
type item struct {
	s     check.BFSState
	order []int
}

// partitionedBFS drives an Expander as a distributed search would: parts
// visited sets chosen by fingerprint, each level expanded in index-path
// order and its successors admitted by their owner in that order. With
// encoded, states travel as their encoded worlds (EncodeStates): each is
// decoded, never replayed.
func partitionedBFS(t *testing.T, reg *scenario.Registry, cfg check.Config, parts int, encoded bool) check.Result {
	t.Helper()
	e, err := check.NewExpander(reg, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if encoded {
		if err := e.EncodeStates(); err != nil {
			t.Fatal(err)
		}
	}
	owner := func(k uint64) int { return int((k >> 32) * uint64(parts) >> 32) }
	visited := make([]map[string]uint64, parts)
	for i := range visited {
		visited[i] = map[string]uint64{}
	}
	key := func(s check.BFSState) string { // exact storage keys on the encoding
		if e.Exact() {
			return s.Enc
		}
		return strconv.FormatUint(s.Key, 16)
	}
	var sc *check.Scratch
	if encoded {
		sc = &check.Scratch{} // reused from state to state
	}
	root := e.Root()
	visited[owner(root.Key)][key(root)] = 0
	level := []item{{s: root}}
	o := check.Outcome{States: 1}
	for depth := 0; ; depth++ {
		o.Depth = depth
		var next []item
		for _, it := range level {
			i := 0
			if encoded && it.s.World == nil {
				t.Fatalf("a state of depth %d travels without its world", it.s.Depth)
			}
			x, err := e.ExpandWith(sc, it.s, func(s check.BFSState) {
				next = append(next, item{s: s, order: append(slices.Clone(it.order), i)})
				i++
			})
			if err != nil {
				t.Fatal(err)
			}
			o.Transitions += x.Transitions
			o.Cut = o.Cut || x.Cut
			if x.Found != nil {
				o.Found = x.Found
				return e.Result(o)
			}
		}
		slices.SortStableFunc(next, func(a, b item) int { return slices.Compare(a.order, b.order) })
		level = level[:0]
		for _, it := range next {
			v := visited[owner(it.s.Key)]
			stored, seen := v[key(it.s)]
			mask, s, keep, err := e.Admit(stored, seen, it.s)
			if err != nil {
				t.Fatal(err)
			}
			if !keep {
				continue
			}
			if !seen {
				o.States++
			}
			v[key(it.s)] = mask
			level = append(level, item{s: s, order: it.order})
		}
		if len(level) == 0 {
			o.Done = true
			return e.Result(o)
		}
		if o.States >= e.Config().Budget.States {
			return e.Result(o)
		}
	}
}

// Partitioned by fingerprint, a bfs finds what the local bfs finds: the
// verdict, the states stored (also when it stops at a violation), the
// counterexample.
func TestExpanderPartitionedGivesTheLocalAnswer(t *testing.T) {
	reg := catalog.New()
	cfgs := checktest.BFSConfigs(reg)
	if len(cfgs) < 4 {
		t.Fatalf("only %d bfs configurations", len(cfgs))
	}
	for _, cfg := range cfgs {
		for _, storage := range check.Storages {
			cfg.Storage = storage
			expanderMatchesLocal(t, reg, cfg)
		}
	}
}

// expanderMatchesLocal compares partitioned and local bfs answers: the
// verdict, the states, the counterexample and the omission bound.
func expanderMatchesLocal(t *testing.T, reg *scenario.Registry, cfg check.Config) {
	t.Helper()
	local := search(t, reg, cfg)
	for _, parts := range []int{1, 3} {
		encoded := parts == 3 // states decoded, not replayed
		name := fmt.Sprintf("%s/%s/%s %+v %s, %d parts, encoded %v", cfg.Scenario, cfg.Preset, cfg.Variant, cfg.Reductions, cfg.Storage, parts, encoded)
		got := partitionedBFS(t, reg, cfg, parts, encoded)
		if got.Verdict != local.Verdict || got.Found != local.Found || got.Length != local.Length || got.Exhaustive != local.Exhaustive {
			t.Fatalf("%s: %s length %d; local %s length %d", name, got.Verdict, got.Length, local.Verdict, local.Length)
		}
		if got.States != local.States || got.OmissionProbability != local.OmissionProbability {
			t.Fatalf("%s: %d states (omission %g); local %d (%g)", name, got.States, got.OmissionProbability, local.States, local.OmissionProbability)
		}
		if local.Found && !slices.Equal(got.Counterexample.Schedule, local.Counterexample.Schedule) {
			t.Fatalf("%s: counterexample %v; local %v", name, got.Counterexample.Schedule, local.Counterexample.Schedule)
		}
	}
}

// A state from the wire whose renaming names no symmetry of the model
// is refused, not indexed with.
func TestExpanderRefusesAnUnknownRenaming(t *testing.T) {
	cfg := check.Config{Scenario: "vitess-messager", Preset: "lock-level", Variant: "fixed", Params: map[string]any{"clients": 3, "iterations": 1},
		Strategy: check.BFS, Reductions: check.DefaultReductions(check.BFS)}
	e, err := check.NewExpander(catalog.New(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	root := e.Root()
	for _, r := range []int{5, 0} { // 3 clients: the identity and 5 renamings
		s := root
		s.Renaming = r
		if _, _, _, err := e.Admit(0, true, s); err != nil {
			t.Fatalf("renaming %d: %v", r, err)
		}
	}
	for _, r := range []int{6, -1, 1 << 15} {
		s := root
		s.Renaming = r
		if _, _, _, err := e.Admit(0, true, s); err == nil {
			t.Fatalf("renaming %d admitted", r)
		}
	}
}

// encodedRoot is an Expander of smallVitess that encodes states, and the
// initial state's successors.
func encodedRoot(t *testing.T) (*check.Expander, []check.BFSState) {
	t.Helper()
	e, err := check.NewExpander(catalog.New(), smallVitess())
	if err != nil {
		t.Fatal(err)
	}
	if err := e.EncodeStates(); err != nil {
		t.Fatal(err)
	}
	var succs []check.BFSState
	if _, err := e.Expand(e.Root(), func(s check.BFSState) { succs = append(succs, s) }); err != nil {
		t.Fatal(err)
	}
	return e, succs
}

// ExpandSkipping asks about each successor before encoding it: the ones
// skip refuses are neither encoded nor emitted, the others are emitted
// as Expand emits them, world included.
func TestExpanderSkipsBeforeEncoding(t *testing.T) {
	e, all := encodedRoot(t)
	if len(all) < 2 {
		t.Fatalf("the initial state has %d successors", len(all))
	}
	asked := 0
	var kept []check.BFSState
	_, err := e.ExpandSkipping(nil, e.Root(), func(s check.BFSState) bool {
		if s.World != nil {
			t.Fatal("skip was asked about a successor already encoded")
		}
		asked++
		return s.Key == all[0].Key
	}, func(s check.BFSState) { kept = append(kept, s) })
	if err != nil {
		t.Fatal(err)
	}
	if asked != len(all) || len(kept) != len(all)-1 {
		t.Fatalf("asked about %d successors, kept %d; the state has %d", asked, len(kept), len(all))
	}
	for i, s := range kept {
		if want := all[i+1]; s.Key != want.Key || string(s.World) != string(want.World) || !slices.Equal(s.Path, want.Path) {
			t.Fatalf("successor %d: %+v, want %+v", i, s, want)
		}
	}
}

// A state whose world is not the one its fingerprint names (a worker's
// junk world sent under the key of a reachable state, so that its owner
// would drop the real one as seen) is refused before it is expanded,
// whether it travels as a world or as a path; the honest one expands.
func TestExpanderRefusesAWorldUnderAnotherKey(t *testing.T) {
	e, succs := encodedRoot(t)
	if len(succs) < 2 || succs[0].Key == succs[1].Key {
		t.Fatalf("the initial state has %d successors, want two distinct", len(succs))
	}
	for _, asPath := range []bool{false, true} {
		honest, forged := succs[0], succs[0]
		forged.Key, forged.Enc = succs[1].Key, succs[1].Enc
		if asPath {
			honest.World, forged.World = nil, nil
		}
		if _, err := e.Expand(honest, func(check.BFSState) {}); err != nil {
			t.Fatalf("as path %v: the honest state: %v", asPath, err)
		}
		if _, err := e.Expand(forged, func(check.BFSState) {}); !errors.Is(err, check.ErrStateKey) {
			t.Fatalf("as path %v: a world under another state's key expanded: %v", asPath, err)
		}
	}
}
