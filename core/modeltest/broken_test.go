package modeltest_test

import (
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/racetrack-sim/racetrack/core/check"
	"github.com/racetrack-sim/racetrack/core/modeltest"
	"github.com/racetrack-sim/racetrack/core/scenario"
	"github.com/racetrack-sim/racetrack/core/sim"
)

// counters is a small model that can be broken on purpose, one way per
// conformance check: threads each take a lock, bump their counter and let
// go, a few times; with crossed set, thread 1 takes the two locks in the
// opposite order (a deadlock to find).
type counters struct {
	fault   string
	crossed bool
	timed   bool
	locks   [2]sim.MutexID
	Counts  []int
	Total   int
}

// runs is state outside the model, for the nondeterministic fault;
// hashes, for the impure hash.
var runs, hashes int

const rounds = 3

const (
	pcFirst = iota
	pcSecond
	pcBump
	pcPutSecond
	pcPutFirst
	pcDone
)

func (m *counters) Init(w *sim.World) {
	w.SetUntimed(!m.timed)
	n := w.AddNode("box")
	m.locks = [2]sim.MutexID{w.AddMutex(n, "a"), w.AddMutex(n, "b")}
	for i := range 3 {
		w.AddThread(n, -1, fmt.Sprintf("t%d", i), 0)
	}
	m.Counts = make([]int, 3)
	runs++
}

func (m *counters) order(p sim.ProcID) (sim.MutexID, sim.MutexID) {
	if m.crossed && p == 1 {
		return m.locks[1], m.locks[0]
	}
	return m.locks[0], m.locks[1]
}

func (m *counters) Handle(w *sim.World, p *sim.Proc, _ *sim.Event) sim.Action {
	first, second := m.order(p.ID)
	switch p.PC {
	case pcFirst:
		p.PC = pcSecond
		return sim.Lock(first, "take first")
	case pcSecond:
		p.PC = pcBump
		return sim.Lock(second, "take second")
	case pcBump:
		p.PC = pcPutSecond
		m.Counts[p.ID]++
		m.Total++
		cost := sim.Millisecond
		if m.fault == "nondeterministic" {
			cost = sim.Time(runs%5+1) * sim.Millisecond
		}
		return sim.Local("bump", cost)
	case pcPutSecond:
		p.PC = pcPutFirst
		return sim.Unlock(second, "put second")
	case pcPutFirst:
		p.PC = pcFirst
		if m.Counts[p.ID] == rounds {
			p.PC = pcDone
		}
		return sim.Unlock(first, "put first")
	}
	return sim.Exit("done")
}

var properties = sim.Props[*counters]{
	sim.NoDeadlockProp[*counters](sim.NoDeadlockHelp),
	sim.Always("total-counts", "the total is the sum of the counters",
		func(_ *sim.World, m *counters) bool { return m.Total >= 0 },
		func(_ *sim.World, m *counters) string { return "negative total" }),
	sim.Sometimes("all-counted", "every thread has bumped its counter to the end",
		func(_ *sim.World, m *counters) bool { return m.Total == 3*rounds },
		func(_ *sim.World, m *counters) string { return "all counted" }),
	sim.Sometimes("over-counted", "the total exceeds what the threads can count (unreachable)",
		func(_ *sim.World, m *counters) bool { return m.Total > 3*rounds },
		func(_ *sim.World, m *counters) string { return "over-counted" }),
}

func (m *counters) Properties() []sim.Property { return properties.Of(m) }

func (m *counters) Clone() sim.Model {
	c := *m
	switch m.fault {
	case "shallow-clone":
	case "drop-on-clone":
		c.Counts = append([]int(nil), m.Counts...)
		c.Total = 0
	default:
		c.Counts = append([]int(nil), m.Counts...)
	}
	return &c
}

func (m *counters) Hash(h *sim.Hasher) {
	switch m.fault {
	case "hash-nothing":
		return
	case "hash-impure":
		hashes++
		h.Int(hashes)
	}
	for _, c := range m.Counts {
		h.Int(c)
	}
	h.Int(m.Total)
}

