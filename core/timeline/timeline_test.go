package timeline_test

import (
	"encoding/json"
	"errors"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/racetrack-sim/racetrack/core/catalog"
	"github.com/racetrack-sim/racetrack/core/scenario"
	"github.com/racetrack-sim/racetrack/core/sim"
	"github.com/racetrack-sim/racetrack/core/timeline"
)

var reg = catalog.New()

func philo(variant, preset string, seed uint64) scenario.RunSpec {
	return scenario.RunSpec{Scenario: "dining-philosophers", Variant: variant, Preset: preset, Seed: seed}
}

func record(t testing.TB, spec scenario.RunSpec, every int) *timeline.Timeline {
	t.Helper()
	tl, err := timeline.Record(reg, spec, timeline.Options{SnapshotEvery: every})
	if err != nil {
		t.Fatalf("record %+v: %v", spec, err)
	}
	return tl
}

// fresh runs spec from scratch and stops after n steps.
func fresh(t *testing.T, spec scenario.RunSpec, n int) *sim.World {
	t.Helper()
	ns, _, w, err := reg.Build(spec, scenario.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for w.Steps() < n {
		if !w.StepWithin(ns.Limits()) {
			t.Fatalf("fresh run stopped at step %d of %d: %v", w.Steps(), n, w.Err())
		}
	}
	return w
}

// deadlockSeed finds the first seed whose buggy lock-level run deadlocks.
func deadlockSeed(t *testing.T) uint64 {
	t.Helper()
	for seed := uint64(1); seed < 500; seed++ {
		run, err := reg.Execute(philo("buggy", "lock-level", seed), scenario.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if run.World.Violated(sim.NoDeadlockName) {
			return seed
		}
	}
	t.Fatal("no deadlocking seed below 500")
	return 0
}

func TestRecordMatchesExecute(t *testing.T) {
	spec := philo("buggy", "table", 3)
	tl := record(t, spec, 0)
	run, err := reg.Execute(spec, scenario.Options{Trace: true})
	if err != nil {
		t.Fatal(err)
	}
	got, want := tl.Summary(), run.Summary()
	if got.ID != want.ID || got.Steps != want.Steps || got.EndTime != want.EndTime || got.Stop != want.Stop || len(got.Violations) != len(want.Violations) {
		t.Fatalf("timeline summary %+v differs from Execute's %+v", got, want)
	}
	if tl.Len() != run.World.Steps() || tl.ID() != run.ID {
		t.Fatalf("len %d id %s, want %d %s", tl.Len(), tl.ID(), run.World.Steps(), run.ID)
	}
}

func TestSeekEqualsFreshRun(t *testing.T) {
	for _, tc := range []struct {
		spec  scenario.RunSpec
		every int
	}{
		{philo("buggy", "table", 1), 7},
		{philo("buggy", "lock-level", deadlockSeed(t)), 4},
		{philo("fixed", "table", 9), 1024},
	} {
		tl := record(t, tc.spec, tc.every)
		for i := 0; i < tl.Len(); i++ {
			w, err := tl.Seek(i)
			if err != nil {
				t.Fatalf("seek %d: %v", i, err)
			}
			f := fresh(t, tc.spec, i+1)
			if w.Hash() != f.Hash() || w.Now() != f.Now() || w.Steps() != i+1 || !slices.Equal(w.Schedule(), f.Schedule()) {
				t.Fatalf("%s seed %d: seek(%d) hash %x now %s steps %d; fresh run hash %x now %s",
					tc.spec.Variant, tc.spec.Seed, i, w.Hash(), w.Now(), w.Steps(), f.Hash(), f.Now())
			}
		}
		t.Logf("%s/%s seed %d: %d steps seek-checked with K=%d", tc.spec.Variant, tc.spec.Preset, tc.spec.Seed, tl.Len(), tc.every)
	}
}

func TestSeekDoesNotDisturbSnapshots(t *testing.T) {
	tl := record(t, philo("buggy", "table", 2), 8)
	w, err := tl.Seek(20)
	if err != nil {
		t.Fatal(err)
	}
	want := w.Hash()
	// Step the returned world on; the snapshots must stay as they were.
	for k := 0; k < 10 && w.Step(); k++ {
	}
	again, err := tl.Seek(20)
	if err != nil {
		t.Fatal(err)
	}
	if again.Hash() != want {
		t.Fatalf("seek(20) hash changed from %x to %x after stepping an earlier result", want, again.Hash())
	}
}

func TestBadStepsNameTheRange(t *testing.T) {
	tl := record(t, philo("buggy", "table", 1), 0)
	n := tl.Len()
	for _, i := range []int{-1, n, n + 5} {
		_, err := tl.Seek(i)
		if !errors.Is(err, timeline.ErrStepRange) {
			t.Fatalf("seek(%d): %v, want ErrStepRange", i, err)
		}
		if want := "[0, " + strconv.Itoa(n-1) + "]"; !strings.Contains(err.Error(), want) {
			t.Fatalf("seek(%d) error %q does not name the range %s", i, err, want)
		}
		if _, err := tl.StateAt(i); !errors.Is(err, timeline.ErrStepRange) {
			t.Fatalf("StateAt(%d): %v", i, err)
		}
		if _, err := tl.Alternatives(i); !errors.Is(err, timeline.ErrStepRange) {
			t.Fatalf("Alternatives(%d): %v", i, err)
		}
		if tl.CausalSlice(i) != nil {
			t.Fatalf("CausalSlice(%d) is not nil", i)
		}
	}
	if _, err := tl.Steps(n+1, 10); !errors.Is(err, timeline.ErrStepRange) {
		t.Fatalf("Steps past the end: %v", err)
	}
	page, err := tl.Steps(n, 10)
	if err != nil || len(page) != 0 {
		t.Fatalf("Steps(Len) = %d steps, %v; want an empty page", len(page), err)
	}
}

func TestStepsDescribeTheTrace(t *testing.T) {
	tl := record(t, philo("buggy", "table", 1), 0)
	page, err := tl.Steps(0, 1000)
	if err != nil {
		t.Fatal(err)
	}
	if len(page) != tl.Len() {
		t.Fatalf("%d steps, want %d", len(page), tl.Len())
	}
	locks := 0
	for i, s := range page {
		if s.Index != i || s.NodeName != "table" || !strings.HasPrefix(s.ProcName, "phil") || s.Label == "" {
			t.Fatalf("step %d: %+v", i, s)
		}
		if s.Kind == sim.StepLock {
			locks++
			if !strings.HasPrefix(s.Object, "fork") {
				t.Fatalf("lock step %d names object %q, want a fork", i, s.Object)
			}
		}
	}
	// Five philosophers, three meals each, two forks per meal.
	if locks != 30 {
		t.Fatalf("%d lock steps, want 30", locks)
	}
}

// TestCursorAnswersAsStateAt walks a cursor forwards one step at a time,
// jumps ahead, past a snapshot interval and back, and checks every answer
// against StateAt (and, every other step, Alternatives).
func TestCursorAnswersAsStateAt(t *testing.T) {
	tl := record(t, philo("buggy", "table", 1), 5)
	c := tl.Cursor()
	var walk []int
	for i := 0; i < tl.Len(); i++ {
		walk = append(walk, i)
	}
	walk = append(walk, 3, 4, tl.Len()-1, 0, 20, 9, 30, tl.Len()-1)
	for k, i := range walk {
		if k%2 == 0 {
			got, err := c.Alternatives(i)
			if err != nil {
				t.Fatal(err)
			}
			want, err := tl.Alternatives(i)
			if err != nil {
				t.Fatal(err)
			}
			g, _ := json.Marshal(got)
			w, _ := json.Marshal(want)
			if string(g) != string(w) {
				t.Fatalf("cursor's alternatives at step %d:\n%s\nTimeline's:\n%s", i, g, w)
			}
		}
		got, err := c.StateAt(i)
		if err != nil {
			t.Fatal(err)
		}
		want, err := tl.StateAt(i)
		if err != nil {
			t.Fatal(err)
		}
		g, _ := json.Marshal(got)
		w, _ := json.Marshal(want)
		if string(g) != string(w) {
			t.Fatalf("cursor at step %d:\n%s\nStateAt:\n%s", i, g, w)
		}
	}
	if _, err := c.StateAt(tl.Len()); !errors.Is(err, timeline.ErrStepRange) {
		t.Fatalf("cursor past the end: %v", err)
	}
}

func TestStateAtFlagsWhatChanged(t *testing.T) {
	tl := record(t, philo("buggy", "table", 1), 5)
	found := false
	for i := 0; i < tl.Len() && !found; i++ {
		st := tl.Trace().Step(i)
		if st.Kind != sim.StepLock {
			continue
		}
		found = true
		sv, err := tl.StateAt(i)
		if err != nil {
			t.Fatal(err)
		}
		fork := tl.Mutexes()[st.Obj].Name
		holder := tl.Procs()[st.Proc].Name
		var changedForks []string
		for _, g := range sv.Groups {
			if g.ID != "forks" {
				continue
			}
			for _, f := range g.Fields {
				if f.Changed {
					changedForks = append(changedForks, f.Name+"="+f.Value)
				}
			}
		}
		if want := []string{fork + "=held by " + holder}; !slices.Equal(changedForks, want) {
			t.Fatalf("step %d (%s locks %s): changed fork fields %v, want %v", i, holder, fork, changedForks, want)
		}
		// A local step right after changes no fork.
		next, ok := tl.NextEvent(i, timeline.Filter{Kind: timeline.ProcStep, Proc: st.Proc})
		if !ok {
			t.Fatal("no next step of the philosopher")
		}
		sv2, err := tl.StateAt(next)
		if err != nil {
			t.Fatal(err)
		}
		for _, g := range sv2.Groups {
			for _, f := range g.Fields {
				if g.ID == "forks" && f.Changed && tl.Trace().Step(next).Kind != sim.StepLock && tl.Trace().Step(next).Kind != sim.StepUnlock {
					t.Fatalf("step %d (%s) flags fork field %s as changed", next, tl.Trace().StepLabel(next), f.Name)
				}
			}
		}
		for _, p := range sv.Properties {
			if p.Status == "violated" {
				t.Fatalf("property %s violated at step %d of a run without violations", p.Name, i)
			}
		}
	}
	if !found {
		t.Fatal("no lock step")
	}
}

func TestStateAtReportsViolations(t *testing.T) {
	tl := record(t, philo("buggy", "lock-level", deadlockSeed(t)), 0)
	vs := tl.Violations()
	if len(vs) == 0 {
		t.Fatal("no violation")
	}
	v := vs[0]
	before, err := tl.StateAt(v.Step - 1)
	if err != nil {
		t.Fatal(err)
	}
	at, err := tl.StateAt(v.Step)
	if err != nil {
		t.Fatal(err)
	}
	status := func(sv timeline.StateView) string {
		for _, p := range sv.Properties {
			if p.Name == v.Property {
				return p.Status
			}
		}
		return "missing"
	}
	if status(before) == "violated" || status(at) != "violated" || len(at.Violations) == 0 || len(before.Violations) != 0 {
		t.Fatalf("%s at %d: before %s (%d known), at %s (%d known)", v.Property, v.Step, status(before), len(before.Violations), status(at), len(at.Violations))
	}
}

func TestNextAndPrevEvent(t *testing.T) {
	tl := record(t, philo("buggy", "lock-level", deadlockSeed(t)), 0)
	i, ok := tl.NextEvent(-1, timeline.Filter{Kind: timeline.LockStep})
	if !ok {
		t.Fatal("no lock event")
	}
	for k := 0; k < i; k++ {
		switch tl.Trace().Step(k).Kind {
		case sim.StepLock, sim.StepBlock, sim.StepUnlock, sim.StepWait, sim.StepSignal:
			t.Fatalf("NextEvent(-1, lock) = %d, but step %d is a lock event", i, k)
		}
	}
	v, ok := tl.NextEvent(-1, timeline.Filter{Kind: timeline.ViolationStep})
	if !ok || v != tl.Violations()[0].Step {
		t.Fatalf("next violation %d %v, want %d", v, ok, tl.Violations()[0].Step)
	}
	if _, ok := tl.NextEvent(v, timeline.Filter{Kind: timeline.ViolationStep}); ok && len(tl.Violations()) == 1 {
		t.Fatal("a second violation step found")
	}
	p, ok := tl.PrevEvent(tl.Len(), timeline.Filter{Kind: timeline.ProcStep, Proc: 2})
	if !ok || tl.Trace().Step(p).Proc != 2 {
		t.Fatalf("PrevEvent(end, proc=2) = %d %v", p, ok)
	}
	for k := p + 1; k < tl.Len(); k++ {
		if tl.Trace().Step(k).Proc == 2 {
			t.Fatalf("step %d of proc 2 after PrevEvent's %d", k, p)
		}
	}
	c, ok := tl.NextEvent(-1, timeline.Filter{Kind: timeline.ChoiceStep})
	if !ok || tl.StepView(c).Choices == 0 {
		t.Fatalf("next choice point %d %v", c, ok)
	}
	for k := 0; k < c; k++ {
		if tl.StepView(k).Choices > 0 {
			t.Fatalf("NextEvent(-1, choice) = %d, but step %d made a choice", c, k)
		}
	}
	if back, ok := tl.PrevEvent(c+1, timeline.Filter{Kind: timeline.ChoiceStep}); !ok || back != c {
		t.Fatalf("PrevEvent(%d, choice) = %d %v, want %d", c+1, back, ok, c)
	}
	f, err := timeline.ParseFilter("proc=3")
	if err != nil || f.Kind != timeline.ProcStep || f.Proc != 3 {
		t.Fatalf("ParseFilter(proc=3) = %+v, %v", f, err)
	}
	if _, err := timeline.ParseFilter("bogus"); err == nil {
		t.Fatal("ParseFilter accepted bogus")
	}
}

func TestCausalSliceOfDeadlock(t *testing.T) {
	tl := record(t, philo("buggy", "lock-level", deadlockSeed(t)), 0)
	v := tl.Violations()[0]
	slice := tl.CausalSlice(v.Step)
	if len(slice) == 0 || slice[len(slice)-1] != v.Step || !slices.IsSorted(slice) {
		t.Fatalf("slice %v must be sorted and end at the violation step %d", slice, v.Step)
	}
	// The slice is exactly the happens-before past plus the step itself.
	in := map[int]bool{}
	for _, s := range slice {
		in[s] = true
	}
	for j := 0; j <= v.Step; j++ {
		want := j == v.Step || tl.Trace().HappensBefore(j, v.Step)
		if in[j] != want {
			t.Fatalf("step %d (%s) in slice = %v, happens-before = %v", j, tl.Trace().StepLabel(j), in[j], want)
		}
	}
	// Blocking observes the holder's acquisition, so the past of the
	// block that closes the cycle is the blocking philosopher's own three
	// steps (think, take the first fork, block on the second) plus the
	// holder's way to taking the fork it waits for (think, take it).
	p := tl.Trace().Step(v.Step).Proc
	holder := tl.Trace().Step(int(tl.Trace().Step(v.Step).Parent)).Proc
	var own, holders int
	for _, s := range slice {
		switch tl.Trace().Step(s).Proc {
		case p:
			own++
		case holder:
			holders++
		default:
			t.Fatalf("step %d of %s in the slice of %s's block", s, tl.Procs()[tl.Trace().Step(s).Proc].Name, tl.Procs()[p].Name)
		}
	}
	last := tl.Trace().Step(slice[len(slice)-1])
	if own != 3 || holders != 2 || last.Kind != sim.StepBlock || tl.Trace().Step(int(last.Parent)).Kind != sim.StepLock {
		t.Fatalf("slice %v: %d own steps, %d of the holder; want 3 and 2 ending in a block on the holder's lock", slice, own, holders)
	}
	t.Logf("deadlock at step %d (%s): causal slice of %d steps %v", v.Step, v.Message, len(slice), slice)

	// The stuck slice adds every philosopher's way into the cycle: each
	// one's take of the first fork and its block on the second.
	stuck := tl.StuckSlice(v.Step)
	locks, blocks := map[sim.ProcID]bool{}, map[sim.ProcID]bool{}
	for _, s := range stuck {
		st := tl.Trace().Step(s)
		switch st.Kind {
		case sim.StepLock:
			locks[st.Proc] = true
		case sim.StepBlock:
			blocks[st.Proc] = true
		}
	}
	if len(locks) != 5 || len(blocks) != 5 || !slices.IsSorted(stuck) {
		t.Fatalf("stuck slice %v: %d philosophers lock, %d block; want all five", stuck, len(locks), len(blocks))
	}
	for _, s := range slice {
		if !slices.Contains(stuck, s) {
			t.Fatalf("stuck slice lacks causal step %d", s)
		}
	}
}

func TestCausalSliceFollowsLockHandOff(t *testing.T) {
	tl := record(t, philo("buggy", "table", 1), 0)
	// Find an acquisition handed over by another philosopher's unlock:
	// that unlock and everything before it on its process is in the past.
	for i := 0; i < tl.Len(); i++ {
		st := tl.Trace().Step(i)
		if st.Kind != sim.StepLock || st.Parent < 0 || tl.Trace().Step(int(st.Parent)).Proc == st.Proc {
			continue
		}
		slice := tl.CausalSlice(i)
		for _, s := range tl.ProcSteps(tl.Trace().Step(int(st.Parent)).Proc) {
			if s <= st.Parent && !slices.Contains(slice, int(s)) {
				t.Fatalf("step %d: releaser's step %d missing from the causal slice", i, s)
			}
		}
		return
	}
	t.Fatal("no hand-off found")
}

func TestAlternativesAndFork(t *testing.T) {
	spec := philo("buggy", "lock-level", 1)
	tl := record(t, spec, 4)
	var at int = -1
	var alt timeline.Alternative
	for i := 0; i < tl.Len() && at < 0; i++ {
		alts, err := tl.Alternatives(i)
		if err != nil {
			t.Fatal(err)
		}
		for _, a := range alts {
			if a.Kind == "event" && a.N >= 3 && i > 3 {
				at, alt = i, a
				break
			}
		}
	}
	if at < 0 {
		t.Fatal("no event choice with 3 options")
	}
	// The options are described in the model's words, and the picked one
	// is the process that ran.
	for _, o := range alt.Options {
		if !strings.HasPrefix(o.Text, "phil") || o.Proc < 0 {
			t.Fatalf("option %+v not described by the model", o)
		}
	}
	if alt.Options[alt.Picked].Proc != tl.Trace().Step(at).Proc {
		t.Fatalf("picked option runs %d, step %d ran %d", alt.Options[alt.Picked].Proc, at, tl.Trace().Step(at).Proc)
	}
	other := (alt.Picked + 1) % alt.N
	b, err := tl.Branch(at, 0, other)
	if err != nil {
		t.Fatal(err)
	}
	if b.Parent != tl.ID() || b.Step != at || b.Choice != alt.Choice || b.Text != alt.Options[other].Text {
		t.Fatalf("branch %+v", b)
	}
	if !slices.Equal(b.Spec.Schedule[:alt.Choice], tl.Schedule()[:alt.Choice]) || b.Spec.Schedule[alt.Choice] != other || len(b.Spec.Schedule) != alt.Choice+1 {
		t.Fatalf("fork schedule %v is not the prefix %v plus %d", b.Spec.Schedule, tl.Schedule()[:alt.Choice], other)
	}
	forked, err := timeline.Record(reg, b.Spec, timeline.Options{Parent: &b})
	if err != nil {
		t.Fatal(err)
	}
	if forked.Parent() == nil || forked.Parent().Parent != tl.ID() || forked.ID() == tl.ID() {
		t.Fatalf("forked run %s parent %+v", forked.ID(), forked.Parent())
	}
	c := timeline.Compare(tl, forked)
	if c.Diverge != at {
		t.Fatalf("fork at step %d diverges at %d", at, c.Diverge)
	}
	if got := forked.Trace().Step(at).Proc; got != alt.Options[other].Proc {
		t.Fatalf("forked step %d runs proc %d, want %d (%s)", at, got, alt.Options[other].Proc, alt.Options[other].Text)
	}
	// Bad choices and options are errors naming what exists.
	if _, err := tl.Fork(at, 0, alt.Picked); !errors.Is(err, timeline.ErrChoice) {
		t.Fatalf("fork to the picked option: %v", err)
	}
	if _, err := tl.Fork(at, 0, alt.N); !errors.Is(err, timeline.ErrChoice) {
		t.Fatalf("fork to option N: %v", err)
	}
	if _, err := tl.Fork(at, 7, 0); !errors.Is(err, timeline.ErrChoice) {
		t.Fatalf("fork to choice 7: %v", err)
	}
}

func TestForksFormATree(t *testing.T) {
	root := record(t, philo("buggy", "lock-level", 4), 0)
	fork := func(tl *timeline.Timeline) *timeline.Timeline {
		for i := tl.Len() - 1; i >= 0; i-- {
			alts, _ := tl.Alternatives(i)
			if len(alts) > 0 && alts[0].Kind == "event" {
				b, err := tl.Branch(i, 0, (alts[0].Picked+1)%alts[0].N)
				if err != nil {
					t.Fatal(err)
				}
				child, err := timeline.Record(reg, b.Spec, timeline.Options{Parent: &b})
				if err != nil {
					t.Fatal(err)
				}
				return child
			}
		}
		t.Fatal("no choice to fork")
		return nil
	}
	a := fork(root)
	b := fork(a)
	if a.Parent().Parent != root.ID() || b.Parent().Parent != a.ID() || root.Parent() != nil {
		t.Fatalf("tree edges: a<-%s b<-%s", a.Parent().Parent, b.Parent().Parent)
	}
	// The root is untouched by its forks.
	again := record(t, philo("buggy", "lock-level", 4), 0)
	if timeline.Compare(root, again).Diverge != -1 {
		t.Fatal("root changed after forking")
	}
}

func TestCompareBuggyAndFixed(t *testing.T) {
	seed := deadlockSeed(t)
	buggy := record(t, philo("buggy", "lock-level", seed), 0)
	fixed := record(t, philo("fixed", "lock-level", seed), 0)
	c := timeline.Compare(buggy, fixed)
	// A deadlocked table also leaves meals uneaten.
	if !slices.Equal(c.OnlyA, []string{sim.NoDeadlockName, "everyone-eats"}) || len(c.OnlyB) != 0 {
		t.Fatalf("only buggy %v, only fixed %v; want only buggy to deadlock and starve", c.OnlyA, c.OnlyB)
	}
	if c.Diverge < 0 || c.Common != c.Diverge {
		t.Fatalf("diverge %d common %d", c.Diverge, c.Common)
	}
	// The variants differ only in phil4's first fork; the runs agree up
	// to the first step where that shows.
	for i := 0; i < c.Diverge; i++ {
		if buggy.Trace().StepLabel(i) != fixed.Trace().StepLabel(i) {
			t.Fatalf("step %d differs before the divergence", i)
		}
	}
	if c.AStep == nil || c.BStep == nil || c.AStep.Label == c.BStep.Label && c.AStep.ProcName == c.BStep.ProcName && c.AStep.Kind == c.BStep.Kind {
		t.Fatalf("diverging steps %+v / %+v look the same", c.AStep, c.BStep)
	}
	for _, v := range c.Properties {
		if v.Name == sim.NoDeadlockName && (v.A != "violated" || v.B != "ok") {
			t.Fatalf("verdict %+v", v)
		}
	}
	t.Logf("seed %d: diverge at %d: buggy %q by %s, fixed %q by %s", seed, c.Diverge, c.AStep.Label, c.AStep.ProcName, c.BStep.Label, c.BStep.ProcName)
	self := timeline.Compare(buggy, buggy)
	if self.Diverge != -1 || len(self.OnlyA)+len(self.OnlyB) != 0 {
		t.Fatalf("a run compared with itself: %+v", self)
	}
}

func TestSeries(t *testing.T) {
	tl := record(t, philo("fixed", "table", 5), 0)
	ss := tl.Series()
	if len(ss) != 1 || ss[0].Name != "meals eaten" {
		t.Fatalf("series %+v", ss)
	}
	pts := ss[0].Points
	if len(pts) == 0 || pts[len(pts)-1].Value != 15 {
		t.Fatalf("meals eaten ends at %v, want 15", pts)
	}
	for k := 1; k < len(pts); k++ {
		if pts[k].Step <= pts[k-1].Step || pts[k].Value != pts[k-1].Value+1 {
			t.Fatalf("points %d..%d: %+v %+v", k-1, k, pts[k-1], pts[k])
		}
	}
}

func TestRecordRejectsAScheduleThatDoesNotFit(t *testing.T) {
	spec := philo("buggy", "lock-level", 1)
	spec.Schedule = []int{99}
	_, err := timeline.Record(reg, spec, timeline.Options{})
	var fe *scenario.FieldError
	if !errors.As(err, &fe) || fe.Field != "schedule" {
		t.Fatalf("err %v, want a schedule field error", err)
	}
}

// TestConcurrentReads: a server answers several requests on one timeline
// at once; every query only reads it (run with -race).
func TestConcurrentReads(t *testing.T) {
	tl := record(t, philo("buggy", "table", 1), 8)
	want := make([]uint64, tl.Len())
	for i := range want {
		w, err := tl.Seek(i)
		if err != nil {
			t.Fatal(err)
		}
		want[i] = w.Hash()
	}
	errs := make(chan error, 4)
	for g := 0; g < 4; g++ {
		go func(g int) {
			for k := 0; k < 200; k++ {
				i := (k*7 + g*13) % tl.Len()
				w, err := tl.Seek(i)
				if err == nil && w.Hash() != want[i] {
					err = errors.New("seek " + strconv.Itoa(i) + " hash differs under concurrency")
				}
				if err == nil {
					_, err = tl.StateAt(i)
				}
				if err == nil {
					_, err = tl.Alternatives(i)
				}
				if err != nil {
					errs <- err
					return
				}
			}
			errs <- nil
		}(g)
	}
	for g := 0; g < 4; g++ {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
}

// FuzzParseFilter: a filter from a query string parses or fails with a
// message, and what parses prints back the same.
func FuzzParseFilter(f *testing.F) {
	for _, s := range []string{"", "message", "lock", "violation", "proc=3", "proc=-1", "proc=x", "bogus"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		flt, err := timeline.ParseFilter(s)
		if err != nil {
			return
		}
		again, err := timeline.ParseFilter(flt.String())
		if err != nil || again != flt {
			t.Fatalf("%q parses to %+v, which prints as %q and parses to %+v (%v)", s, flt, flt.String(), again, err)
		}
	})
}

// TestSometimesStatus: a Sometimes property reads "not reached" before the
// step that first reaches it and "reached" (with that step) from there on,
// and Compare reports it the same way.
func TestSometimesStatus(t *testing.T) {
	spec := scenario.RunSpec{Scenario: "bank-overdraft", Variant: "check-then-act", Seed: 1}
	tl := record(t, spec, 4)
	reached := tl.Final().Reached()
	if len(reached) != 1 || reached[0].Property != "lock-contended" {
		t.Fatalf("reached %v", reached)
	}
	at := reached[0].Step
	status := func(i int) timeline.PropertyStatus {
		sv, err := tl.StateAt(i)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range sv.Properties {
			if p.Name == "lock-contended" {
				return p
			}
		}
		t.Fatal("no lock-contended in the property panel")
		return timeline.PropertyStatus{}
	}
	if at > 0 {
		if s := status(at - 1); s.Status != "not reached" {
			t.Errorf("before step %d: %+v", at, s)
		}
	}
	if s := status(at); s.Status != "reached" || s.Step != at || s.Kind != sim.KindSometimes {
		t.Errorf("at step %d: %+v", at, s)
	}
	c := timeline.Compare(tl, tl)
	for _, v := range c.Properties {
		if v.Name == "lock-contended" && (v.A != "reached" || v.AStep != at) {
			t.Errorf("compare: %+v", v)
		}
	}
}

func TestContinueStopsARecording(t *testing.T) {
	reg := catalog.New()
	asked := 0
	_, err := timeline.Record(reg, scenario.RunSpec{Scenario: "dining-philosophers", Params: map[string]any{"meals": 50.0}},
		timeline.Options{SnapshotEvery: 64, Continue: func() bool { asked++; return asked < 3 }})
	if !errors.Is(err, timeline.ErrStopped) || asked != 3 {
		t.Fatalf("got %v after %d questions, want ErrStopped after 3", err, asked)

	}
}
