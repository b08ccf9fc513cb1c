package scylla

import (
	"strings"
	"testing"

	"github.com/racetrack-sim/racetrack/core/scenario"
	"github.com/racetrack-sim/racetrack/core/sim"
)

// TestVariantsNameTheirCommit holds every variant's help to the upstream
// commit it is (or, for the two that never were upstream, says so).
func TestVariantsNameTheirCommit(t *testing.T) {
	commits := map[string][]string{
		"buggy":                     {"4433d2e10e"},
		"fixed":                     {"96dff367f8", "2cafa573df", "e18aeb2486"},
		"fix-shard-only":            {"not an upstream state", "fd9c7d4d59", "f70f774e40"},
		"fix-gossip-only":           {"e18aeb2486", "2cafa573df", "272e80fe0a"},
		"fix-gossip-responses-only": {"never upstream", "f70f774e40"},
		"always-gossip":             {"eedcee7f31"},
		"fix-shard-own-slot":        {"never upstream", "96dff367f8", "fd9c7d4d59"},
	}
	for _, v := range Scenario().Variants {
		want, ok := commits[v.ID]
		if !ok {
			t.Errorf("variant %s: no commit expected by this test", v.ID)
			continue
		}
		for _, c := range want {
			if !strings.Contains(v.Help, c) {
				t.Errorf("variant %s: help %q does not name %q", v.ID, v.Help, c)
			}
		}
	}
}

// TestGossipFixRefreshesWhenViewUpdatesEnd pins e18aeb2486 against the
// wrong fix: there, the end of a view update add()s the applying shard's
// backlog and raises its flag, and the broker's fetch_if_changed leaves
// shard 0's slot alone; the wrong fix refreshes nothing when a view update
// ends, and its broker's add_fetch overwrites shard 0's slot.
func TestGossipFixRefreshesWhenViewUpdatesEnd(t *testing.T) {
	one := map[string]any{"nodes": 1.0, "rf": 1.0, "shards": 2.0}
	for _, c := range []struct {
		variant                 string
		finishFlags, brokerSlot bool
	}{{"fix-gossip-only", true, false}, {"fix-gossip-responses-only", false, true}} {
		w, _ := newWorld(t, "steady-hot-shard", c.variant, one, 1, nil)
		m := w.Model().(*Model)
		m.now = sim.Second
		m.setSem(w, 0, 1, 9000)
		m.viewUpdateDone(w, 0, 1, 4000)
		if got := m.flag[m.idx(0, 1)]; got != c.finishFlags {
			t.Errorf("%s: need_publishing after a view update ended = %v, want %v", c.variant, got, c.finishFlags)
		}
		if got, want := m.slot[m.idx(0, 1)] == 5000, c.finishFlags; got != want {
			t.Errorf("%s: shard 1's slot = %d after its view update ended (refreshed: want %v)", c.variant, m.slot[m.idx(0, 1)], want)
		}
		m.setSem(w, 0, 0, 7000)
		m.brokerTick(w, 0)
		if got := m.slot[m.idx(0, 0)] == 7000; got != c.brokerSlot {
			t.Errorf("%s: the broker tick left shard 0's slot at %d (refreshed: want %v)", c.variant, m.slot[m.idx(0, 0)], c.brokerSlot)
		}
	}
}

// TestSlowViewWriteCatchesTheWrongGossipFix: on stale-gossip-slow-view a
// seed where the wrong fix keeps 0.62 is one where upstream's gossip fix
// gossips 0.00 once the view update ends.
func TestSlowViewWriteCatchesTheWrongGossipFix(t *testing.T) {
	reg := scenario.NewRegistry(Scenario())
	for seed := uint64(1); seed <= 5; seed++ {
		wrong, err := reg.Execute(scenario.RunSpec{Scenario: ID, Preset: "stale-gossip-slow-view", Variant: "fix-gossip-responses-only", Seed: seed}, scenario.Options{})
		if err != nil {
			t.Fatal(err)
		}
		vs := wrong.World.Violations()
		if len(vs) == 0 {
			continue
		}
		if vs[0].Property != PropConverges || !strings.Contains(vs[0].Message, "believes n2's backlog is 0.62") {
			t.Fatalf("seed %d: wrong fix violates %+v, want %s at 0.62", seed, vs[0], PropConverges)
		}
		spans := false
		for _, r := range wrong.World.Reached() {
			spans = spans || r.Property == PropViewSpansTick
		}
		if !spans {
			t.Fatalf("seed %d: the wrong fix fails without a view update spanning a broker tick", seed)
		}
		up, err := reg.Execute(scenario.RunSpec{Scenario: ID, Preset: "stale-gossip-slow-view", Variant: "fix-gossip-only", Seed: seed}, scenario.Options{Trace: true})
		if err != nil {
			t.Fatal(err)
		}
		if vs := up.World.Violations(); len(vs) > 0 {
			t.Fatalf("seed %d: fix-gossip-only violates %+v", seed, vs)
		}
		tr, done := up.World.Trace(), false
		for i := 0; i < tr.Len(); i++ {
			label := tr.StepLabel(i)
			done = done || strings.HasPrefix(label, "remote view update done")
			if done && label == "broker: gossip backlog 0.00 (need_publishing)" {
				return
			}
		}
		t.Fatalf("seed %d: fix-gossip-only never gossips 0.00 after the view update ends", seed)
	}
	t.Fatal("the wrong fix passed seeds 1-5 of stale-gossip-slow-view")
}

