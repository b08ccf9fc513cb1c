package sim_test

import (
	"slices"
	"testing"

	"github.com/racetrack-sim/racetrack/core/sim"
)

// everyRun runs every schedule of w depth-first and calls end with each
// final world and the steps that led to it.
func everyRun(t *testing.T, w *sim.World, path []sim.StepInfo, end func(*sim.World, []sim.StepInfo)) {
	t.Helper()
	ready := w.Ready()
	if len(ready) == 0 || w.Stop() != sim.StopNone {
		end(w, path)
		return
	}
	for k := range ready {
		c := w.Clone()
		c.SetChooser(sim.NewReplayChooser([]int{k}, sim.FirstChooser{}))
		if !c.Step() {
			t.Fatalf("option %d of %d after %v does not step: %v", k, len(ready), path, c.Err())
		}
		everyRun(t, c, append(slices.Clip(path), c.LastStep()), end)
	}
}

// bargeScript: t0 holds mu, t1 waits for it; t2 comes to lock it while
// t0 unlocks.
func bargeScript(kind sim.MutexKind) *script {
	return &script{mutexes: []string{"mu"}, kind: kind, threads: [][]sim.Action{
		{sim.Lock(0, "t0 locks"), sim.Local("work", 0), sim.Unlock(0, "t0 unlocks")},
		{sim.Lock(0, "t1 locks"), sim.Unlock(0, "t1 unlocks")},
		{sim.Local("arrive", 0), sim.Lock(0, "t2 locks"), sim.Unlock(0, "t2 unlocks")},
	}}
}

// barged reports whether some run of s has t2, never blocked, take mu
// after t1 blocked on it and before t1 got it, and whether some run has
// t1 get it first.
func barged(t *testing.T, s *script) (bargedIn, waiterFirst bool) {
	w := sim.NewWorld(s, 1, sim.FirstChooser{}, sim.Options{})
	everyRun(t, w, nil, func(end *sim.World, path []sim.StepInfo) {
		if v := end.Violations(); len(v) != 0 || end.Err() != nil {
			t.Fatalf("run %v: %v %v", path, v, end.Err())
		}
		waiting, newcomer := false, true
		for _, st := range path {
			switch {
			case st.Kind == sim.StepBlock && st.Proc == 1:
				waiting = true
			case st.Kind == sim.StepBlock && st.Proc == 2:
				newcomer = false
			case st.Kind == sim.StepLock && st.Proc == 1:
				waiterFirst = waiterFirst || waiting
				return
			case st.Kind == sim.StepLock && st.Proc == 2 && waiting:
				bargedIn = bargedIn || newcomer
				return
			}
		}
	})
	return bargedIn, waiterFirst
}

// TestGoMutexCanBeBargedFIFOCannot: a thread that waited for a mutex is
// always the next to take a FIFO mutex, while a Go mutex can go to a
// thread that only came to lock it after the waiter was woken.
func TestGoMutexCanBeBargedFIFOCannot(t *testing.T) {
	if in, first := barged(t, bargeScript(sim.MutexFIFO)); in || !first {
		t.Fatalf("FIFO mutex: barged in %v, the waiter first %v; want false, true", in, first)
	}
	if in, first := barged(t, bargeScript(sim.MutexGo)); !in || !first {
		t.Fatalf("Go mutex: barged in %v, the waiter first %v; want both", in, first)
	}
}

