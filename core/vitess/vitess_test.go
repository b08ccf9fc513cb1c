package vitess_test

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/racetrack-sim/racetrack/core/scenario"
	"github.com/racetrack-sim/racetrack/core/sim"
	"github.com/racetrack-sim/racetrack/core/vitess"
)

var reg = scenario.NewRegistry(vitess.Scenario())

// tally counts the seeds on which each property failed.
type tally struct {
	runs      int
	violated  map[string]int
	firstMsgs map[string]string
}

func sweep(t *testing.T, preset, variant string, seeds int) tally {
	t.Helper()
	tl := tally{runs: seeds, violated: map[string]int{}, firstMsgs: map[string]string{}}
	for s := 0; s < seeds; s++ {
		run, err := reg.Execute(scenario.RunSpec{Scenario: vitess.ID, Preset: preset, Variant: variant, Seed: uint64(s)}, scenario.Options{})
		if err != nil {
			t.Fatalf("%s/%s seed %d: %v", preset, variant, s, err)
		}
		for _, v := range run.World.Violations() {
			tl.violated[v.Property]++
			if _, ok := tl.firstMsgs[v.Property]; !ok {
				tl.firstMsgs[v.Property] = fmt.Sprintf("seed %d: %s", s, v.Message)
			}
		}
	}
	return tl
}

func (tl tally) log(t *testing.T, preset, variant string) {
	t.Helper()
	t.Logf("%s/%s over %d seeds: no-deadlock violated on %d (%.1f%%), close-completes on %d, delivery-progress on %d",
		preset, variant, tl.runs, tl.violated[sim.NoDeadlockName], 100*float64(tl.violated[sim.NoDeadlockName])/float64(tl.runs),
		tl.violated[vitess.CloseCompletes], tl.violated[vitess.DeliveryProgress])
}

func seeds(full, short int) int {
	if testing.Short() {
		return short
	}
	return full
}

// TestPresetsHangBuggyNotFixed: the two targeted presets deadlock the
// buggy manager on at least 95% of seeds and Close never returns there;
// the fixed manager never deadlocks and Close always returns.
func TestPresetsHangBuggyNotFixed(t *testing.T) {
	n := seeds(500, 100)
	for _, preset := range []string{vitess.PresetUnsubscribeVsPoller, vitess.PresetSubscribeVsRowEvent} {
		bad := sweep(t, preset, "buggy", n)
		bad.log(t, preset, "buggy")
		t.Logf("  first: %s", bad.firstMsgs[sim.NoDeadlockName])
		if d := bad.violated[sim.NoDeadlockName]; d*100 < 95*n {
			t.Errorf("%s/buggy: deadlocked on %d of %d seeds, want at least 95%%", preset, d, n)
		}
		if c := bad.violated[vitess.CloseCompletes]; c*100 < 95*n {
			t.Errorf("%s/buggy: close-completes failed on %d of %d seeds, want at least 95%%", preset, c, n)
		}
		good := sweep(t, preset, "fixed", n)
		good.log(t, preset, "fixed")
		for prop, k := range good.violated {
			t.Errorf("%s/fixed: %s violated on %d seeds (%s)", preset, prop, k, good.firstMsgs[prop])
		}
	}
}

// TestChurnIsRare: under churn the buggy manager deadlocks on some seeds
// (the window is narrow), the fixed one on none.
func TestChurnIsRare(t *testing.T) {
	n := seeds(2000, 200)
	bad := sweep(t, vitess.PresetChurn, "buggy", n)
	bad.log(t, vitess.PresetChurn, "buggy")
	t.Logf("  first: %s", bad.firstMsgs[sim.NoDeadlockName])
	if bad.violated[sim.NoDeadlockName] == 0 {
		t.Errorf("churn/buggy: no deadlock in %d seeds", n)
	}
	good := sweep(t, vitess.PresetChurn, "fixed", n)
	good.log(t, vitess.PresetChurn, "fixed")
	for prop, k := range good.violated {
		t.Errorf("churn/fixed: %s violated on %d seeds (%s)", prop, k, good.firstMsgs[prop])
	}
}

