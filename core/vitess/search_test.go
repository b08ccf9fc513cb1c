package vitess_test

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/racetrack-sim/racetrack/core/internal/golden"

	"github.com/racetrack-sim/racetrack/core/scenario"
	"github.com/racetrack-sim/racetrack/core/sim"
	"github.com/racetrack-sim/racetrack/core/vitess"
)

const goldenPath = "testdata/lock-level-deadlock.golden"

// TestLockLevelShortestDeadlock finds the shortest deadlock of the buggy
// lock-level preset by breadth-first search, replays its schedule, and
// compares the trace with the golden file.
func TestLockLevelShortestDeadlock(t *testing.T) {
	spec := scenario.RunSpec{Scenario: vitess.ID, Preset: vitess.PresetLockLevel, Variant: "buggy"}
	r, err := bfs(spec, sim.NoDeadlockName, 1_000_000)
	if err != nil {
		t.Fatal(err)
	}
	if r.schedule == nil {
		t.Fatalf("no deadlock found in %d states", r.states)
	}
	t.Logf("shortest deadlock: %d steps, schedule %v (%d states stored)", r.steps, r.schedule, r.states)
	spec.Schedule = r.schedule
	got, w := replay(t, spec, r)
	if v := w.Violations(); len(v) == 0 || v[0].Property != sim.NoDeadlockName || w.Steps() != r.steps {
		t.Fatalf("replay: %d steps, violations %v; want a deadlock at step %d", w.Steps(), v, r.steps)
	}
	golden.Check(t, goldenPath, []byte(got))
}

// replay steps spec's schedule one event at a time and writes the trace,
// listing at each choice point every option in the model's words.
func replay(t *testing.T, spec scenario.RunSpec, r bfsResult) (string, *sim.World) {
	t.Helper()
	ns, _, w, err := reg.Build(spec, scenario.Options{Trace: true, StopOnViolation: true})
	if err != nil {
		t.Fatal(err)
	}
	d := w.Model().(sim.Describer)
	var b strings.Builder
	fmt.Fprintf(&b, "# %s %s/%s: the shortest deadlock, found by breadth-first search over %d states\n", ns.Scenario, ns.Preset, ns.Variant, r.states)
	fmt.Fprintf(&b, "# params: clients=%v iterations=%v\n", ns.Params["clients"], ns.Params["iterations"])
	fmt.Fprintf(&b, "# schedule (%d choices): %v\n", len(ns.Schedule), ns.Schedule)
	fmt.Fprintf(&b, "# length: %d steps\n", r.steps)
	for w.Stop() == sim.StopNone {
		ready := w.Ready()
		var opts []string
		if len(ready) > 1 {
			for k := range ready {
				opts = append(opts, fmt.Sprintf("%d: %s", k, d.Describe(w, &ready[k])))
			}
		}
		i := w.Steps()
		if !w.StepWithin(ns.Limits()) {
			break
		}
		st := w.Trace().Step(i)
		fmt.Fprintf(&b, "%3d  %-10s %-7s %s\n", i, w.ProcName(st.Proc), st.Kind, w.Trace().StepLabel(i))
		if len(opts) > 0 {
			fmt.Fprintf(&b, "       options: %s\n", strings.Join(opts, " | "))
		}
	}
	for _, v := range w.Violations() {
		fmt.Fprintf(&b, "violation %s at step %d: %s\n", v.Property, v.Step, v.Message)
		fmt.Fprintf(&b, "explained: %s\n", w.Model().(*vitess.Manager).Explain(w))
	}
	return b.String(), w
}

// TestLockLevelFixedIsDeadlockFree explores every interleaving of the
// fixed lock-level preset and finds no deadlock.
func TestLockLevelFixedIsDeadlockFree(t *testing.T) {
	params := map[string]any{}
	if testing.Short() {
		params["clients"] = 1
	}
	r, err := bfs(scenario.RunSpec{Scenario: vitess.ID, Preset: vitess.PresetLockLevel, Variant: "fixed", Params: params}, sim.NoDeadlockName, 2_000_000)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("fixed lock-level %v: %d states, complete %v", params, r.states, r.complete)
	if !r.complete || r.schedule != nil {
		t.Fatalf("complete %v, deadlock schedule %v", r.complete, r.schedule)
	}
}