func (m *counters) View(w *sim.World) sim.View {
	g := sim.Group{ID: "counters", Title: "counters"}
	for i, c := range m.Counts {
		g.Fields = append(g.Fields, sim.Field{Name: fmt.Sprintf("t%d", i), Value: fmt.Sprint(c)})
	}
	g.Fields = append(g.Fields, sim.Field{Name: "total", Value: fmt.Sprint(m.Total)})
	return sim.View{Groups: []sim.Group{g}}
}

// brokenScenario is the counters as a catalog entry; overBudget gives its
// preset a budget no engine grants, helpWrong lists a property help that
// the model does not have.
func brokenScenario(overBudget, helpWrong bool) *scenario.Scenario {
	steps := 10_000
	if overBudget {
		steps = scenario.PresetMaxSteps + 1
	}
	help := "the total is the sum of the counters"
	if helpWrong {
		help = "something else"
	}
	faults := []string{"none", "nondeterministic", "shallow-clone", "drop-on-clone", "hash-nothing", "hash-impure"}
	return &scenario.Scenario{
		ID: "counters", Title: "Counters",
		Variants: []scenario.Variant{{ID: "ordered"}, {ID: "crossed"}},
		Presets: []scenario.Preset{{ID: "timed", Params: map[string]any{"timed": true}, MaxTime: 1000, MaxSteps: steps, Reach: "all-counted"},
			{ID: "untimed", Params: map[string]any{}, MaxTime: 1000, MaxSteps: 10_000, Reach: "all-counted"},
			{ID: "never", Params: map[string]any{}, MaxTime: 1000, MaxSteps: 10_000, Reach: "over-counted"}},
		Params: []scenario.Param{scenario.EnumParam("fault", "none", faults, "what to break"),
			scenario.BoolParam("timed", false, "steps take time")},
		Properties: []scenario.PropertyInfo{
			{Name: sim.NoDeadlockName, Kind: sim.KindNoDeadlock, Help: sim.NoDeadlockHelp},
			{Name: "total-counts", Kind: sim.KindAlways, Help: help},
			{Name: "all-counted", Kind: sim.KindSometimes, Help: "every thread has bumped its counter to the end"},
			{Name: "over-counted", Kind: sim.KindSometimes, Help: "the total exceeds what the threads can count (unreachable)"},
		},
		New: func(variant string, v scenario.Values) (sim.Model, error) {
			return &counters{fault: v.String("fault"), crossed: variant == "crossed", timed: v.Bool("timed")}, nil
		},
	}
}

func brokenRegistry(overBudget, helpWrong bool) *scenario.Registry {
	return scenario.NewRegistry(brokenScenario(overBudget, helpWrong))
}

func spec(fault string) scenario.RunSpec {
	return scenario.RunSpec{Scenario: "counters", Preset: "timed", Variant: "ordered", Seed: 3, Params: map[string]any{"fault": fault}}
}