// TestReportsNameTheCycle: the kernel's report names both goroutines and
// both mutexes; Close's explanation names the upstream functions.
func TestReportsNameTheCycle(t *testing.T) {
	run, err := reg.Execute(scenario.RunSpec{Scenario: vitess.ID, Preset: vitess.PresetUnsubscribeVsPoller, Seed: 1}, scenario.Options{Trace: true})
	if err != nil {
		t.Fatal(err)
	}
	msgs := map[string]string{}
	for _, v := range run.World.Violations() {
		msgs[v.Property] = v.Message
	}
	t.Logf("no-deadlock: %s", msgs[sim.NoDeadlockName])
	t.Logf("close-completes: %s", msgs[vitess.CloseCompletes])
	for _, want := range []string{"runPoller holds streamMu, waits for mu", "unsubscribe(c1) holds mu, waits for streamMu"} {
		if !strings.Contains(msgs[sim.NoDeadlockName], want) {
			t.Errorf("no-deadlock report %q lacks %q", msgs[sim.NoDeadlockName], want)
		}
	}
	for _, want := range []string{"pollerTicks.Stop", "unsubscribe(c1) holds mu, waits for streamMu in unsubscribe → stopVStream", "runPoller holds streamMu"} {
		if !strings.Contains(msgs[vitess.CloseCompletes], want) {
			t.Errorf("close-completes explanation %q lacks %q", msgs[vitess.CloseCompletes], want)
		}
	}
	view := fields(run.World)
	if got := view["locks/mu"]; !strings.HasPrefix(got, "held by unsubscribe(c1)") {
		t.Errorf("locks/mu = %q, want held by unsubscribe(c1)", got)
	}
	if got := view["runPoller/in"]; got != "runPoller" {
		t.Errorf("runPoller/in = %q", got)
	}
	if got := view["c1/in"]; got != "unsubscribe → stopVStream" {
		t.Errorf("c1/in = %q", got)
	}
	if got := view["messageManager/receivers"]; got != "0 []" {
		t.Errorf("receivers = %q, want 0 (the last receiver left)", got)
	}
}

func fields(w *sim.World) map[string]string {
	out := map[string]string{}
	for _, g := range w.Model().(sim.Viewer).View(w).Groups {
		for _, f := range g.Fields {
			out[g.ID+"/"+f.Name] = f.Value
		}
	}
	return out
}

// TestFixedDeliversAndCloses: in the fixed variant messages flow to the
// receivers and every goroutine has returned at the end.
func TestFixedDeliversAndCloses(t *testing.T) {
	run, err := reg.Execute(scenario.RunSpec{Scenario: vitess.ID, Preset: vitess.PresetChurn, Variant: "fixed", Seed: 4}, scenario.Options{Trace: true})
	if err != nil {
		t.Fatal(err)
	}
	w := run.World
	if w.Stop() != sim.StopQuiescent || len(w.Violations()) != 0 {
		t.Fatalf("stop %s, violations %v", w.Stop(), w.Violations())
	}
	for _, p := range w.Procs() {
		if p.Status != sim.Done {
			t.Errorf("%s is %s at the end", p.Name, p.Status)
		}
	}
	view := fields(w)
	t.Logf("delivered %s messages; isOpen %s", view["messageManager/delivered"], view["messageManager/isOpen"])
	if view["messageManager/delivered"] == "0" || view["messageManager/isOpen"] != "false" {
		t.Errorf("delivered %s, isOpen %s", view["messageManager/delivered"], view["messageManager/isOpen"])
	}
}

// TestViewAndDescribeEveryStep renders the view and describes every ready
// event at every step of runs that visit every goroutine's steps, and
// checks that the view names the mutex holders.
func TestViewAndDescribeEveryStep(t *testing.T) {
	for _, spec := range []scenario.RunSpec{
		{Scenario: vitess.ID, Preset: vitess.PresetChurn, Variant: "buggy", Seed: 15},
		{Scenario: vitess.ID, Preset: vitess.PresetChurn, Variant: "fixed", Seed: 15},
		{Scenario: vitess.ID, Preset: vitess.PresetLockLevel, Variant: "buggy", Seed: 3, Params: map[string]any{"delivery": true}},
	} {
		ns, _, w, err := reg.Build(spec, scenario.Options{Trace: true})
		if err != nil {
			t.Fatal(err)
		}
		m := w.Model().(*vitess.Manager)
		described := map[string]bool{}
		for w.StepWithin(ns.Limits()) {
			for _, e := range w.Ready() {
				if d := m.Describe(w, &e); d == "" {
					t.Fatalf("%s/%s: empty description of %s's event at step %d", spec.Preset, spec.Variant, w.ProcName(e.Proc), w.Steps())
				} else {
					described[d] = true
				}
			}
			f := fields(w)
			if holder := w.Mutex(0).Holder; holder != sim.None && !strings.HasPrefix(f["locks/mu"], "held by ") {
				t.Fatalf("step %d: mu held by %s, view says %q", w.Steps(), w.ProcName(holder), f["locks/mu"])
			}
		}
		w.Finish()
		if len(described) < 20 {
			t.Errorf("%s/%s: only %d distinct descriptions", spec.Preset, spec.Variant, len(described))
		}
		for _, s := range w.Trace().Series {
			if len(s) == 0 {
				t.Errorf("%s/%s: a series has no points", spec.Preset, spec.Variant)
			}
		}
	}
}

