package cluster

import (
	"reflect"
	"testing"

	"github.com/racetrack-sim/racetrack/core/check"
)

func TestItemsRoundTrip(t *testing.T) {
	in := []item{
		{s: check.BFSState{Key: 1<<63 + 5, Depth: 3, Path: []int{0, 2, 1}, Sleep: []byte{1, 0, 0}}, order: []int{0, 4, 1}},
		{s: check.BFSState{Key: 0, Depth: 0, Path: []int{}, Sleep: []byte{}}, order: []int{}},
		{s: check.BFSState{Key: 7, Depth: 1, Path: []int{3}, Sleep: []byte{}, Enc: "\x00\x05exact"}, order: []int{2}},
	}
	var b []byte
	for _, it := range in {
		b = appendItem(b, it)
	}
	out, err := decodeItems(b, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(in, out) {
		t.Fatalf("round trip: %+v, want %+v", out, in)
	}
}

// A batch from the wire never panics nor allocates past its bounds.
func FuzzDecodeItems(f *testing.F) {
	f.Add(appendItem(nil, item{s: check.BFSState{Key: 9, Depth: 2, Path: []int{1, 1}, Sleep: []byte{2, 0, 1}}, order: []int{3, 0}}))
	f.Add([]byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff})
	f.Fuzz(func(t *testing.T, b []byte) {
		items, err := decodeItems(b, nil)
		if err != nil {
			return
		}
		var again []byte
		for _, it := range items {
			again = appendItem(again, it)
		}
		if _, err := decodeItems(again, nil); err != nil {
			t.Fatalf("re-encoded batch does not decode: %v", err)
		}
		_ = decodeSeen(b, newVisitedSet(false))
		_ = decodeSeen(b, newVisitedSet(true))
	})
}

// Visited-set increments round-trip, by fingerprint and by encoding.
func TestSeenRoundTrip(t *testing.T) {
	for _, exact := range []bool{false, true} {
		in := newVisitedSet(exact)
		in.put(5, "b", 3)
		in.put(2, "a", 0)
		in.put(9, "c", 1<<63)
		var b []byte
		for _, e := range in.entries() {
			b = appendSeen(b, e.key, e.mask, e.enc)
		}
		out := newVisitedSet(exact)
		if err := decodeSeen(b, out); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(in, out) {
			t.Fatalf("exact %v: round trip %+v, want %+v", exact, out, in)
		}
	}
}

func TestTaskValidateBoundsParts(t *testing.T) {
	for _, bad := range []task{
		{Kind: kindExpand, Parts: MaxParts + 1},
		{Kind: kindMerge, Parts: 4, Part: 4},
		{Kind: kindMerge, Parts: 0},
		{Kind: kindExpand, Parts: 4, Level: -1},
		{Kind: kindRuns, Lo: 5, Hi: 4},
	} {
		if bad.validate() == nil {
			t.Errorf("task %+v passes validation", bad)
		}
	}
	if err := (task{Kind: kindMerge, Parts: 8, Part: 7, Level: 3}).validate(); err != nil {
		t.Errorf("a valid task: %v", err)
	}
}
