package tarantool

import (
	"testing"

	"github.com/racetrack-sim/racetrack/core/scenario"
)

func registry() *scenario.Registry { return scenario.NewRegistry(Scenario()) }

// seeds is the sweep size: full natively, short under -short or -race.
func seeds(full, short int) int {
	if testing.Short() || raceEnabled {
		return short
	}
	return full
}

// sweep runs seeds 1..n of a spec and counts the violations per property.
func sweep(t *testing.T, reg *scenario.Registry, spec scenario.RunSpec, n int) map[string]int {
	t.Helper()
	counts := map[string]int{}
	for seed := 1; seed <= n; seed++ {
		spec.Seed = uint64(seed)
		run, err := reg.Execute(spec, scenario.Options{})
		if err != nil {
			t.Fatalf("%s/%s seed %d: %v", spec.Preset, spec.Variant, seed, err)
		}
		for _, v := range run.World.Violations() {
			counts[v.Property]++
			if counts[v.Property] == 1 {
				t.Logf("%s/%s first %s at seed %d: %s", spec.Preset, spec.Variant, v.Property, seed, v.Message)
			}
		}
	}
	return counts
}

// TestSubscribeDuringElection is the seed's acceptance: with drop the
// voter that subscribed during the election never learns its leader on
// almost every seed; with either fix nothing is violated.
func TestSubscribeDuringElection(t *testing.T) {
	reg := registry()
	n := seeds(500, 100)
	for _, v := range []string{"drop", "pending", "pending-alloc", "merged", "merged-without-recv-vclock"} {
		c := sweep(t, reg, scenario.RunSpec{Scenario: ScenarioID, Preset: "subscribe-during-election", Variant: v}, n)
		t.Logf("subscribe-during-election/%s over %d seeds: %s %d, %s %d, %s %d", v, n,
			PropLearnLeader, c[PropLearnLeader], PropApplyRows, c[PropApplyRows], PropOneLeader, c[PropOneLeader])
		if v == "drop" {
			if c[PropLearnLeader]*100 < 95*n {
				t.Errorf("drop violates %s on %d of %d seeds, want at least 95 %%", PropLearnLeader, c[PropLearnLeader], n)
			}
			continue
		}
		if len(c) != 0 {
			t.Errorf("%s violates %v, want nothing", v, c)
		}
	}
}

// TestOneLeaderPerTermUnderFaults runs every preset and variant with the
// random nemesis switched on (crashes, restarts, partitions, slow links):
// no term ever has two leaders.
func TestOneLeaderPerTermUnderFaults(t *testing.T) {
	reg := registry()
	n := seeds(2000, 200)
	sc := Scenario()
	for _, p := range sc.Presets {
		for _, v := range sc.Variants {
			t.Run(p.ID+"/"+v.ID, func(t *testing.T) {
				t.Parallel()
				spec := scenario.RunSpec{Scenario: ScenarioID, Preset: p.ID, Variant: v.ID,
					Params: map[string]any{"faults": 4.0, "duration": 3000.0}, MaxTime: 3000}
				c := sweep(t, reg, spec, n)
				t.Logf("%s/%s with faults over %d seeds: %s %d, %s %d, %s %d", p.ID, v.ID, n,
					PropOneLeader, c[PropOneLeader], PropLearnLeader, c[PropLearnLeader], PropApplyRows, c[PropApplyRows])
				if c[PropOneLeader] != 0 {
					t.Errorf("%s violated on %d seeds", PropOneLeader, c[PropOneLeader])
				}
			})
		}
	}
}

// TestPresetsShowTheirProperty checks each preset's own sweep: the bug
// shows with drop in the restart and random presets too, and the fixes
// keep followers-learn-leader.
func TestPresetsShowTheirProperty(t *testing.T) {
	reg := registry()
	n := seeds(200, 40)
	for _, p := range []string{"leader-inconsistency", "random-elections"} {
		for _, v := range []string{"drop", "pending", "pending-alloc", "merged", "merged-without-recv-vclock"} {
			c := sweep(t, reg, scenario.RunSpec{Scenario: ScenarioID, Preset: p, Variant: v}, n)
			t.Logf("%s/%s over %d seeds: %s %d, %s %d, %s %d, %s %d", p, v, n,
				PropLearnLeader, c[PropLearnLeader], PropApplyRows, c[PropApplyRows], PropOneLeader, c[PropOneLeader], PropNoResend, c[PropNoResend])
			switch {
			case v == "merged" && c[PropNoResend] != 0:
				t.Errorf("%s/merged violates %s on %d seeds", p, PropNoResend, c[PropNoResend])
			case v == "merged-without-recv-vclock" && c[PropNoResend] == 0:
				t.Errorf("%s/merged-without-recv-vclock never violates %s over %d seeds", p, PropNoResend, n)
			}
			switch {
			case v == "drop" && c[PropLearnLeader] == 0:
				t.Errorf("%s/drop never violates %s over %d seeds", p, PropLearnLeader, n)
			case v != "drop" && c[PropLearnLeader] != 0:
				t.Errorf("%s/%s violates %s on %d seeds", p, v, PropLearnLeader, c[PropLearnLeader])
			}
		}
	}
}