func BenchmarkChurnRun(b *testing.B) {
	steps, seed := 0, uint64(0)
	for b.Loop() {
		seed++
		run, err := reg.Execute(scenario.RunSpec{Scenario: vitess.ID, Preset: vitess.PresetChurn, Variant: "fixed", Seed: seed}, scenario.Options{})
		if err != nil {
			b.Fatal(err)
		}
		steps += run.World.Steps()
	}
	b.ReportMetric(float64(steps)/b.Elapsed().Seconds(), "steps/s")
}

func BenchmarkLockLevelRun(b *testing.B) {
	steps, seed := 0, uint64(0)
	for b.Loop() {
		seed++
		run, err := reg.Execute(scenario.RunSpec{Scenario: vitess.ID, Preset: vitess.PresetLockLevel, Variant: "fixed", Seed: seed,
			Params: map[string]any{"clients": 3, "iterations": 2}}, scenario.Options{})
		if err != nil {
			b.Fatal(err)
		}
		steps += run.World.Steps()
	}
	b.ReportMetric(float64(steps)/b.Elapsed().Seconds(), "steps/s")
}

// TestWrongFixBreaksWhatStreamMuProtects: dropping streamMu from runPoller
// removes the poller's half of the lock cycle (unsubscribe-vs-poller no
// longer hangs on almost every seed) but lets a send's cache.Discard or a
// vstream event fall between the poller's snapshot and its cache.Add:
// no-stale-requeue fails. v13 and v14 never break it.
func TestWrongFixBreaksWhatStreamMuProtects(t *testing.T) {
	n := seeds(200, 40)
	for _, preset := range []string{vitess.PresetUnsubscribeVsPoller, vitess.PresetChurn} {
		wrong := sweep(t, preset, vitess.VariantUnlockedPoller, n)
		if k := wrong.violated[vitess.NoStaleRequeue]; k == 0 {
			t.Errorf("%s/%s: no-stale-requeue never fails over %d seeds", preset, vitess.VariantUnlockedPoller, n)
		} else {
			t.Logf("%s/%s over %d seeds: no-stale-requeue %d, no-deadlock %d; e.g. %s", preset, vitess.VariantUnlockedPoller, n,
				k, wrong.violated[sim.NoDeadlockName], wrong.firstMsgs[vitess.NoStaleRequeue])
		}
		for _, v := range []string{"buggy", "fixed"} {
			if k := sweep(t, preset, v, n).violated[vitess.NoStaleRequeue]; k != 0 {
				t.Errorf("%s/%s: no-stale-requeue fails on %d seeds", preset, v, k)
			}
		}
	}
	if k := sweep(t, vitess.PresetUnsubscribeVsPoller, vitess.VariantUnlockedPoller, n).violated[sim.NoDeadlockName]; k*10 > n {
		t.Errorf("the wrong fix still deadlocks unsubscribe-vs-poller on %d of %d seeds; it removes the poller's cycle", k, n)
	}
}

// TestPollerRearmsAfterReturning: pollerTicks is a vitess timer.Timer,
// whose run loop arms a fresh timer of one interval after runPoller
// returns (not a ticker): every tick starts exactly one poller interval
// after the previous runPoller returned, however long it ran.
func TestPollerRearmsAfterReturning(t *testing.T) {
	run, err := reg.Execute(scenario.RunSpec{Scenario: vitess.ID, Preset: vitess.PresetUnsubscribeVsPoller, Variant: "fixed", Seed: 2,
		Params: map[string]any{"readPendingCostFixed": 300.0}}, scenario.Options{Trace: true})
	if err != nil {
		t.Fatal(err)
	}
	tr := run.World.Trace()
	returned, ticks := sim.Time(-1), 0
	for i := 0; i < tr.Len(); i++ {
		s := tr.Step(i)
		switch tr.Label(s.Label) {
		case "runPoller returned":
			returned = s.Time
		case "pollerTicks: tick; runPoller()":
			if returned >= 0 {
				ticks++
				if gap := s.Time - returned; gap != sim.Second {
					t.Fatalf("a tick at %s, %s after runPoller returned; want the interval, 1s", s.Time, gap)
				}
			}
		}
	}
	if ticks < 5 {
		t.Fatalf("only %d ticks after a return", ticks)
	}
}

