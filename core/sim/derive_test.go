package sim_test

import (
	"strings"
	"testing"

	"github.com/racetrack-sim/racetrack/core/sim"
)

type leaf struct {
	Seen map[string]int
	Tags []string
}

type state struct {
	config []int // unexported: configuration, shared by copies
	Count  int
	Leaves []*leaf
	ByID   map[int]leaf
	Any    any
	Grid   [2][]int
}

func sample() *state {
	return &state{
		config: []int{7},
		Count:  1,
		Leaves: []*leaf{{Seen: map[string]int{"a": 1, "b": 2}, Tags: []string{"x"}}, nil},
		ByID:   map[int]leaf{3: {Tags: []string{"y"}}},
		Any:    &leaf{Tags: []string{"z"}},
		Grid:   [2][]int{{1}, {2, 3}},
	}
}

func fieldHash(v any) uint64 {
	h := sim.NewHasher()
	sim.HashFields(&h, v)
	return h.Sum()
}

// A derived copy hashes as its original and shares nothing mutable with
// it: writing through every reference of the original leaves the copy's
// hash unchanged. Unexported configuration is shared, as the rule says.
func TestDeepCloneIsIndependent(t *testing.T) {
	s := sample()
	c := sim.DeepClone(s)
	if fieldHash(c) != fieldHash(s) {
		t.Fatal("a derived copy hashes differently from its original")
	}
	before := fieldHash(c)
	s.Count++
	s.Leaves[0].Seen["a"] = 9
	s.Leaves[0].Tags[0] = "w"
	s.ByID[3].Tags[0] = "w"
	s.Any.(*leaf).Tags[0] = "w"
	s.Grid[1][0] = 9
	if fieldHash(c) != before {
		t.Fatal("writing the original changed its derived copy")
	}
	if fieldHash(s) == before {
		t.Fatal("HashFields missed the writes")
	}
	if &c.config[0] != &s.config[0] {
		t.Fatal("unexported configuration was copied, not shared")
	}
}

// HashFields is a function of the values: maps built in different
// orders hash the same, and every field (unexported ones too) counts;
// nil and empty, and the split of values between slices, differ.
func TestHashFieldsIsCanonical(t *testing.T) {
	a, b := sample(), sample()
	b.Leaves[0].Seen = map[string]int{}
	b.Leaves[0].Seen["b"] = 2
	b.Leaves[0].Seen["a"] = 1
	if fieldHash(a) != fieldHash(b) {
		t.Fatal("maps built in different orders hash differently")
	}
	b.config = []int{8}
	if fieldHash(a) == fieldHash(b) {
		t.Fatal("an unexported field does not count")
	}
	x := &state{Grid: [2][]int{{1, 2}, {}}}
	y := &state{Grid: [2][]int{{1}, {2}}}
	if fieldHash(x) == fieldHash(y) {
		t.Fatal("[1 2][] and [1][2] hash the same")
	}
	if fieldHash(&state{Any: (*leaf)(nil)}) == fieldHash(&state{Any: nil}) {
		t.Fatal("a typed nil and a nil interface hash the same")
	}
}

// Derivable names the unexported field that holds a reference: the copy
// would share it.
func TestDerivableNamesTheSharedField(t *testing.T) {
	err := sim.Derivable(&state{})
	if err == nil || !strings.Contains(err.Error(), "config") {
		t.Fatalf("Derivable = %v, want it to name config", err)
	}
	if err := sim.Derivable(&leaf{}); err != nil {
		t.Fatalf("Derivable(leaf) = %v", err)
	}
}

type node struct{ Next *node }

// A cycle panics with a message instead of never ending.
func TestDeriveRefusesCycles(t *testing.T) {
	n := &node{}
	n.Next = n
	for name, f := range map[string]func(){
		"DeepClone":  func() { sim.DeepClone(n) },
		"HashFields": func() { fieldHash(n) },
	} {
		func() {
			defer func() {
				if s, _ := recover().(string); !strings.Contains(s, "a cycle?") {
					t.Errorf("%s on a cycle: recovered %q", name, s)
				}
			}()
			f()
		}()
	}
}
