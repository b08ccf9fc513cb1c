package scylla

import (
	"github.com/racetrack-sim/racetrack/core/modeltest"
	"strings"
	"testing"

	"github.com/racetrack-sim/racetrack/core/scenario"
	"github.com/racetrack-sim/racetrack/core/sim"
)

// newWorld builds a world for a preset, variant and parameter overrides.
func newWorld(t *testing.T, preset, variant string, params map[string]any, seed uint64, ch sim.Chooser) (*sim.World, scenario.RunSpec) {
	t.Helper()
	reg := scenario.NewRegistry(Scenario())
	spec, sc, _, err := reg.Build(scenario.RunSpec{Scenario: ID, Preset: preset, Variant: variant, Params: params, Seed: seed}, scenario.Options{})
	if err != nil {
		t.Fatal(err)
	}
	m, err := sc.New(spec.Variant, scenario.Values(spec.Params))
	if err != nil {
		t.Fatal(err)
	}
	if ch == nil {
		ch = sim.NewRandomChooser(seed)
	}
	return sim.NewWorld(m, seed, ch, sim.Options{Trace: true}), spec
}

// TestNodeUpdateBacklog pins the level-2 semantics: add_fetch refreshes
// only the calling shard's slot, fetch is at most one interval stale, and
// fetch_if_changed reports a flag once.
func TestNodeUpdateBacklog(t *testing.T) {
	w, _ := newWorld(t, "steady-hot-shard", "buggy", map[string]any{"nodes": 1.0, "rf": 1.0, "shards": 2.0}, 1, nil)
	m := w.Model().(*Model)
	m.now = 0
	if got := m.addFetch(0, 0, true); got != 0 || m.lastUpdate[0] != 0 {
		t.Fatalf("first add_fetch: %d, last update %v", got, m.lastUpdate[0])
	}
	m.setSem(w, 0, 1, 5000) // view updates on shard 1
	m.now = 5 * sim.Millisecond
	if got := m.addFetch(0, 0, true); got != 0 {
		t.Errorf("add_fetch on shard 0 within the interval = %d, want 0 (shard 1's slot was never written)", got)
	}
	m.now = 20 * sim.Millisecond
	if got := m.addFetch(0, 0, true); got != 0 {
		t.Errorf("add_fetch on shard 0 after the interval = %d, want 0: the recomputed max still misses shard 1", got)
	}
	m.add(0, 1)
	m.now = 25 * sim.Millisecond
	if got := m.fetch(0, 0); got != 0 {
		t.Errorf("fetch within the interval = %d, want the cached 0", got)
	}
	m.now = 30 * sim.Millisecond
	if got := m.fetch(0, 0); got != 5000 {
		t.Errorf("fetch after the interval = %d, want 5000", got)
	}
	if b, changed := m.fetchIfChanged(0); b != 5000 || !changed {
		t.Errorf("fetch_if_changed = %d, %v; want 5000, true", b, changed)
	}
	if _, changed := m.fetchIfChanged(0); changed {
		t.Error("fetch_if_changed reported a change twice")
	}
}

func TestFlowControlDelay(t *testing.T) {
	w, _ := newWorld(t, "steady-hot-shard", "fixed", nil, 1, nil)
	m := w.Model().(*Model)
	half := m.cfg.maxMem / 2
	if got := m.delayFor(half, sim.Second); got != 125*sim.Millisecond {
		t.Errorf("delay at relative 0.5 = %v, want 125ms (0.5^3 * 1s)", got)
	}
	if got := m.delayFor(m.cfg.maxMem, 300*sim.Millisecond); got != 300*sim.Millisecond {
		t.Errorf("delay at relative 1 with 300ms left = %v, want the 300ms budget", got)
	}
	if got := m.delayFor(0, sim.Second); got != 0 {
		t.Errorf("delay at no_backlog = %v", got)
	}
}

// flipChooser takes the second option of the first event choice and the
// first option of everything else.
type flipChooser struct{ flipped bool }

func (f *flipChooser) Choose(c *sim.Choice) int {
	if c.Kind == sim.ChooseEvent && !f.flipped {
		f.flipped = true
		return 1
	}
	return 0
}

// TestHashIsCanonical: the two brokers' first ticks run in either order;
// afterwards the states, and their hashes, are the same. A clone hashes
// like its original and stepping it leaves the original alone.
func TestHashIsCanonical(t *testing.T) {
	a, _ := newWorld(t, "stale-gossip", "buggy", nil, 1, sim.FirstChooser{})
	b, _ := newWorld(t, "stale-gossip", "buggy", nil, 1, &flipChooser{})
	for i := 0; i < 2; i++ {
		a.Step()
		b.Step()
	}
	if a.Trace().StepLabel(0) == b.Trace().StepLabel(0) && a.ProcName(a.Trace().Step(0).Proc) == b.ProcName(b.Trace().Step(0).Proc) {
		t.Fatal("the two runs took the same first step")
	}
	if a.Hash() != b.Hash() {
		t.Errorf("same state, different hashes: %x vs %x", a.Hash(), b.Hash())
	}
	c := a.Clone()
	if c.Hash() != a.Hash() {
		t.Fatal("clone hashes differently")
	}
	before := a.Hash()
	c.SetChooser(sim.FirstChooser{})
	for i := 0; i < 10; i++ {
		c.Step()
	}
	if a.Hash() != before {
		t.Error("stepping the clone changed the original")
	}
	if c.Hash() == before {
		t.Error("ten steps changed nothing")
	}
}

