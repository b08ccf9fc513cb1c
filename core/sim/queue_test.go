package sim

import (
	"math/rand/v2"
	"testing"
)

// TestQueueRemoveKeepsTheOrder removes events from the middle of the heap
// (as next does with the one chosen among ties) and checks that the rest
// still pop in (time, seq) order.
func TestQueueRemoveKeepsTheOrder(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for round := 0; round < 200; round++ {
		var q eventQueue
		n := 1 + rng.IntN(40)
		for i := 0; i < n; i++ {
			q.push(Event{At: Time(rng.IntN(4)), seq: uint64(i)})
		}
		removed := map[uint64]bool{}
		for k := rng.IntN(n); k > 0; k-- {
			e := q.remove(rng.IntN(len(q)))
			if removed[e.seq] {
				t.Fatalf("round %d: event %d removed twice", round, e.seq)
			}
			removed[e.seq] = true
		}
		var last Event
		for i := 0; len(q) > 0; i++ {
			e := q.pop()
			if removed[e.seq] {
				t.Fatalf("round %d: removed event %d popped", round, e.seq)
			}
			if i > 0 && (e.At < last.At || e.At == last.At && e.seq < last.seq) {
				t.Fatalf("round %d: popped (%d, %d) after (%d, %d)", round, e.At, e.seq, last.At, last.seq)
			}
			last = e
			removed[e.seq] = true
		}
		if len(removed) != n {
			t.Fatalf("round %d: %d of %d events seen", round, len(removed), n)
		}
	}
}
