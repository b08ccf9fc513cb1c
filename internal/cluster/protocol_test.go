package cluster

import (
	"errors"
	"strings"
	"testing"

	"github.com/nats-io/nats.go/jetstream"
)

func TestTaskValidateBoundsParts(t *testing.T) {
	for _, bad := range []task{
		{Kind: kindMerge, Parts: MaxParts + 1},
		{Kind: kindMerge, Parts: 4, Part: 4},
		{Kind: kindMerge, Parts: 0},
		{Kind: kindMerge, Parts: 4, Level: -1},
		{Kind: kindExpand, Parts: 4, Lo: 3, Hi: 3},
		{Kind: kindExpand, Parts: 4, Lo: -1, Hi: 3},
		{Kind: kindExpand, Parts: 4, Lo: 0, Hi: 3, Index: maxLevelRanges},
		{Kind: kindRuns, Lo: 5, Hi: 4},
	} {
		if bad.validate() == nil {
			t.Errorf("task %+v passes validation", bad)
		}
	}
	for _, good := range []task{
		{Kind: kindMerge, Parts: 8, Part: 7, Level: 3},
		{Kind: kindExpand, Parts: 8, Level: 3, Index: 2, Lo: 4, Hi: 9},
	} {
		if err := good.validate(); err != nil {
			t.Errorf("a valid task %+v: %v", good, err)
		}
	}
}

// A level's batches are filed by their subjects, in (range, batch)
// order; a subject no task publishes to is refused as malformed data.
func TestLevelDataFilesBatchesBySubject(t *testing.T) {
	d := newLevelData("s1", 2, 3)
	for _, m := range []struct{ subject, data string }{
		{instSubject("s1", 2, 1, 1, 0), "r1b0"},
		{instSubject("s1", 2, 1, 0, 1), "r0b1"},
		{instSubject("s1", 2, 1, 0, 0), "r0b0"},
		{instSubject("s1", 2, 1, 10, 0), "r10b0"},
		{decSubject("s1", 2, 2, 1), "d1"},
		{decSubject("s1", 2, 2, 0), "d0"},
	} {
		if err := d.add(m.subject, []byte(m.data)); err != nil {
			t.Fatal(err)
		}
	}
	d.sort()
	want := []string{"r0b0", "r0b1", "r1b0", "r10b0"}
	for i, b := range d.insts[1] {
		if string(b) != want[i] {
			t.Fatalf("partition 1's instances: batch %d is %q, want %q", i, b, want[i])
		}
	}
	if len(d.decs[2]) != 2 || string(d.decs[2][0]) != "d0" || string(d.decs[2][1]) != "d1" {
		t.Fatalf("partition 2's decisions: %q", d.decs[2])
	}
	if r := d.rangeInsts(0); len(r[1]) != 2 || string(r[1][0]) != "r0b0" || string(r[1][1]) != "r0b1" || len(r[0]) != 0 || len(r[2]) != 0 {
		t.Fatalf("range 0's instances: %q", r)
	}
	if r := d.rangeInsts(10); len(r[1]) != 1 || string(r[1][0]) != "r10b0" {
		t.Fatalf("range 10's instances: %q", r)
	}
	for _, bad := range []string{
		instSubject("s1", 3, 1, 0, 0), // another level
		instSubject("s1", 2, 3, 0, 0), // no partition 3
		"rt.bfs.s1.seen.2.1",
		"rt.bfs.s1.inst.2.1.0",
		"rt.bfs.s1.inst.2.1.x.0",
		"rt.bfs.s1.dec.2.1.-1",
		"rt.bfs.s2.inst.2.1.0.0",
	} {
		if err := d.add(bad, nil); !errors.Is(err, errBadBatch) {
			t.Errorf("%s: %v", bad, err)
		}
	}
}

// keptPublisher is a JetStream that keeps what is published to it, as an
// asynchronous publication does until it is acknowledged.
type keptPublisher struct {
	jetstream.JetStream
	kept [][]byte
}

func (k *keptPublisher) PublishAsync(subject string, data []byte, _ ...jetstream.PublishOpt) (jetstream.PubAckFuture, error) {
	k.kept = append(k.kept, data)
	return nil, nil
}

// A batch's memory is reused by Split once the publisher returns, and an
// asynchronous publication is sent again from the bytes it was given if
// no server answered: the publisher must hand JetStream its own copy.
func TestPublisherKeepsItsOwnCopy(t *testing.T) {
	js := &keptPublisher{}
	p := &publisher{w: &Worker{js: js}}
	buf := []byte("first batch")
	if err := p.publish("rt.bfs.x.inst.0.0.0.0", buf); err != nil {
		t.Fatal(err)
	}
	copy(buf, "second batc")
	if got := string(js.kept[0]); got != "first batch" {
		t.Fatalf("the publication holds %q after its batch's memory was reused", got)
	}
}

// A level has two ranges for each worker heard from in the level before,
// between one and maxLevelRanges, of minRangeChunks chunks or more, and
// its ranges cover its chunks once, in order.
func TestExpandTasksFollowTheWorkers(t *testing.T) {
	for _, c := range []struct{ chunks, workers, want int }{
		{400, 0, maxLevelRanges}, // nobody heard from yet
		{400, 1, 2},
		{400, 2, 4},
		{400, 100, maxLevelRanges},
		{9, 8, 2}, // 9 chunks make two ranges of minRangeChunks or more
		{3, 2, 1},
	} {
		tasks := expandTasks(7, c.chunks, c.workers)
		if len(tasks) != c.want {
			t.Errorf("%d chunks, %d workers: %d ranges, want %d", c.chunks, c.workers, len(tasks), c.want)
		}
		next := 0
		for i, tk := range tasks {
			if tk.Kind != kindExpand || tk.Level != 7 || tk.Index != i || tk.Lo != next || tk.Hi <= tk.Lo {
				t.Fatalf("%d chunks, %d workers: task %d is %+v after chunk %d", c.chunks, c.workers, i, tk, next)
			}
			next = tk.Hi
		}
		if next != c.chunks {
			t.Errorf("%d chunks, %d workers: the ranges end at chunk %d", c.chunks, c.workers, next)
		}
	}
	s := &bfsSearch{heard: map[string]int{"a": 4, "b": 5, "c": 5, "d": 2}}
	if n := s.workers(6); n != 2 {
		t.Errorf("%d workers heard from at level 5, want 2 (b, c)", n)
	}
	if n := s.workers(5); n != 3 {
		t.Errorf("%d workers heard from at levels 4 and on, want 3", n)
	}
}

// TestCoordinatorRefusesTooManyParts: Options.Parts over MaxParts is an
// error naming it, not a smaller number taken in its place.
func TestCoordinatorRefusesTooManyParts(t *testing.T) {
	_, err := NewCoordinator(nil, nil, Options{Parts: MaxParts + 1})
	if err == nil || !strings.Contains(err.Error(), "Options.Parts is 1025") {
		t.Fatalf("NewCoordinator with %d parts: %v", MaxParts+1, err)
	}
}
