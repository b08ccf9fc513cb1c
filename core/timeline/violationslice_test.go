package timeline_test

import (
	"slices"
	"testing"

	"github.com/racetrack-sim/racetrack/core/scenario"
	"github.com/racetrack-sim/racetrack/core/sim"
)

// The slice of Tarantool's followers-learn-leader violation is about the
// leader and the follower that never learned it: it holds the follower's
// steps since the obligation began (the issue saw a slice taken at the
// leader's ack timer that dimmed the follower), and the obligation was
// pending, with the violation's start time, after every step from Start
// to the violation.
func TestSliceOfAnEventuallyViolationHoldsTheObligation(t *testing.T) {
	tl := record(t, scenario.RunSpec{Scenario: "tarantool-raft-relay", Preset: "subscribe-during-election", Variant: "drop", Seed: 1}, 0)
	var v sim.Violation
	for _, x := range tl.Violations() {
		if x.Property == "followers-learn-leader" {
			v = x
		}
	}
	if v.Property == "" {
		t.Fatalf("no followers-learn-leader violation in %+v", tl.Violations())
	}
	sl, err := tl.SliceAt(v.Step)
	if err != nil {
		t.Fatal(err)
	}
	if sl.Property != v.Property || sl.Kind != sim.KindEventually || sl.Message != v.Message {
		t.Fatalf("slice names %q (%v) %q, want the violation %+v", sl.Property, sl.Kind, sl.Message, v)
	}
	t.Logf("violation at %d, obligation from %d, about %v, %d chances, %d steps highlighted of %d", v.Step, sl.Start, sl.About, len(sl.Chances), len(sl.Steps), tl.Len())
	if sl.Start < 0 || sl.Start >= v.Step {
		t.Fatalf("obligation start %d, want a step before the violation at %d", sl.Start, v.Step)
	}
	if len(sl.About) != 2 || !slices.Contains(sl.About, "i2") {
		t.Fatalf("slice is about %v, want the leader and follower i2", sl.About)
	}
	follower := 0
	for _, s := range sl.Chances {
		if s <= sl.Start || s > v.Step || !slices.Contains(sl.Steps, s) {
			t.Fatalf("chance %d outside (%d, %d] or not highlighted", s, sl.Start, v.Step)
		}
		if tl.StepView(s).NodeName == "i2" {
			follower++
		}
	}
	if follower == 0 {
		t.Fatalf("none of the %d chances is a step of the follower i2", len(sl.Chances))
	}
	for _, s := range []int{sl.Start, v.Step} {
		if !slices.Contains(sl.Steps, s) {
			t.Fatalf("slice lacks step %d (start or violation)", s)
		}
	}
	if !slices.IsSorted(sl.Steps) {
		t.Fatal("slice steps out of order")
	}
	// The obligation was pending after Start and not with this start
	// time after the step before it.
	at := func(i int) string {
		st, err := tl.StateAt(i)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range st.Properties {
			if p.Name == v.Property {
				return p.Status
			}
		}
		return ""
	}
	if got := at(sl.Start); got != "pending" {
		t.Fatalf("after the obligation's start step %d the property is %q, want pending", sl.Start, got)
	}
	// A step that is no violation keeps the causal slice.
	plain, err := tl.SliceAt(sl.Start)
	if err != nil || plain.Property != "" || plain.Start != -1 || !slices.Equal(plain.Steps, tl.StuckSlice(sl.Start)) {
		t.Fatalf("SliceAt(%d) = %+v, %v; want the stuck slice", sl.Start, plain, err)
	}
	if _, err := tl.SliceAt(tl.Len()); err == nil {
		t.Fatal("SliceAt(len) did not fail")
	}
}

// ScyllaDB's coordinator-view-converges slice is about the coordinator,
// the replica it misjudges and the gossip mesh.
func TestSliceOfScyllaConvergenceNamesItsNodes(t *testing.T) {
	tl := record(t, scenario.RunSpec{Scenario: "scylla-mv-backlog", Preset: "stale-gossip", Variant: "buggy", Seed: 1}, 0)
	for _, v := range tl.Violations() {
		if v.Property != "coordinator-view-converges" {
			continue
		}
		sl, err := tl.SliceAt(v.Step)
		if err != nil {
			t.Fatal(err)
		}
		if sl.Start < 0 || len(sl.About) < 2 || len(sl.Chances) == 0 {
			t.Fatalf("slice %+v", sl)
		}
		t.Logf("violation at %d: obligation from %d, about %v, %d chances", v.Step, sl.Start, sl.About, len(sl.Chances))
		return
	}
	t.Fatal("no coordinator-view-converges violation in the stale-gossip run")
}
