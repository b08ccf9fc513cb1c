package cluster

import (
	"encoding/json"
	"errors"
	"slices"
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
		{Kind: kindMerge, Parts: 4, Level: 3, PartsFrom: [][2]int{{1, 1}, {2, 4}}},         // not from level 0
		{Kind: kindMerge, Parts: 4, Level: 3, PartsFrom: [][2]int{{0, 1}, {2, 2}, {2, 4}}}, // not ascending
		{Kind: kindMerge, Parts: 4, Level: 3, PartsFrom: [][2]int{{0, 1}, {4, 4}}},         // past the task's level
		{Kind: kindMerge, Parts: 4, Level: 3, PartsFrom: [][2]int{{0, 0}, {2, 4}}},         // no partitions
		{Kind: kindMerge, Parts: 4, Level: 3, PartsFrom: [][2]int{{0, 1}, {2, 2}}},         // not the task's Parts
		{Kind: kindMerge, Parts: 4, Level: 3, PartsFrom: [][2]int{{0, 1}, {2, MaxParts + 1}}},
		{Kind: kindExpand, Parts: 1, Level: maxPartsSteps + 1, Lo: 0, Hi: 1, PartsFrom: manySteps(maxPartsSteps + 1)},
	} {
		if bad.validate() == nil {
			t.Errorf("task %+v passes validation", bad)
		}
	}
	for _, good := range []task{
		{Kind: kindMerge, Parts: 8, Part: 7, Level: 3},
		{Kind: kindExpand, Parts: 8, Level: 3, Index: 2, Lo: 4, Hi: 9},
		{Kind: kindMerge, Parts: 4, Part: 3, Level: 3, PartsFrom: [][2]int{{0, 1}, {2, 4}}},
		{Kind: kindExpand, Parts: 1, Level: maxPartsSteps, Lo: 0, Hi: 1, PartsFrom: manySteps(maxPartsSteps)},
	} {
		if err := good.validate(); err != nil {
			t.Errorf("a valid task %+v: %v", good, err)
		}
	}
}

// manySteps is n changes of partitions, one a level from level 0, the
// last to 1.
func manySteps(n int) [][2]int {
	out := make([][2]int, n)
	for i := range out {
		out[i] = [2]int{i, n - i}
	}
	return out
}

// A task's level has the partitions of the last change at or before it.
func TestTaskPartsAt(t *testing.T) {
	tk := task{Parts: 8, Level: 9, PartsFrom: [][2]int{{0, 1}, {3, 2}, {7, 8}}}
	for level, want := range []int{1, 1, 1, 2, 2, 2, 2, 8, 8, 8} {
		if got := tk.partsAt(level); got != want {
			t.Errorf("level %d: %d partitions, want %d", level, got, want)
		}
	}
	if got := (task{Parts: 5}).partsAt(3); got != 5 {
		t.Errorf("a task without changes: %d partitions at level 3, want its Parts, 5", got)
	}
}

// A level's partitions follow the workers heard from in the level
// before, rounded up to a power of two, capped at Options.Parts, never
// fewer than the level before's; a level's are decided once, and the
// history records only changes.
func TestPartsFollowTheWorkers(t *testing.T) {
	s := &bfsSearch{maxParts: 8, heard: map[string]int{}}
	hear := func(level int, names ...string) {
		for _, n := range names {
			s.heard[n] = level
		}
	}
	steps := []struct {
		level int
		heard []string // at the level before
		want  int
	}{
		{0, nil, 1},
		{1, []string{"a"}, 1},
		{2, []string{"a", "b", "c"}, 4},
		{3, []string{"a"}, 4}, // b and c not heard at level 2: still 4
		{4, []string{"a", "b", "c", "d", "e"}, 8},
		{5, []string{"a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l", "m", "n", "o", "p", "q"}, 8}, // capped
	}
	for _, st := range steps {
		hear(st.level-1, st.heard...)
		if got := s.setParts(st.level); got != st.want {
			t.Fatalf("level %d: %d partitions, want %d", st.level, got, st.want)
		}
		hear(st.level, "x", "y", "z", "w", "v") // heard after the level's partitions were decided
		if got := s.setParts(st.level); got != st.want {
			t.Fatalf("level %d decided again: %d partitions, want %d", st.level, got, st.want)
		}
		delete(s.heard, "x")
		delete(s.heard, "y")
		delete(s.heard, "z")
		delete(s.heard, "w")
		delete(s.heard, "v")
	}
	want := [][2]int{{0, 1}, {2, 4}, {4, 8}}
	if !slices.Equal(s.partsFrom, want) {
		t.Fatalf("changes %v, want %v", s.partsFrom, want)
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

// A task off the queue is outside input: whatever JSON arrives, a task
// that passes validation names partitions within bounds at every level
// up to its own, its own level's being Parts, and its partition one of
// them.
func FuzzTaskValidate(f *testing.F) {
	for _, s := range []string{
		`{"kind":"bfs-merge","parts":4,"part":3,"level":3,"parts_from":[[0,1],[2,4]]}`,
		`{"kind":"bfs-expand","parts":2,"level":1,"lo":0,"hi":2,"parts_from":[[0,1],[1,2]]}`,
		`{"kind":"bfs-merge","parts":4,"level":3,"parts_from":[[1,1],[2,4]]}`,
		`{"kind":"bfs-merge","parts":4,"level":3,"parts_from":[[0,1],[2,2]]}`,
		`{"kind":"bfs-merge","parts":1,"level":2000000000,"parts_from":[[0,1]]}`,
		`{"kind":"runs","lo":0,"hi":5}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var tk task
		if json.Unmarshal(data, &tk) != nil || tk.validate() != nil || tk.Kind == kindRuns {
			return
		}
		if len(tk.PartsFrom) > maxPartsSteps {
			t.Fatalf("%s: %d changes passed", data, len(tk.PartsFrom))
		}
		if tk.partsAt(tk.Level) != tk.Parts || tk.Part < 0 || tk.Part >= tk.Parts {
			t.Fatalf("%s: part %d of %d, %d partitions at its level", data, tk.Part, tk.Parts, tk.partsAt(tk.Level))
		}
		for _, st := range tk.PartsFrom {
			for _, l := range []int{st[0], max(st[0]-1, 0)} {
				if p := tk.partsAt(l); p < 1 || p > MaxParts {
					t.Fatalf("%s: %d partitions at level %d", data, p, l)
				}
			}
		}
	})
}