// TestEachCheckFailsOnItsBrokenModel breaks the model one way per check:
// the check meant for it fails, naming the problem and how to replay it,
// and the unbroken model passes every check.
func TestEachCheckFailsOnItsBrokenModel(t *testing.T) {
	reg := brokenRegistry(false, false)
	checks := map[string]func(scenario.RunSpec) error{
		"determinism": func(s scenario.RunSpec) error { return modeltest.CheckDeterminism(reg, s) },
		"seek":        func(s scenario.RunSpec) error { return modeltest.CheckSeek(reg, s, 4) },
		"clone-hash":  func(s scenario.RunSpec) error { return modeltest.CheckCloneHash(reg, s, 4) },
		"derived":     func(s scenario.RunSpec) error { return modeltest.CheckDerived(reg, s, 4) },
	}
	for _, c := range []struct{ fault, check, want string }{
		{"nondeterministic", "determinism", "two runs of one spec differ"},
		{"drop-on-clone", "seek", "differs from a fresh run"},
		{"shallow-clone", "clone-hash", "changed its original"},
		{"hash-nothing", "clone-hash", "Hash misses the state"},
		{"drop-on-clone", "derived", "leaves out state: field Total differs"},
		{"shallow-clone", "derived", "shares memory with the original"},
		{"hash-impure", "derived", "two states with equal fields hash"},
	} {
		err := checks[c.check](spec(c.fault))
		if err == nil || !errors.Is(err, modeltest.ErrNonconforming) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: check %s returned %v, want an error saying %q", c.fault, c.check, err, c.want)
			continue
		}
		if !strings.Contains(err.Error(), "#run=j") || !strings.Contains(err.Error(), "-spec '") {
			t.Errorf("%s: %v lacks the replayable spec or the share link", c.fault, err)
		}
	}
	for name, check := range checks {
		for _, preset := range []string{"timed", "untimed"} {
			s := spec("none")
			s.Preset = preset
			if err := check(s); err != nil {
				t.Errorf("the sound model fails %s on %s: %v", name, preset, err)
			}
		}
	}
}

func TestBudgetAndPropertyChecksFail(t *testing.T) {
	sound := brokenRegistry(false, false)
	sc, _ := sound.Lookup("counters")
	if err := modeltest.CheckBudgets(sound, sc, 0); err != nil {
		t.Errorf("sound budgets: %v", err)
	}
	if err := modeltest.CheckProperties(sound, sc); err != nil {
		t.Errorf("sound properties: %v", err)
	}
	over := brokenRegistry(true, false)
	sc, _ = over.Lookup("counters")
	if err := modeltest.CheckBudgets(over, sc, 0); err == nil || !strings.Contains(err.Error(), "every engine grants at most") {
		t.Errorf("a preset over PresetMaxSteps: %v", err)
	}
	wrong := brokenRegistry(false, true)
	sc, _ = wrong.Lookup("counters")
	if err := modeltest.CheckProperties(wrong, sc); err == nil || !strings.Contains(err.Error(), "in the catalog") {
		t.Errorf("a catalog property help the model does not have: %v", err)
	}
}

// recorder is a testing.TB that keeps the failures instead of failing.
type recorder struct {
	testing.TB
	errs []string
}

func (r *recorder) Helper() {}
func (r *recorder) Errorf(format string, a ...any) {
	r.errs = append(r.errs, fmt.Sprintf(format, a...))
}
func (r *recorder) Fatalf(format string, a ...any) {
	r.errs = append(r.errs, fmt.Sprintf(format, a...))
	panic(r)
}

func TestSweepAndVerifyFailWithALink(t *testing.T) {
	reg := brokenRegistry(false, false)
	crossed := scenario.RunSpec{Scenario: "counters", Preset: "untimed", Variant: "crossed"}
	tally := modeltest.Sweep(t, reg, crossed, modeltest.Seeds(1, 60))
	k := tally.Count(sim.NoDeadlockName)
	if k == 0 {
		t.Fatal("crossed locks never deadlocked over 60 seeds")
	}
	rec := &recorder{TB: t}
	tally.Never(rec, sim.NoDeadlockName)
	if len(rec.errs) != 1 || !strings.Contains(rec.errs[0], "#run=j") || !strings.Contains(rec.errs[0], "&step=") {
		t.Errorf("Never on a deadlocking sweep reported %q", rec.errs)
	}
	rec.errs = nil
	tally.Expect(rec, modeltest.Rate{K: k, N: 60, First: 1}, sim.NoDeadlockName)
	if len(rec.errs) != 0 {
		t.Errorf("Expect with the measured count failed: %q", rec.errs)
	}
	tally.Expect(rec, modeltest.Rate{K: k - 1, N: 60, First: 1}, sim.NoDeadlockName)
	tally.Expect(rec, modeltest.Rate{K: 0, N: 60, First: 1}, sim.NoDeadlockName)
	if len(rec.errs) != 2 {
		t.Errorf("Expect with wrong counts over the same seeds reported %q, want two failures", rec.errs)
	}

	rec.errs = nil
	r := modeltest.Verify(rec, reg, crossed, check.BFS)
	if !r.Found || len(rec.errs) != 1 || !strings.Contains(rec.errs[0], "#run=j") {
		t.Fatalf("Verify of crossed locks: found %v, reported %q", r.Found, rec.errs)
	}
	ordered := crossed
	ordered.Variant = "ordered"
	if r := modeltest.Verify(t, reg, ordered, check.BFS); !r.Exhaustive {
		t.Errorf("ordered locks: bfs not exhaustive: %+v", r)
	}
}

