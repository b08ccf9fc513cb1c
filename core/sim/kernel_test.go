package sim_test

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/racetrack-sim/racetrack/core/sim"
)

// script is a model of threads whose steps come from a table: each thread
// runs its actions in order, then exits.
type script struct {
	mutexes []string
	kind    sim.MutexKind // of every mutex
	conds   []string      // cond i uses mutex 0
	threads [][]sim.Action
	timed   bool
	ids     []sim.ProcID
}

func (s *script) Init(w *sim.World) {
	w.SetUntimed(!s.timed)
	n := w.AddNode("n")
	for _, m := range s.mutexes {
		w.AddMutexKind(n, m, s.kind)
	}
	for _, c := range s.conds {
		w.AddCond(0, c)
	}
	for i := range s.threads {
		s.ids = append(s.ids, w.AddThread(n, -1, "t"+string(rune('0'+i)), 0))
	}
}

func (s *script) Handle(w *sim.World, p *sim.Proc, _ *sim.Event) sim.Action {
	prog := s.threads[p.ID]
	if p.PC >= len(prog) {
		return sim.Exit("exit")
	}
	a := prog[p.PC]
	p.PC++
	return a
}

func (s *script) Properties() []sim.Property { return []sim.Property{sim.NoDeadlock()} }
func (s *script) Clone() sim.Model           { c := *s; return &c }
func (s *script) Hash(*sim.Hasher)           {}

func run(t *testing.T, m sim.Model, ch sim.Chooser) *sim.World {
	t.Helper()
	w := sim.NewWorld(m, 1, ch, sim.Options{Trace: true})
	if err := w.Run(sim.Limits{MaxSteps: 10_000}); err != nil {
		t.Fatal(err)
	}
	return w
}

func TestLockCycleIsReportedWithHoldersAndWaiters(t *testing.T) {
	m := &script{mutexes: []string{"mu", "streamMu"}, threads: [][]sim.Action{
		{sim.Lock(0, "lock mu"), sim.Lock(1, "lock streamMu"), sim.Unlock(1, ""), sim.Unlock(0, "")},
		{sim.Lock(1, "lock streamMu"), sim.Lock(0, "lock mu"), sim.Unlock(0, ""), sim.Unlock(1, "")},
	}}
	// t0 locks mu, t1 locks streamMu, t0 blocks, t1 blocks: choices 0,1,0.
	w := run(t, m, &sim.ScriptChooser{Schedule: []int{0, 0, 0}})
	v := w.Violations()
	if len(v) != 1 || v[0].Property != sim.NoDeadlockName {
		t.Fatalf("violations %+v, want one no-deadlock", v)
	}
	// The cycle is told from the thread whose block closed it.
	want := "t1 holds streamMu, waits for mu; t0 holds mu, waits for streamMu"
	if v[0].Message != want {
		t.Fatalf("message %q, want %q", v[0].Message, want)
	}
	if v[0].Step != 3 {
		t.Fatalf("violation at step %d, want 3 (the second block)", v[0].Step)
	}
	if w.Stop() != sim.StopQuiescent {
		t.Fatalf("stop %s, want quiescent", w.Stop())
	}
}

func TestMutexHandsOverInFIFOOrder(t *testing.T) {
	m := &script{mutexes: []string{"mu"}, threads: [][]sim.Action{
		{sim.Lock(0, "a"), sim.Local("work", 0), sim.Unlock(0, "a")},
		{sim.Lock(0, "b"), sim.Unlock(0, "b")},
		{sim.Lock(0, "c"), sim.Unlock(0, "c")},
	}}
	// t0 locks; t1 then t2 block; then the rest in order.
	w := run(t, m, sim.NewReplayChooser([]int{0, 0, 1}, sim.FirstChooser{}))
	tr := w.Trace()
	var acquired []sim.ProcID
	for i := 0; i < tr.Len(); i++ {
		if s := tr.Step(i); s.Kind == sim.StepLock {
			acquired = append(acquired, s.Proc)
			if i > 0 && s.Parent < 0 && len(acquired) > 1 {
				t.Fatalf("acquire at step %d has no causal parent", i)
			}
		}
	}
	if len(acquired) != 3 || acquired[0] != 0 || acquired[1] != 1 || acquired[2] != 2 {
		t.Fatalf("acquisition order %v, want [0 1 2]", acquired)
	}
	if len(w.Violations()) != 0 {
		t.Fatalf("unexpected violations %v", w.Violations())
	}
}

