package cluster

import (
	"reflect"
	"testing"

	"github.com/racetrack-sim/racetrack/core/check"
)

func TestItemsRoundTrip(t *testing.T) {
	in := []item{
		{s: check.BFSState{Key: 1<<63 + 5, Depth: 3, Path: []int{0, 2, 1}, Sleep: []byte{1, 0, 0}}, order: []int{0, 4, 1}},
		{s: check.BFSState{Key: 3, Depth: 4, Path: []int{0, 2, 1, 7}, Sleep: []byte{}, Renaming: 5, Only: 1<<63 | 6}, order: []int{0, 4, 1, 0}},
		{s: check.BFSState{Key: 0, Depth: 0, Path: []int{}, Sleep: []byte{}}, order: []int{}},
		{s: check.BFSState{Key: 7, Depth: 1, Path: []int{3}, Sleep: []byte{}, Enc: "\x00\x05exact", World: []byte{1, 9, 9, 4}}, order: []int{2}},
		{s: check.BFSState{Key: 8, Depth: 1, Path: []int{3}, Sleep: []byte{}, Enc: "\x00\x05exacter", World: []byte{1, 9, 9, 5, 0}}, order: []int{3}},
		{s: check.BFSState{Key: 9, Depth: 1, Path: []int{4}, Sleep: []byte{}, World: []byte{2}}, order: []int{4}},
	}
	var alone []byte
	var b batch
	for _, it := range in {
		alone = appendItem(alone, it)
		b.add(it)
	}
	for name, enc := range map[string][]byte{"alone": alone, "batched": b.b} {
		out, err := decodeItems(enc, nil)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !reflect.DeepEqual(in, out) {
			t.Fatalf("%s: round trip %+v, want %+v", name, out, in)
		}
	}
	if len(b.b) >= len(alone) {
		t.Fatalf("a batch of states sharing prefixes takes %d bytes, %d alone", len(b.b), len(alone))
	}
}

// A batch from the wire never panics nor allocates past its bounds.
func FuzzDecodeItems(f *testing.F) {
	f.Add(appendItem(nil, item{s: check.BFSState{Key: 9, Depth: 2, Path: []int{1, 1}, Sleep: []byte{2, 0, 1}}, order: []int{3, 0}}))
	f.Add(appendItem(nil, item{s: check.BFSState{Key: 9, Depth: 2, Path: []int{1, 1}, Sleep: []byte{2, 0, 1}, Renaming: 3, Only: 5}, order: []int{3, 0}}))
	f.Add(appendItem(nil, item{s: check.BFSState{Key: 9, Depth: 2, Path: []int{1, 1}, Sleep: []byte{}, World: []byte{1, 0, 4}}, order: []int{3, 0}}))
	f.Add([]byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff})
	f.Fuzz(func(t *testing.T, b []byte) {
		items, err := decodeItems(b, nil)
		if err != nil {
			return
		}
		var again batch
		for _, it := range items {
			again.add(it)
		}
		back, err := decodeItems(again.b, nil)
		if err != nil {
			t.Fatalf("re-encoded batch does not decode: %v", err)
		}
		if !reflect.DeepEqual(items, back) {
			t.Fatalf("re-encoded batch decodes to %+v, want %+v", back, items)
		}
		if u, err := unpack(b); err == nil && len(u) > maxUnpacked {
			t.Fatalf("unpacked %d bytes, above the bound", len(u))
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
		{Kind: kindLevel, Parts: MaxParts + 1},
		{Kind: kindLevel, Parts: 4, Part: 4},
		{Kind: kindLevel, Parts: 0},
		{Kind: kindLevel, Parts: 4, Level: -1},
		{Kind: kindRuns, Lo: 5, Hi: 4},
	} {
		if bad.validate() == nil {
			t.Errorf("task %+v passes validation", bad)
		}
	}
	if err := (task{Kind: kindLevel, Parts: 8, Part: 7, Level: 3}).validate(); err != nil {
		t.Errorf("a valid task: %v", err)
	}
}

// Packed messages unpack to what was packed; one that would unpack past
// maxUnpacked is refused.
func TestPackBounds(t *testing.T) {
	var b batch
	for i := 0; i < 1000; i++ {
		b.add(item{s: check.BFSState{Key: uint64(i), Depth: 20, Path: make([]int, 20), Sleep: []byte{1, 0, 3, 16, 0}}, order: []int{i % 7, i}})
	}
	packed := pack(b.b)
	if len(packed) >= len(b.b) {
		t.Fatalf("packing %d bytes gave %d", len(b.b), len(packed))
	}
	back, err := unpack(packed)
	if err != nil || !reflect.DeepEqual(back, b.b) {
		t.Fatalf("unpack: %v", err)
	}
	if _, err := unpack(pack(make([]byte, maxUnpacked+1))); err == nil {
		t.Fatal("a message unpacking past the bound was accepted")
	}
	if _, err := unpack([]byte("not deflate")); err == nil {
		t.Fatal("garbage unpacked")
	}
}