// TestShardFixReadsTheNodeMax: fetch() on the handling shard covers the
// applying shard's add() through the node's max; the wrong fix's own-slot
// read does not, unless a shard-aware driver lands the RPC on the
// applying shard.
func TestShardFixReadsTheNodeMax(t *testing.T) {
	reg := scenario.NewRegistry(Scenario())
	for _, c := range []struct {
		variant    string
		shardAware bool
		violated   bool
	}{{"fix-shard-own-slot", false, true}, {"fix-shard-own-slot", true, false}, {"fixed", false, false}} {
		spec := scenario.RunSpec{Scenario: ID, Preset: "wrong-shard-local", Variant: c.variant, Seed: 1,
			Params: map[string]any{pShardAware: c.shardAware}}
		run, err := reg.Execute(spec, scenario.Options{})
		if err != nil {
			t.Fatal(err)
		}
		vs := run.World.Violations()
		got := run.World.Violated(PropApplyingShard)
		if got != c.violated || (got && !strings.Contains(vs[0].Message, "computed on handling shard")) {
			t.Errorf("%s, shardAware %v: %s violated %v (%+v), want %v", c.variant, c.shardAware, PropApplyingShard, got, vs, c.violated)
		}
	}
}

// TestClockSkewIgnoresTheRepublish: offsets stay within ±clockSkew, and a
// seed of stale-gossip-skewed where the fixed variant keeps 0.62 is one
// where the coordinator's clock runs ahead of the replica's by more than
// the time from the response to the broker's republish, whose gossip
// on_change then ignores; without skew the same seed converges.
func TestClockSkewIgnoresTheRepublish(t *testing.T) {
	reg := scenario.NewRegistry(Scenario())
	for seed := uint64(1); seed <= 60; seed++ {
		w, spec := newWorld(t, "stale-gossip-skewed", "fixed", nil, seed, nil)
		if err := w.Run(spec.Limits()); err != nil {
			t.Fatal(err)
		}
		m := w.Model().(*Model)
		for n, off := range m.offset {
			if off < -sim.Second || off > sim.Second || off%sim.Millisecond != 0 {
				t.Fatalf("seed %d: n%d's clock offset %v outside ±1 s at 1 ms", seed, n+1, off)
			}
		}
		vs := w.Violations()
		if len(vs) == 0 {
			continue
		}
		if ahead := m.offset[0] - m.offset[1]; ahead < 700*sim.Millisecond {
			t.Errorf("seed %d: fixed fails with n1 only %v ahead of n2: %s", seed, ahead, vs[0].Message)
		}
		shown := false
		for _, g := range m.View(w).Groups {
			for _, f := range g.Fields {
				shown = shown || (g.ID == "n1" && f.Name == "system_clock offset" && f.Value == msText(m.offset[0]))
			}
		}
		if !shown {
			t.Errorf("seed %d: the state view does not show n1's clock offset %v", seed, m.offset[0])
		}
		tr, ignored := w.Trace(), false
		for i := 0; i < tr.Len(); i++ {
			ignored = ignored || strings.HasPrefix(tr.StepLabel(i), "ignore gossip of n2")
		}
		if !ignored {
			t.Errorf("seed %d: fixed fails but n1 never ignored n2's gossip", seed)
		}
		run, err := reg.Execute(scenario.RunSpec{Scenario: ID, Preset: "stale-gossip-skewed", Variant: "fixed", Seed: seed,
			Params: map[string]any{pClockSkew: 0.0}}, scenario.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if vs := run.World.Violations(); len(vs) > 0 {
			t.Errorf("seed %d without skew: %+v", seed, vs)
		}
		return
	}
	t.Fatal("the fixed variant converged on seeds 1-60 of stale-gossip-skewed")
}

// TestFullSemaphoreFailsTheWrite: a batch that leaves no units available
// fails (upstream consumes the units, sees current() == 0 and drops the
// write), one that leaves a unit goes ahead; the units go back at once.
func TestFullSemaphoreFailsTheWrite(t *testing.T) {
	w, _ := newWorld(t, "steady-hot-shard", "fixed", map[string]any{"nodes": 1.0, "rf": 1.0, "shards": 2.0, "maxMem": 10_000.0}, 1, nil)
	m := w.Model().(*Model)
	m.setSem(w, 0, 0, 4000)
	if m.apply(w, 0, 0, writeInfo{ID: 1, Bytes: 6000}) {
		t.Error("a batch reaching max exactly was applied")
	}
	if m.sem[0] != 4000 {
		t.Errorf("units held after the failed batch: %d, want 4000", m.sem[0])
	}
	if !m.flag[0] {
		t.Error("the fixed code add()s after builder.close() even when generation failed")
	}
	if !m.apply(w, 0, 0, writeInfo{ID: 2, Bytes: 5999}) || m.sem[0] != 9999 {
		t.Errorf("a batch leaving one unit: sem %d, want 9999 and applied", m.sem[0])
	}
}