func TestCondWaitReleasesAndReacquires(t *testing.T) {
	m := &script{mutexes: []string{"mu"}, conds: []string{"cond"}, threads: [][]sim.Action{
		{sim.Lock(0, "lock"), sim.Wait(0, "wait"), sim.Unlock(0, "unlock")},
		{sim.Lock(0, "lock"), sim.Broadcast(0, "broadcast"), sim.Unlock(0, "unlock")},
	}}
	w := run(t, m, sim.FirstChooser{})
	if len(w.Violations()) != 0 || w.Stop() != sim.StopQuiescent {
		t.Fatalf("violations %v stop %s", w.Violations(), w.Stop())
	}
	for _, p := range w.Procs() {
		if p.Status != sim.Done {
			t.Fatalf("%s ended %s, want done", p.Name, p.Status)
		}
	}
}

func TestWaiterWithNoSignalIsStuckAtTheEnd(t *testing.T) {
	m := &script{mutexes: []string{"mu"}, conds: []string{"cond"}, threads: [][]sim.Action{
		{sim.Lock(0, "lock"), sim.Wait(0, "wait"), sim.Unlock(0, "unlock")},
	}}
	w := run(t, m, sim.FirstChooser{})
	v := w.Violations()
	if len(v) != 1 || !strings.Contains(v[0].Message, "t0 waits on cond with no one left to signal") {
		t.Fatalf("violations %+v", v)
	}
}

func TestModelErrorsStopTheRun(t *testing.T) {
	m := &script{mutexes: []string{"mu"}, threads: [][]sim.Action{{sim.Unlock(0, "unlock")}}}
	w := sim.NewWorld(m, 1, sim.FirstChooser{}, sim.Options{})
	err := w.Run(sim.Limits{})
	if !errors.Is(err, sim.ErrModel) || !strings.Contains(err.Error(), "t0 unlocks mu, which it does not hold") {
		t.Fatalf("err %v", err)
	}
}

func TestScheduleThatDoesNotFitIsAnError(t *testing.T) {
	m := &script{mutexes: []string{"mu"}, threads: [][]sim.Action{{sim.Local("a", 0)}, {sim.Local("b", 0)}}}
	w := sim.NewWorld(m, 1, sim.NewReplayChooser([]int{5}, sim.FirstChooser{}), sim.Options{})
	err := w.Run(sim.Limits{})
	if !errors.Is(err, sim.ErrScheduleMismatch) || !strings.Contains(err.Error(), "is 5, but only 2 options exist") {
		t.Fatalf("err %v", err)
	}
}

func TestReplayReproducesTheRunExactly(t *testing.T) {
	for seed := uint64(1); seed <= 20; seed++ {
		mk := func() sim.Model {
			return &pingPong{limit: 50, link: sim.Link{Min: sim.Millisecond, Max: 5 * sim.Millisecond, Drop: 0.1, Dup: 0.1, Res: sim.Millisecond}}
		}
		a := sim.NewWorld(mk(), seed, sim.NewRandomChooser(seed), sim.Options{Trace: true})
		if err := a.Run(sim.Limits{}); err != nil {
			t.Fatal(err)
		}
		// Replay with a different seed behind the schedule: the schedule
		// alone must decide.
		b := sim.NewWorld(mk(), seed, sim.NewReplayChooser(a.Schedule(), sim.NewRandomChooser(seed+1000)), sim.Options{Trace: true})
		if err := b.Run(sim.Limits{}); err != nil {
			t.Fatal(err)
		}
		if a.Digest() != b.Digest() {
			t.Fatalf("seed %d: replay digest %x differs from the run's %x", seed, b.Digest(), a.Digest())
		}
		c := sim.NewWorld(mk(), seed, sim.NewRandomChooser(seed+1), sim.Options{Trace: true})
		if err := c.Run(sim.Limits{}); err != nil {
			t.Fatal(err)
		}
		if c.Digest() == a.Digest() {
			t.Fatalf("seed %d: another seed gave the same run", seed)
		}
	}
}

