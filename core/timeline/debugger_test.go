package timeline_test

import (
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/racetrack-sim/racetrack/core/scenario"
	"github.com/racetrack-sim/racetrack/core/sim"
	"github.com/racetrack-sim/racetrack/core/timeline"
)

func TestWaitCyclesOfPhilosophers(t *testing.T) {
	tl := record(t, philo("buggy", "lock-level", deadlockSeed(t)), 0)
	v := tl.Violations()[0]
	edges := tl.WaitCycles(v.Step)
	if len(edges) != 5 {
		t.Fatalf("cycle at step %d has %d edges %+v, want the five philosophers", v.Step, len(edges), edges)
	}
	for k, e := range edges {
		next := edges[(k+1)%len(edges)]
		if e.Holder != next.Waiter {
			t.Fatalf("edge %d %+v does not lead to edge %d %+v", k, e, (k+1)%len(edges), next)
		}
		if st := tl.Trace().Step(e.Wait); st.Kind != sim.StepBlock || st.Proc != e.Waiter || st.Obj != int32(e.Mutex) {
			t.Fatalf("edge %+v: step %d is %s of %d on %d, not the waiter's block on the mutex", e, e.Wait, st.Kind, st.Proc, st.Obj)
		}
		if st := tl.Trace().Step(e.Hold); st.Kind != sim.StepLock || st.Proc != e.Holder || st.Obj != int32(e.Mutex) {
			t.Fatalf("edge %+v: step %d is not the holder's lock of the mutex", e, e.Hold)
		}
	}
	for _, e := range edges[1:] {
		if e.Waiter < edges[0].Waiter {
			t.Fatalf("cycle %+v does not start at its least process", edges)
		}
	}
	// Before the last block closes the cycle, there is none.
	if e := tl.WaitCycles(v.Step - 1); e != nil {
		t.Fatalf("a cycle %+v one step before the deadlock", e)
	}
	if e := tl.WaitCycles(tl.Len()); e != nil {
		t.Fatalf("WaitCycles(len) = %+v, want nil", e)
	}
}

// The Vitess deadlock's cycle is runPoller and c1 (unsubscribing), over mu
// and streamMu; the stuck slice of the violation holds both blocks (the
// causal slice misses c1's: nothing orders it before the
// poller's).
func TestWaitCycleOfVitessIsInItsSlice(t *testing.T) {
	tl := record(t, scenario.RunSpec{Scenario: "vitess-messager", Preset: "unsubscribe-vs-poller", Variant: "buggy", Seed: 1}, 0)
	v := tl.Violations()[0]
	edges := tl.WaitCycles(v.Step)
	if len(edges) != 2 {
		t.Fatalf("cycle %+v, want two edges", edges)
	}
	names := map[string]string{}
	for _, e := range edges {
		names[tl.Procs()[e.Waiter].Name] = tl.Mutexes()[e.Mutex].Name
	}
	if names["runPoller"] != "mu" || names["c1"] != "streamMu" {
		t.Fatalf("cycle waits %v, want runPoller on mu and c1 on streamMu", names)
	}
	stuck := tl.StuckSlice(v.Step)
	for _, e := range edges {
		for _, s := range []int{e.Wait, e.Hold} {
			if !slices.Contains(stuck, s) {
				t.Errorf("stuck slice lacks step %d of edge %+v", s, e)
			}
		}
	}
}

// A drawn duration (Vitess's "row event gap", hundreds of options) lists
// its domain in ms with the ends and the pick, and any option of it forks.
func TestValueChoiceDomain(t *testing.T) {
	tl := record(t, scenario.RunSpec{Scenario: "vitess-messager", Preset: "unsubscribe-vs-poller", Variant: "buggy", Seed: 1}, 0)
	for i := 0; i < tl.Len(); i++ {
		alts, err := tl.Alternatives(i)
		if err != nil {
			t.Fatal(err)
		}
		for k, a := range alts {
			if a.Domain == nil || a.N <= timeline.MaxValueOptions {
				continue
			}
			d := a.Domain
			if d.Unit != "ms" || d.Step <= 0 || d.Max != d.Value(a.N-1) || d.Picked != d.Value(a.Picked) {
				t.Fatalf("%s at step %d: domain %+v of %d options, picked %d", a.Label, i, *d, a.N, a.Picked)
			}
			idx := map[int]bool{}
			for _, o := range a.Options {
				idx[o.Index] = true
				if !strings.HasSuffix(o.Text, " ms") {
					t.Fatalf("option text %q has no unit", o.Text)
				}
			}
			if !idx[0] || !idx[a.N-1] || !idx[a.Picked] || len(a.Options) > timeline.MaxValueOptions {
				t.Fatalf("%s: options %+v lack the ends or the pick", a.Label, a.Options)
			}
			typed := a.N / 3
			if typed == a.Picked {
				typed++
			}
			b, err := tl.Branch(i, k, typed)
			if err != nil {
				t.Fatal(err)
			}
			forked := record(t, b.Spec, 0)
			if got := forked.Trace().Choices[a.Choice].Picked; int(got) != typed {
				t.Fatalf("the fork picked option %d at choice %d, want %d", got, a.Choice, typed)
			}
			want := strconv.FormatFloat(d.Value(typed), 'g', 6, 64) + " ms"
			if !strings.HasSuffix(b.Text, want) {
				t.Fatalf("branch text %q, want it to end with %q", b.Text, want)
			}
			return
		}
	}
	t.Fatal("no drawn duration with more than MaxValueOptions options in the run")
}