// TestWokenWaiterThatLostGoesBackToTheFront: t1 and t3 wait for a Go
// mutex; t0 unlocks and wakes t1, t2 barges in, and t1's try blocks it
// again, first in line: when t2 unlocks, t1 is woken, not t3.
func TestWokenWaiterThatLostGoesBackToTheFront(t *testing.T) {
	s := &script{mutexes: []string{"mu"}, kind: sim.MutexGo, threads: [][]sim.Action{
		{sim.Lock(0, "t0 locks"), sim.Local("work", 0), sim.Unlock(0, "t0 unlocks")},
		{sim.Lock(0, "t1 locks"), sim.Unlock(0, "t1 unlocks")},
		{sim.Local("arrive", 0), sim.Local("arrive", 0), sim.Local("arrive", 0), sim.Lock(0, "t2 locks"), sim.Unlock(0, "t2 unlocks")},
		{sim.Lock(0, "t3 locks"), sim.Unlock(0, "t3 unlocks")},
	}}
	w := sim.NewWorld(s, 1, sim.FirstChooser{}, sim.Options{Trace: true})
	// pick runs the ready event of process p, failing when it has none.
	pick := func(p sim.ProcID, kind sim.EventKind) {
		t.Helper()
		for k, e := range w.Ready() {
			if e.Proc == p && e.Kind == kind {
				w.SetChooser(sim.NewReplayChooser([]int{k}, sim.FirstChooser{}))
				if !w.Step() {
					t.Fatalf("step of %d: %v", p, w.Err())
				}
				return
			}
		}
		t.Fatalf("no %s event of t%d ready: %v", kind, p, w.Ready())
	}
	pick(0, sim.EvStep) // t0 locks
	pick(1, sim.EvStep) // t1 blocks
	pick(3, sim.EvStep) // t3 blocks
	pick(0, sim.EvStep) // work
	pick(2, sim.EvStep)
	pick(2, sim.EvStep)
	pick(0, sim.EvStep) // t0 unlocks: mu free, t1 woken
	if m := w.Mutex(0); m.Holder != sim.None || !slices.Equal(m.Waiters, []sim.ProcID{3}) {
		t.Fatalf("after the unlock: holder %d waiters %v, want free and [t3]", m.Holder, m.Waiters)
	}
	pick(2, sim.EvStep) // t2's last local step
	pick(2, sim.EvStep) // t2 locks: it barges in
	if m := w.Mutex(0); m.Holder != 2 {
		t.Fatalf("t2 did not barge in: holder %d", m.Holder)
	}
	pick(1, sim.EvAcquire)
	if st := w.LastStep(); st.Kind != sim.StepBlock || st.Proc != 1 {
		t.Fatalf("t1's try was %+v, want t1 blocking", st)
	}
	if m := w.Mutex(0); m.Holder != 2 || !slices.Equal(m.Waiters, []sim.ProcID{1, 3}) {
		t.Fatalf("after t1 lost: holder %d waiters %v, want t2 and [t1 t3]", m.Holder, m.Waiters)
	}
	if p := w.Proc(1); p.Status != sim.Blocked {
		t.Fatalf("t1 is %s after losing, want blocked", p.Status)
	}
	pick(2, sim.EvStep) // t2 unlocks: t1 is woken
	ready := w.Ready()
	if !slices.ContainsFunc(ready, func(e sim.Event) bool { return e.Proc == 1 && e.Kind == sim.EvAcquire }) ||
		slices.ContainsFunc(ready, func(e sim.Event) bool { return e.Proc == 3 }) {
		t.Fatalf("after t2's unlock ready %v, want t1's try and nothing of t3", ready)
	}
	if err := w.Run(sim.Limits{MaxSteps: 100}); err != nil || len(w.Violations()) != 0 {
		t.Fatalf("run: %v %v", err, w.Violations())
	}
}