// Copies of a world own their waiter lists: the original handing its
// mutex over or signalling its condition variable (which shift its lists
// in place) leaves a Clone's, a Snapshot's and a SnapshotInto's lists as
// they were.
func TestCopiesKeepTheirWaiters(t *testing.T) {
	for _, c := range []struct {
		name    string
		threads [][]sim.Action
		waiters func(w *sim.World) []sim.ProcID
	}{
		{"mutex", [][]sim.Action{
			{sim.Lock(0, "a"), sim.Local("work", 0), sim.Unlock(0, "a")},
			{sim.Lock(0, "b"), sim.Unlock(0, "b")},
			{sim.Lock(0, "c"), sim.Unlock(0, "c")},
		}, func(w *sim.World) []sim.ProcID { return w.Mutexes()[0].Waiters }},
		{"condition variable", [][]sim.Action{
			{sim.Lock(0, "a"), sim.Wait(0, "a waits"), sim.Unlock(0, "a")},
			{sim.Lock(0, "b"), sim.Wait(0, "b waits"), sim.Unlock(0, "b")},
			{sim.Local("work", 0), sim.Local("work", 0), sim.Local("work", 0), sim.Lock(0, "c"), sim.Signal(0, "c wakes one"), sim.Signal(0, "c wakes one"), sim.Unlock(0, "c")},
		}, func(w *sim.World) []sim.ProcID { return w.Conds()[0].Waiters }},
	} {
		w := sim.NewWorld(&script{mutexes: []string{"mu"}, conds: []string{"cv"}, threads: c.threads}, 1, sim.FirstChooser{}, sim.Options{})
		for i := 0; i < 50 && len(c.waiters(w)) < 2; i++ {
			w.Step()
		}
		want := slices.Clone(c.waiters(w))
		if len(want) < 2 {
			t.Fatalf("%s: no two waiters after 50 steps: %v", c.name, want)
		}
		copies := map[string]*sim.World{"Clone": w.Clone(), "Snapshot": w.Snapshot(), "SnapshotInto": w.SnapshotInto(nil)}
		if err := w.Run(sim.Limits{MaxSteps: 1000}); err != nil {
			t.Fatal(err)
		}
		if got := c.waiters(w); len(got) != 0 {
			t.Fatalf("%s: the original ended with waiters %v", c.name, got)
		}
		for name, cp := range copies {
			if got := c.waiters(cp); !slices.Equal(got, want) {
				t.Errorf("%s: %s's waiters became %v, were %v", c.name, name, got, want)
			}
		}
	}
}

func TestCloneContinuesLikeTheOriginal(t *testing.T) {
	mk := func() sim.Model {
		return &pingPong{limit: 40, link: sim.Link{Min: sim.Millisecond, Max: 9 * sim.Millisecond, Res: sim.Millisecond}}
	}
	full := sim.NewWorld(mk(), 3, sim.NewRandomChooser(3), sim.Options{})
	if err := full.Run(sim.Limits{}); err != nil {
		t.Fatal(err)
	}
	half := sim.NewWorld(mk(), 3, sim.NewRandomChooser(3), sim.Options{})
	for i := 0; i < 20; i++ {
		half.Step()
	}
	c := half.Clone()
	c.SetChooser(&sim.ScriptChooser{Schedule: full.Schedule()[len(half.Schedule()):]})
	if err := c.Run(sim.Limits{}); err != nil {
		t.Fatal(err)
	}
	if c.Hash() != full.Hash() || c.Steps() != full.Steps() || c.Now() != full.Now() {
		t.Fatalf("clone ended at step %d %s hash %x, original at %d %s hash %x", c.Steps(), c.Now(), c.Hash(), full.Steps(), full.Now(), full.Hash())
	}
	// The original half-run is untouched by the clone's progress.
	if half.Steps() != 20 {
		t.Fatalf("original advanced to %d steps", half.Steps())
	}
}