// TestAdmissionControlStaleBelief is test_gossip_same_backlog: a 240000 B
// write leaves the coordinator believing 0.96; a rejected write gets no
// response, so only gossip can clear it. With both bugs every later write
// is rejected; with the fixes the next ones are admitted.
func TestAdmissionControlStaleBelief(t *testing.T) {
	params := map[string]any{"admissionControl": true, "writeSizes": []any{240000.0}, "writeCount": 3.0,
		"writeRate": 0.25, "duration": 20000.0}
	for _, v := range []string{"buggy", "fixed"} {
		for seed := uint64(1); seed <= 20; seed++ {
			w, spec := newWorld(t, "stale-gossip", v, params, seed, nil)
			if err := w.Run(sim.Limits{MaxTime: 20 * sim.Second, MaxSteps: spec.MaxSteps}); err != nil {
				t.Fatal(err)
			}
			m := w.Model().(*Model)
			want := 0
			if v == "buggy" {
				want = 2
			}
			if m.issued != 3 || m.rejected != want {
				t.Fatalf("%s seed %d: %d writes, %d rejected; want 3 and %d", v, seed, m.issued, m.rejected, want)
			}
		}
	}
}

// TestViewShowsTheThreeLevels checks the state view at the end of seed 001.
func TestViewShowsTheThreeLevels(t *testing.T) {
	w, spec := newWorld(t, "stale-gossip", "buggy", nil, 1, nil)
	if err := w.Run(spec.Limits()); err != nil {
		t.Fatal(err)
	}
	m := w.Model().(*Model)
	v := m.View(w)
	if want := 2 + 2*1 + 2 + 1; len(v.Groups) != want {
		t.Errorf("%d groups, want %d", len(v.Groups), want)
	}
	field := func(group, name string) string {
		for _, g := range v.Groups {
			if g.ID != group {
				continue
			}
			for _, f := range g.Fields {
				if f.Name == name {
					return f.Value
				}
			}
		}
		t.Fatalf("no field %s in group %s", name, group)
		return ""
	}
	if got := field("n1-beliefs", "n2"); !strings.HasPrefix(got, "0.62 (response, 1.202s); true 0.00") {
		t.Errorf("n1's belief about n2: %q", got)
	}
	if got := field("n2/s0", "units in use"); got != "0" {
		t.Errorf("n2/s0 units: %q", got)
	}
	if got := field("n2", "broker: last gossiped"); got != "0.00 at 0.000s" {
		t.Errorf("n2 broker: %q", got)
	}
	for _, e := range w.Pending() {
		if d := m.Describe(w, &e); d == "" || strings.HasSuffix(d, "handles a message") {
			t.Errorf("pending event %+v described as %q", e, d)
		}
	}
}

// TestSeriesTellTheStory: in seed 001 the chart of n2 shows n1's belief
// stuck at 0.62 while n2's true backlog is back to 0, and every series
// starts at time 0.
func TestSeriesTellTheStory(t *testing.T) {
	w, spec := newWorld(t, "stale-gossip", "buggy", nil, 1, nil)
	if err := w.Run(spec.Limits()); err != nil {
		t.Fatal(err)
	}
	tr := w.Trace()
	last := map[string]float64{}
	for i, d := range tr.SeriesDefs {
		pts := tr.Series[i]
		if len(pts) == 0 || pts[0].Time != 0 {
			t.Errorf("series %q does not start at 0: %v", d.Name, pts)
			continue
		}
		last[d.Name] = pts[len(pts)-1].Value
	}
	if last["n2 true backlog"] != 0 || last["n1 believes n2"] != 0.62 {
		t.Errorf("end of run: n2 true %v, n1 believes %v; want 0 and 0.62", last["n2 true backlog"], last["n1 believes n2"])
	}
}

// TestShouldRejectDueToViewBacklog pins admission control to upstream's
// rule: reject unless every target's relative_size (current / max / 0.8)
// is below 1, so a belief of exactly 0.8 of max is already rejected.
func TestShouldRejectDueToViewBacklog(t *testing.T) {
	w, _ := newWorld(t, "stale-gossip", "buggy", map[string]any{"admissionControl": true}, 1, nil)
	m := w.Model().(*Model)
	x := writeInfo{Owner: 1}
	i := 0*m.cfg.nodes + 1
	m.beliefKnown[i] = true
	for _, c := range []struct {
		belief int64
		reject bool
	}{{199_999, false}, {200_000, true}, {250_000, true}, {0, false}} {
		m.belief[i] = c.belief
		worst, size, reject := m.shouldRejectDueToViewBacklog(0, x)
		if reject != c.reject || worst != 1 || size != float64(c.belief)/250_000/0.8 {
			t.Errorf("belief %d of 250000: reject %v (relative_size %.4f, worst n%d), want reject %v", c.belief, reject, size, worst+1, c.reject)
		}
	}
}