// TestGoMutexLockCycleIsADeadlock: the lock-order cycle of two Go
// mutexes is reported at the block that closes it, with its holders and
// waiters; a thread woken to try a mutex that another took is no part of
// a cycle until its try fails.
func TestGoMutexLockCycleIsADeadlock(t *testing.T) {
	m := &script{mutexes: []string{"mu", "streamMu"}, kind: sim.MutexGo, threads: [][]sim.Action{
		{sim.Lock(0, "lock mu"), sim.Lock(1, "lock streamMu"), sim.Unlock(1, ""), sim.Unlock(0, "")},
		{sim.Lock(1, "lock streamMu"), sim.Lock(0, "lock mu"), sim.Unlock(0, ""), sim.Unlock(1, "")},
	}}
	w := run(t, m, &sim.ScriptChooser{Schedule: []int{0, 0, 0}})
	v := w.Violations()
	want := "t1 holds streamMu, waits for mu; t0 holds mu, waits for streamMu"
	if len(v) != 1 || v[0].Property != sim.NoDeadlockName || v[0].Message != want || v[0].Step != 3 {
		t.Fatalf("violations %+v, want one no-deadlock at step 3: %q", v, want)
	}

	// t0 holds a and waits for b; t1 unlocks b, waking t0, locks b again
	// and waits for a. The cycle closes when t0's try finds b held.
	m = &script{mutexes: []string{"a", "b"}, kind: sim.MutexGo, threads: [][]sim.Action{
		{sim.Lock(0, "t0 locks a"), sim.Lock(1, "t0 locks b"), sim.Unlock(1, ""), sim.Unlock(0, "")},
		{sim.Lock(1, "t1 locks b"), sim.Local("work", 0), sim.Unlock(1, "t1 unlocks b"), sim.Lock(1, "t1 locks b again"), sim.Lock(0, "t1 locks a"), sim.Unlock(0, ""), sim.Unlock(1, "")},
	}}
	w = sim.NewWorld(m, 1, sim.FirstChooser{}, sim.Options{Trace: true})
	steps := []struct {
		p    sim.ProcID
		kind sim.EventKind
	}{{0, sim.EvStep}, {1, sim.EvStep}, {0, sim.EvStep}, {1, sim.EvStep}, {1, sim.EvStep}, {1, sim.EvStep}, {1, sim.EvStep}}
	for i, s := range steps {
		k := slices.IndexFunc(w.Ready(), func(e sim.Event) bool { return e.Proc == s.p && e.Kind == s.kind })
		if k < 0 {
			t.Fatalf("step %d: no %s event of t%d in %v", i, s.kind, s.p, w.Ready())
		}
		w.SetChooser(sim.NewReplayChooser([]int{k}, sim.FirstChooser{}))
		w.Step()
		if len(w.Violations()) != 0 {
			t.Fatalf("a deadlock reported at step %d, while t0 is woken to try b: %v", i, w.Violations())
		}
	}
	// t1 now waits for a, held by t0, which has yet to try b.
	if st := w.LastStep(); st.Kind != sim.StepBlock || st.Proc != 1 {
		t.Fatalf("last step %+v, want t1 blocking on a", st)
	}
	if !w.Step() || w.LastStep().Proc != 0 || w.LastStep().Kind != sim.StepBlock {
		t.Fatalf("t0's try: %+v %v", w.LastStep(), w.Err())
	}
	v = w.Violations()
	want = "t0 holds a, waits for b; t1 holds b, waits for a"
	if len(v) != 1 || v[0].Message != want || v[0].Step != 7 {
		t.Fatalf("violations %+v, want one at step 7 (t0's failed try): %q", v, want)
	}
}