func TestHashIgnoresThePathTaken(t *testing.T) {
	// Two independent threads each take and release their own mutex:
	// both orders end in the same state.
	m := func() sim.Model {
		return &script{mutexes: []string{"a", "b"}, threads: [][]sim.Action{
			{sim.Lock(0, ""), sim.Unlock(0, "")}, {sim.Lock(1, ""), sim.Unlock(1, "")},
		}}
	}
	x := sim.NewWorld(m(), 1, sim.NewReplayChooser([]int{0, 0}, sim.FirstChooser{}), sim.Options{})
	y := sim.NewWorld(m(), 1, sim.NewReplayChooser([]int{1, 1}, sim.FirstChooser{}), sim.Options{})
	for i := 0; i < 2; i++ {
		x.Step()
		y.Step()
	}
	// After two steps x has run t0's lock and unlock, y t1's: different
	// states, different hashes.
	if x.Hash() == y.Hash() {
		t.Fatalf("different states hash the same")
	}
	for x.Step() {
	}
	for y.Step() {
	}
	if x.Err() != nil || y.Err() != nil || x.Stop() != sim.StopQuiescent || y.Stop() != sim.StopQuiescent {
		t.Fatalf("runs did not finish: %v %v", x.Err(), y.Err())
	}
	if x.Hash() != y.Hash() {
		t.Fatalf("the same final state hashes differently: %x vs %x", x.Hash(), y.Hash())
	}
}

// A world recycled by SnapshotInto continues exactly like a fresh
// snapshot, and recycling a world changes no snapshot taken of it.
func TestSnapshotIntoContinuesLikeSnapshot(t *testing.T) {
	mk := func() sim.Model {
		return &pingPong{limit: 40, link: sim.Link{Min: sim.Millisecond, Max: 9 * sim.Millisecond, Res: sim.Millisecond}}
	}
	full := sim.NewWorld(mk(), 5, sim.NewRandomChooser(5), sim.Options{})
	if err := full.Run(sim.Limits{}); err != nil {
		t.Fatal(err)
	}
	half := sim.NewWorld(mk(), 5, sim.NewRandomChooser(5), sim.Options{})
	for i := 0; i < 20; i++ {
		half.Step()
	}
	// A scratch world that held another state (and a longer schedule).
	scratch := full.SnapshotInto(nil)
	child := scratch.Snapshot()
	want := child.Hash()
	wantSched := append([]int(nil), child.Schedule()...)
	c := half.SnapshotInto(scratch)
	if c != scratch {
		t.Fatal("SnapshotInto did not reuse its destination")
	}
	if c.Hash() != half.Hash() || c.Steps() != half.Steps() || len(c.Schedule()) != len(half.Schedule()) {
		t.Fatalf("recycled copy at step %d hash %x, original at %d hash %x", c.Steps(), c.Hash(), half.Steps(), half.Hash())
	}
	if child.Hash() != want || !slices.Equal(child.Schedule(), wantSched) {
		t.Fatal("recycling a world changed a snapshot taken of it")
	}
	c.SetChooser(&sim.ScriptChooser{Schedule: full.Schedule()[len(half.Schedule()):]})
	if err := c.Run(sim.Limits{}); err != nil {
		t.Fatal(err)
	}
	if c.Hash() != full.Hash() || c.Steps() != full.Steps() || !slices.Equal(c.Schedule(), full.Schedule()) {
		t.Fatalf("recycled copy ended at step %d hash %x, original at %d hash %x", c.Steps(), c.Hash(), full.Steps(), full.Hash())
	}
	if half.Steps() != 20 {
		t.Fatalf("original advanced to %d steps", half.Steps())
	}
}