// TestShardAwareRoutingHidesTheWrongShard: with a shard-aware driver a
// write is handled on the shard that applies it, so the pre-fix code
// answers with the right shard's backlog and the wrong-shard presets no
// longer fail; without it they do.
func TestShardAwareRoutingHidesTheWrongShard(t *testing.T) {
	reg := scenario.NewRegistry(Scenario())
	n := uint64(20)
	if testing.Short() {
		n = 6
	}
	for _, preset := range []string{"wrong-shard-remote", "wrong-shard-local", "steady-hot-shard"} {
		for _, aware := range []bool{false, true} {
			violated := uint64(0)
			for seed := uint64(1); seed <= n; seed++ {
				run, err := reg.Execute(scenario.RunSpec{Scenario: ID, Preset: preset, Variant: "buggy", Seed: seed,
					Params: map[string]any{"shardAware": aware}}, scenario.Options{})
				if err != nil {
					t.Fatal(err)
				}
				if run.World.Violated(PropApplyingShard) {
					violated++
				}
			}
			if aware && violated != 0 || !aware && violated < n*9/10 {
				t.Errorf("%s/buggy, shardAware=%v: %s violated on %d of %d seeds", preset, aware, PropApplyingShard, violated, n)
			}
		}
	}
}

// TestFixedGossipNeedsFastRPC: the fixed broker publishes when a response
// has told a coordinator something else, but a response still in flight
// when the broker ticks (rpcLatency near the gossip period, propagation
// instant) lands after the gossip and overwrites it with an older value:
// the fixed variant then fails to converge on 5 of 30 seeds of
// stale-gossip, as upstream would; with fast RPC it never does.
func TestFixedGossipNeedsFastRPC(t *testing.T) {
	reg := scenario.NewRegistry(Scenario())
	slow := modeltest.Sweep(t, reg, scenario.RunSpec{Scenario: ID, Preset: "stale-gossip", Variant: "fixed",
		Params: map[string]any{"rpcLatency": 800.0, "gossipDelayMax": 0.0}}, modeltest.Seeds(1, 30))
	slow.Expect(t, modeltest.Rate{K: 5, N: 30, First: 1}, PropConverges)
	fast := modeltest.Sweep(t, reg, scenario.RunSpec{Scenario: ID, Preset: "stale-gossip", Variant: "fixed",
		Params: map[string]any{"gossipDelayMax": 0.0}}, modeltest.Seeds(1, 30))
	fast.Never(t, PropConverges)
}

// TestNeedPublishingOnlyWhenFlagged: under need-publishing the broker
// gossips only after a flag was raised: nothing at start, and nothing on
// a tick whose backlog changed without an add() (here, never: a fresh
// cluster with no writes stays silent), unlike on-change, which publishes
// its first value at once.
func TestNeedPublishingOnlyWhenFlagged(t *testing.T) {
	for _, c := range []struct {
		variant string
		gossip  bool
	}{{"fixed", false}, {"buggy", true}} {
		w, _ := newWorld(t, "stale-gossip", c.variant, map[string]any{"writeCount": 1.0, "writeStart": 3_000_000.0, "duration": 3_000_000.0}, 1, nil)
		if err := w.Run(sim.Limits{MaxTime: 3500 * sim.Millisecond}); err != nil {
			t.Fatal(err)
		}
		m := w.Model().(*Model)
		if got := m.hasPublished[0] || m.hasPublished[1]; got != c.gossip {
			t.Errorf("%s, no writes for 3.5 s: published %v, want %v", c.variant, got, c.gossip)
		}
	}
}

// TestPerShardMapsNeedGossipOnEveryShard: with one backlog map per
// coordinator shard (upstream's sharded storage_proxy), a response updates
// the map of the shard it lands on, and gossip's on_change runs on shard
// 0. Before #19268 it updated shard 0's map alone, so the other shards
// keep what responses told them and even the fixed variant never
// converges; updating every shard's map (#19268) fixes it.
func TestPerShardMapsNeedGossipOnEveryShard(t *testing.T) {
	reg := scenario.NewRegistry(Scenario())
	for _, preset := range []string{"wrong-shard-remote", "steady-hot-shard"} {
		n := 10
		if testing.Short() {
			n = 4
		}
		spec := scenario.RunSpec{Scenario: ID, Preset: preset, Variant: "fixed", Params: map[string]any{"perShardMaps": true, "gossipAllShards": false}}
		if k := modeltest.Sweep(t, reg, spec, modeltest.Seeds(1, n)).Count(PropConverges); k < n*9/10 {
			t.Errorf("%s/fixed, per-shard maps, gossip on shard 0 only: %s violated on %d of %d seeds, want nearly all", preset, PropConverges, k, n)
		}
		spec.Params = map[string]any{"perShardMaps": true, "gossipAllShards": true}
		modeltest.Sweep(t, reg, spec, modeltest.Seeds(1, n)).Never(t)
	}
}