// TestCondReacquiresAGoMutexLikeLock: a thread a broadcast wakes locks
// the Go mutex afresh: finding it held, it queues behind the threads
// already waiting (last, not first); finding it free, it takes it ahead
// of a waiter an unlock woke, which goes back to the front.
func TestCondReacquiresAGoMutexLikeLock(t *testing.T) {
	s := &script{mutexes: []string{"mu"}, conds: []string{"cond"}, kind: sim.MutexGo, threads: [][]sim.Action{
		{sim.Lock(0, "t0 locks"), sim.Wait(0, "t0 waits"), sim.Unlock(0, "t0 unlocks")},
		{sim.Lock(0, "t1 locks"), sim.Broadcast(0, "t1 broadcasts"), sim.Unlock(0, "t1 unlocks")},
		{sim.Local("arrive", 0), sim.Lock(0, "t2 locks"), sim.Unlock(0, "t2 unlocks")},
	}}
	// steps runs the given (process, event kind) steps of w in order.
	steps := func(w *sim.World, seq ...any) {
		t.Helper()
		for i := 0; i < len(seq); i += 2 {
			p, kind := seq[i].(int), seq[i+1].(sim.EventKind)
			k := slices.IndexFunc(w.Ready(), func(e sim.Event) bool { return e.Proc == sim.ProcID(p) && e.Kind == kind })
			if k < 0 {
				t.Fatalf("no %s event of t%d in %v", kind, p, w.Ready())
			}
			w.SetChooser(sim.NewReplayChooser([]int{k}, sim.FirstChooser{}))
			if !w.Step() {
				t.Fatal(w.Err())
			}
		}
	}
	prefix := []any{0, sim.EvStep, 0, sim.EvStep, 1, sim.EvStep, 2, sim.EvStep, 2, sim.EvStep, 1, sim.EvStep}
	// t0 waits, t1 locks, t2 blocks, t1 broadcasts; t0's try finds t1
	// holding mu.
	w := sim.NewWorld(s, 1, sim.FirstChooser{}, sim.Options{})
	steps(w, append(prefix, 0, sim.EvAcquire)...)
	if st, m := w.LastStep(), w.Mutex(0); st.Kind != sim.StepBlock || st.Proc != 0 || !slices.Equal(m.Waiters, []sim.ProcID{2, 0}) {
		t.Fatalf("t0's try %+v, waiters %v; want t0 blocking, waiters [t2 t0]", st, m.Waiters)
	}
	if err := w.Run(sim.Limits{MaxSteps: 100}); err != nil || len(w.Violations()) != 0 || w.Stop() != sim.StopQuiescent {
		t.Fatalf("run: %v %v %s", err, w.Violations(), w.Stop())
	}

	// t1 unlocks first, waking t2; t0's try finds mu free and takes it.
	w = sim.NewWorld(s, 1, sim.FirstChooser{}, sim.Options{})
	steps(w, append(prefix, 1, sim.EvStep, 0, sim.EvAcquire, 2, sim.EvAcquire)...)
	if m := w.Mutex(0); m.Holder != 0 || !slices.Equal(m.Waiters, []sim.ProcID{2}) {
		t.Fatalf("holder %d waiters %v, want t0 holding, t2 waiting", m.Holder, m.Waiters)
	}
	if err := w.Run(sim.Limits{MaxSteps: 100}); err != nil || len(w.Violations()) != 0 || w.Stop() != sim.StopQuiescent {
		t.Fatalf("run: %v %v %s", err, w.Violations(), w.Stop())
	}
}

// TestHashTellsAWakeFromARelock: two states that differ only in how
// the pending try of a Go mutex came (an unlock woke a waiter, which
// loses to the front of the queue; a signal woke a thread, which loses
// to the back) are different states.
func TestHashTellsAWakeFromARelock(t *testing.T) {
	run := func(threads [][]sim.Action, schedule []sim.ProcID) *sim.World {
		t.Helper()
		s := &script{mutexes: []string{"mu"}, conds: []string{"cond"}, kind: sim.MutexGo, threads: threads}
		w := sim.NewWorld(s, 1, sim.FirstChooser{}, sim.Options{})
		for _, p := range schedule {
			k := slices.IndexFunc(w.Ready(), func(e sim.Event) bool { return e.Proc == p })
			w.SetChooser(sim.NewReplayChooser([]int{k}, sim.FirstChooser{}))
			if k < 0 || !w.Step() {
				t.Fatalf("no step of t%d: %v", p, w.Err())
			}
		}
		return w
	}
	// t0 blocks on mu, t1 unlocks it: t0 is woken.
	woken := run([][]sim.Action{{sim.Local("", 0), sim.Lock(0, "")}, {sim.Lock(0, ""), sim.Unlock(0, "")}}, []sim.ProcID{1, 0, 0, 1})
	// t0 waits on cond, t1 broadcasts: t0 relocks.
	relock := run([][]sim.Action{{sim.Lock(0, ""), sim.Wait(0, "")}, {sim.Local("", 0), sim.Broadcast(0, "")}}, []sim.ProcID{0, 0, 1, 1})
	for _, w := range []*sim.World{woken, relock} {
		if w.Proc(0).PC != 2 || w.Proc(1).PC != 2 || w.Proc(0).Status != sim.Blocked || w.Mutex(0).Holder != sim.None {
			t.Fatalf("the two states differ in more than the try: %s, %s", w.DescribeProc(0), w.DescribeMutex(0))
		}
	}
	if woken.Hash() == relock.Hash() {
		t.Fatal("a woken waiter's try and a relock hash the same")
	}
}