// TestHashIsCanonical: two orders of independent steps reach the same
// state and the same hash; different states hash differently; a clone
// steps without touching the original.
func TestHashIsCanonical(t *testing.T) {
	_, _, root, err := reg.Build(scenario.RunSpec{Scenario: vitess.ID, Preset: vitess.PresetLockLevel}, scenario.Options{})
	if err != nil {
		t.Fatal(err)
	}
	procOf := func(w *sim.World, name string) int {
		for k, e := range w.Ready() {
			if w.ProcName(e.Proc) == name {
				return k
			}
		}
		t.Fatalf("%s not ready", name)
		return -1
	}
	step := func(w *sim.World, names ...string) *sim.World {
		c := w.Clone()
		for _, n := range names {
			c.SetChooser(&sim.ScriptChooser{Schedule: []int{procOf(c, n)}})
			if !c.Step() {
				t.Fatalf("step %s: %v", n, c.Err())
			}
		}
		return c
	}
	before := root.Hash()
	// c1 takes mu while the binlog commits a row with no vstream running:
	// independent steps.
	ab := step(root, "c1", "vstream")
	ba := step(root, "vstream", "c1")
	if ab.Hash() != ba.Hash() {
		t.Errorf("c1 then vstream hashes %x, vstream then c1 %x", ab.Hash(), ba.Hash())
	}
	if a, b := step(root, "c1"), step(root, "vstream"); a.Hash() == b.Hash() {
		t.Errorf("different states hash the same: %x", a.Hash())
	}
	// Symmetry: c1 subscribing is c2 subscribing with the clients renamed.
	m := root.Model().(*vitess.Manager)
	canonical := func(w *sim.World) uint64 {
		mm := w.Model().(*vitess.Manager)
		best := w.Hash()
		for _, p := range mm.Symmetries(w) {
			best = min(best, w.HashPermuted(&p, func(h *sim.Hasher) { mm.HashPermuted(h, &p) }))
		}
		return best
	}
	if n := len(m.Symmetries(root)); n != 1 {
		t.Errorf("2 clients: %d symmetries besides the identity, want 1", n)
	}
	one, two := step(root, "c1", "c1", "c1"), step(root, "c2", "c2", "c2")
	if one.Hash() == two.Hash() || canonical(one) != canonical(two) {
		t.Errorf("c1 and c2 subscribing: hashes %x %x, canonical %x %x", one.Hash(), two.Hash(), canonical(one), canonical(two))
	}
	if root.Hash() != before || root.Steps() != 0 {
		t.Errorf("stepping clones changed the original")
	}
}

// TestLockLevelCycles explores every interleaving of the buggy lock-level
// preset, collects the shapes of the lock cycles it can reach, and checks
// them against the upstream analysis: four pairs close a cycle, and the
// first Subscribe never meets a row event (a cancelled stream's callback
// returns at its ctx check, before Add).
func TestLockLevelCycles(t *testing.T) {
	params := map[string]any{} // clients=2, iterations=1
	if testing.Short() {
		params = map[string]any{"clients": 1, "iterations": 2} // one client that comes back
	}
	_, _, root, err := reg.Build(scenario.RunSpec{Scenario: vitess.ID, Preset: vitess.PresetLockLevel, Variant: "buggy", Params: params}, scenario.Options{})
	if err != nil {
		t.Fatal(err)
	}
	shapes := map[string]int{}
	states, complete, err := explore(root, math.MaxInt, func(c *sim.World) (expand, stop bool) {
		if c.Violated(sim.NoDeadlockName) {
			shapes[cycleShape(c.Violations()[0].Message)]++
			return false, false
		}
		return true, false
	})
	if err != nil || !complete {
		t.Fatalf("census stopped: %v", err)
	}
	t.Logf("lock-level %v: %d states; deadlocked states by cycle: %v", params, states, shapes)
	for _, want := range []string{"Close+runOneVStream", "Subscribe+runPoller", "runOneVStream+unsubscribe", "runPoller+unsubscribe"} {
		if shapes[want] == 0 {
			t.Errorf("no %s cycle reached", want)
		}
	}
	if n := shapes["Subscribe+runOneVStream"]; n != 0 {
		t.Errorf("Subscribe vs row event reached %d times; upstream it cannot be", n)
	}
}

// cycleShape reduces "unsubscribe(c2) holds mu, waits for streamMu;
// runPoller holds ..." to "runPoller+unsubscribe".
func cycleShape(msg string) string {
	var names []string
	for _, part := range strings.Split(msg, "; ") {
		name, _, _ := strings.Cut(part, " ")
		name, _, _ = strings.Cut(name, "(")
		names = append(names, name)
	}
	slices.Sort(names)
	return strings.Join(names, "+")
}