func TestRateBounds(t *testing.T) {
	for _, c := range []struct {
		r      modeltest.Rate
		m      int
		lo, hi int
	}{
		{modeltest.Rate{K: 499, N: 500}, 500, 499, 499},
		{modeltest.Rate{K: 500, N: 500}, 50, 50, 50},
		{modeltest.Rate{K: 0, N: 500}, 50, 0, 0},
		{modeltest.Rate{K: 499, N: 500}, 50, 49, 50},
	} {
		if lo, hi := c.r.Bounds(c.m); lo != c.lo || hi != c.hi {
			t.Errorf("%s over %d seeds: bounds [%d, %d], want [%d, %d]", c.r, c.m, lo, hi, c.lo, c.hi)
		}
	}
	lo, hi := modeltest.Rate{K: 101, N: 2000}.Bounds(200)
	if lo > 1 || hi < 20 || hi > 25 {
		t.Errorf("101/2000 over 200 seeds: [%d, %d]", lo, hi)
	}
}

func TestShareLinkCarriesTheSpec(t *testing.T) {
	s := scenario.RunSpec{Scenario: "counters", Preset: "untimed", Variant: "crossed", Seed: 7, Schedule: []int{1, 0, 2}}
	link := modeltest.ShareLink(s, 12)
	frag, ok := strings.CutPrefix(link, modeltest.BaseURL+"#run=j")
	run, step, ok2 := strings.Cut(frag, "&step=")
	if !ok || !ok2 || step != "12" {
		t.Fatalf("link %s", link)
	}
	b, err := base64.RawURLEncoding.DecodeString(run)
	if err != nil {
		t.Fatal(err)
	}
	got, err := scenario.DecodeRunSpec(b)
	if err != nil || got.Seed != 7 || len(got.Schedule) != 3 || got.Variant != "crossed" {
		t.Fatalf("decoded %+v, %v", got, err)
	}
}

func TestReachCheckAndSometimesVerdicts(t *testing.T) {
	reg := brokenRegistry(false, false)
	ordered := scenario.RunSpec{Scenario: "counters", Preset: "untimed", Variant: "ordered"}
	if err := modeltest.CheckReach(reg, ordered, 50); err != nil {
		t.Errorf("a reachable Reach: %v", err)
	}
	never := ordered
	never.Preset = "never"
	if err := modeltest.CheckReach(reg, never, 50); err == nil || !strings.Contains(err.Error(), "reaches over-counted") {
		t.Errorf("an unreachable Reach: %v", err)
	}
	if r := modeltest.Search(t, reg, ordered, check.BFS, "all-counted"); !r.Found || r.Verdict != check.VerdictReached || r.Counterexample == nil {
		t.Errorf("bfs for a reachable Sometimes: %+v", r)
	}
	if r := modeltest.Search(t, reg, ordered, check.BFS, "over-counted"); r.Found || r.Verdict != check.VerdictUnreachable {
		t.Errorf("bfs for an unreachable Sometimes: %+v", r)
	}
	run, err := reg.Execute(ordered, scenario.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := run.World.Reached(); len(got) != 1 || got[0].Property != "all-counted" || run.World.Violated("all-counted") || len(run.World.Violations()) != 0 {
		t.Errorf("a run reached %v and violated %v", got, run.World.Violations())
	}
}