// TestPendingKeepsOneMessageInFlight steps faulty runs and checks, after
// every step, that the rotating pair never has more than one message en
// route per relay; the allocating version piles them up.
func TestPendingKeepsOneMessageInFlight(t *testing.T) {
	reg := registry()
	n := seeds(100, 20)
	for _, v := range []string{"pending", "pending-alloc"} {
		peak := 0
		for seed := 1; seed <= n; seed++ {
			spec := scenario.RunSpec{Scenario: ScenarioID, Preset: "random-elections", Variant: v, Seed: uint64(seed)}
			ns, _, w, err := reg.Build(spec, scenario.Options{})
			if err != nil {
				t.Fatal(err)
			}
			for w.StepWithin(ns.Limits()) {
				for _, r := range w.Model().(*Model).Relays {
					peak = max(peak, r.InFlight)
				}
			}
		}
		t.Logf("%s: at most %d Raft message(s) in flight on one relay over %d seeds", v, peak, n)
		if v == "pending" && peak != 1 {
			t.Errorf("pending: peak of %d messages in flight, want exactly 1", peak)
		}
	}
}

// BenchmarkSubscribeDuringElection measures one run of the seed's preset.
func BenchmarkSubscribeDuringElection(b *testing.B) {
	reg := registry()
	steps := 0
	for i := 0; b.Loop(); i++ {
		run, err := reg.Execute(scenario.RunSpec{Scenario: ScenarioID, Variant: "pending", Seed: uint64(i + 1)}, scenario.Options{})
		if err != nil {
			b.Fatal(err)
		}
		steps += run.World.Steps()
	}
	b.ReportMetric(float64(steps)/float64(b.N), "steps/run")
}

// TestMergedRestartsFromTheReplicasVclock tells the merged fix from the
// v4 patch: v4 leaves recv_vclock as the reused relay struct holds it
// (the previous connection's last ack, or zeros) until the first ack, so
// a leader message that restarts the recovery before it resends rows the
// replica had at subscribe; as merged, recv_vclock starts at the replica's vclock
// and no such row is ever sent again. Both keep followers-learn-leader.
func TestMergedRestartsFromTheReplicasVclock(t *testing.T) {
	reg := registry()
	n := seeds(200, 40)
	resent := map[string]int{}
	for _, v := range []string{"pending", "merged"} {
		for _, p := range []string{"leader-inconsistency", "random-elections"} {
			for seed := 1; seed <= n; seed++ {
				run, err := reg.Execute(scenario.RunSpec{Scenario: ScenarioID, Preset: p, Variant: v, Seed: uint64(seed)}, scenario.Options{})
				if err != nil {
					t.Fatal(err)
				}
				for _, r := range run.World.Model().(*Model).Relays {
					resent[v] += r.Resent
				}
				if run.World.Violated(PropLearnLeader) {
					t.Errorf("%s/%s seed %d violates %s", p, v, seed, PropLearnLeader)
				}
			}
		}
	}
	t.Logf("rows resent below the subscribe vclock over %d seeds of each preset: pending %d, merged %d", n, resent["pending"], resent["merged"])
	if resent["merged"] != 0 || resent["pending"] == 0 {
		t.Errorf("resent rows: pending %d (want some), merged %d (want none)", resent["pending"], resent["merged"])
	}
}

// TestRaftlessReplicasGetNoRaft: an anonymous replica (no relay enables
// Raft for it) and a replica older than 2.6.0 (no Raft state on subscribe,
// no broadcasts) receive no Raft message at all, yet apply the leader's
// rows (their Raft is off: every source is allowed); the same instance,
// not so marked, gets Raft messages from every leader.
func TestRaftlessReplicasGetNoRaft(t *testing.T) {
	reg := registry()
	for _, param := range []string{"", "anonymous", "oldVersion"} {
		params := map[string]any{"modes": []any{2.0, 2.0, 0.0}}
		if param != "" {
			params[param] = 3.0
		}
		raftRows := 0
		for seed := uint64(1); seed <= 10; seed++ {
			run, err := reg.Execute(scenario.RunSpec{Scenario: ScenarioID, Preset: "random-elections", Variant: "merged", Seed: seed, Params: params}, scenario.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if len(run.World.Violations()) != 0 {
				t.Errorf("%q seed %d: %v", param, seed, run.World.Violations())
			}
			m := run.World.Model().(*Model)
			for a := 0; a < 2; a++ {
				raftRows += m.applier(2, a).RaftRows
			}
		}
		if (raftRows == 0) != (param != "") {
			t.Errorf("%q: i3 received %d Raft messages over 10 seeds", param, raftRows)
		}
	}
}

func TestRaftlessNeedsModeOff(t *testing.T) {
	reg := registry()
	for _, params := range []map[string]any{
		{"modes": []any{2.0, 2.0, 1.0}, "anonymous": 3.0},
		{"modes": []any{2.0, 2.0, 0.0}, "oldVersion": 4.0},
		{"modes": []any{2.0, 2.0, 0.0}, "anonymous": 3.0, "script": "gh-5445"},
	} {
		if _, err := reg.Execute(scenario.RunSpec{Scenario: ScenarioID, Preset: "random-elections", Params: params}, scenario.Options{}); err == nil {
			t.Errorf("%v: accepted", params)
		}
	}
}