// TestFieldInfoSentUnderMu: Subscribe sends the field info to the client
// while it holds mu (a #9936 detail): a client slow to take it stalls
// everything that needs mu, even in v14. Close, starting while the first
// Subscribe is in that Send, waits for mu and misses its deadline; with
// the Send not modelled it returns at once.
func TestFieldInfoSentUnderMu(t *testing.T) {
	for _, cost := range []float64{0, 3000} {
		run, err := reg.Execute(scenario.RunSpec{Scenario: vitess.ID, Preset: vitess.PresetUnsubscribeVsPoller, Variant: "fixed", Seed: 1,
			Params: map[string]any{"fieldSendCost": cost, "thinkTime": 100.0, "closeAt": 100.0, "closeDeadline": 1000.0}}, scenario.Options{})
		if err != nil {
			t.Fatal(err)
		}
		late := run.World.Violated(vitess.CloseCompletes)
		if late != (cost > 0) {
			t.Errorf("fieldSendCost %v ms: close-completes violated %v, want %v (%v)", cost, late, cost > 0, run.World.Violations())
		}
	}
}

// TestEngineMutexHoldsCloseBack: the messager Engine holds its own mutex
// across the manager's Subscribe and Close (both in the #9936 thread). A
// Subscribe stalled under mu (a slow field-info Send) then stops the
// tablet transition at Engine.Close's engine.mu, before it reaches the
// manager; without the engine's mutex Close gets as far as mu.
func TestEngineMutexHoldsCloseBack(t *testing.T) {
	for _, engine := range []bool{false, true} {
		run, err := reg.Execute(scenario.RunSpec{Scenario: vitess.ID, Preset: vitess.PresetUnsubscribeVsPoller, Variant: "fixed", Seed: 1,
			Params: map[string]any{"engineMutex": engine, "fieldSendCost": 3000.0, "thinkTime": 100.0, "closeAt": 100.0, "closeDeadline": 1000.0}},
			scenario.Options{})
		if err != nil {
			t.Fatal(err)
		}
		var msg string
		for _, v := range run.World.Violations() {
			if v.Property == vitess.CloseCompletes {
				msg = v.Message
			}
		}
		want := "Close waits for mu"
		if engine {
			want = "Close waits for engine.mu"
		}
		if !strings.Contains(msg, want) {
			t.Errorf("engineMutex=%v: close-completes says %q, want %q", engine, msg, want)
		}
		if !run.World.Violated(vitess.CloseCompletes) || run.World.Violated(sim.NoDeadlockName) {
			t.Errorf("engineMutex=%v: violations %v", engine, run.World.Violations())
		}
	}
}

// TestWindowNamesWhoLeavesUnderWhom: the last-leaves-under-stream
// explanation, built when the property is read, names the client that
// left and the goroutine that held streamMu at that step; and a run with
// a trace records the same step labels it would without one building
// them.
func TestWindowNamesWhoLeavesUnderWhom(t *testing.T) {
	re := regexp.MustCompile(`^c[0-9]+ removed the last receiver while (runPoller|runOneVStream) holds streamMu$`)
	found := 0
	for s := 0; s < seeds(300, 100) && found == 0; s++ {
		run, err := reg.Execute(scenario.RunSpec{Scenario: vitess.ID, Preset: vitess.PresetUnsubscribeVsPoller, Variant: "buggy", Seed: uint64(s)}, scenario.Options{Trace: true})
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range run.World.Reached() {
			if r.Property != vitess.LastLeavesUnderStream {
				continue
			}
			found++
			if !re.MatchString(r.Message) {
				t.Errorf("seed %d: %s explanation %q does not match %s", s, r.Property, r.Message, re)
			}
			tr := run.World.Trace()
			labels := map[string]bool{}
			for i := range tr.Len() {
				labels[tr.StepLabel(i)] = true
			}
			for _, want := range []string{"runOneVStream: streamMu.Unlock()", "go send(): 1 row(s); mu.Unlock()", "receiverCount: 1 receivers; mu.Unlock()", "Subscribe: receivers = append(..); rescanReceivers: cond.Broadcast()"} {
				if !labels[want] {
					t.Errorf("seed %d: no step of the trace is labelled %q", s, want)
				}
			}
		}
	}
	if found == 0 {
		t.Fatalf("%s reached on no seed", vitess.LastLeavesUnderStream)
	}
}
