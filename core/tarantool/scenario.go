package tarantool

import (
	"fmt"

	"github.com/racetrack-sim/racetrack/core/scenario"
	"github.com/racetrack-sim/racetrack/core/sim"
)

// ScenarioID is the catalog id.
const ScenarioID = "tarantool-raft-relay"

var variantIDs = map[string]Variant{"drop": Drop, "pending": Pending, "pending-alloc": PendingAlloc, "merged": Merged,
	"merged-without-recv-vclock": MergedWithoutRecvVclock}

// Scenario is the catalog entry.
func Scenario() *scenario.Scenario {
	return &scenario.Scenario{
		ID:      ScenarioID,
		Title:   "Tarantool: Raft leader notification lost before the relay starts",
		Summary: "A candidate wins while its relay to a fresh voter is still starting; the 'I am leader' message is dropped and the voter ignores every row.",
		Story: "A voter subscribes to a candidate that is one vote short. box_process_subscribe writes the candidate's Raft state " +
			"(a vote request) straight to the socket, then starts the relay thread. The voter votes at once, through its own, " +
			"long-enabled relay; the candidate becomes leader and broadcasts. But the relay to the voter has not finished its " +
			"is_raft_enabled round trip with tx, so relay_push_raft throws the leader message away. The relay then streams the " +
			"leader's rows, and the voter, whose leader is still unknown, skips every one of them (raft_is_source_allowed). " +
			"The fix keeps the latest Raft message in one of two preallocated messages and pushes it as soon as the relay is enabled.",
		Links: []scenario.Link{
			{Title: "[PATCH v4 13/12] replication: send accumulated Raft messages after relay start", URL: "https://lists.tarantool.org/tarantool-patches/"},
			{Title: "tarantool#5445: leader inconsistency after restarts", URL: "https://github.com/tarantool/tarantool/issues/5445"},
			{Title: "tarantool#5438: Raft messages lost before the relay starts", URL: "https://github.com/tarantool/tarantool/issues/5438"},
			{Title: "src/box/relay.cc (relay_push_raft, tx_set_is_raft_enabled)", URL: "https://github.com/tarantool/tarantool/blob/master/src/box/relay.cc"},
			{Title: "src/lib/raft/raft.c (raft_process_msg)", URL: "https://github.com/tarantool/tarantool/blob/master/src/lib/raft/raft.c"},
			{Title: "test/replication/gh-5445-leader-inconsistency.test.lua", URL: "https://github.com/tarantool/tarantool/blob/master/test/replication/gh-5445-leader-inconsistency.test.lua"},
		},
		Variants: []scenario.Variant{
			{ID: "drop", Title: "drop (bug)", Help: "660f3323b9^ (April 2021), the seed's code: relay_push_raft returns without sending while Raft is not enabled on the relay, so the update is lost; a leader message restarts the recovery from recv_vclock, which the reused relay struct keeps from the previous connection"},
			{ID: "pending", Title: "pending (fix, v4)", Help: "the seed's patch, [PATCH v4 13/12] on 660f3323b9^ (never merged as is): two preallocated messages rotate between tx and the relay; the latest update waits (is_raft_push_pending) and is pushed when the relay is enabled or when the message in flight returns; at most one in flight; a leader message restarts the recovery, except the first push after enabling; recv_vclock not initialised"},
			{ID: "merged", Title: "pending, as merged (660f3323b9)", Help: "660f3323b9 (April 2021): the rotating pair without the restart flag: every leader message restarts the recovery, the first push after enabling too; recv_vclock starts at the replica's vclock (relay_subscribe, relay_final_join)"},
			{ID: "merged-without-recv-vclock", Title: "merged without recv_vclock (wrong fix)", Help: "a wrong fix, never upstream: 660f3323b9 without its recv_vclock initialisation. Every leader message restarts the recovery from the recv_vclock the reused relay struct holds (the previous connection's last ack, or zeros), so rows the replica already has are sent again"},
			{ID: "pending-alloc", Title: "pending, one message per update (review version)", Help: "the earlier review version of the seed's patch on 660f3323b9^ (never merged): the latest update is saved while the relay is not enabled and sent on enable; every update is a newly allocated message, so messages in flight pile up"},
		},
		Presets: []scenario.Preset{
			{ID: "subscribe-during-election", Title: "A voter subscribes during an election",
				Story: "i1 is a candidate with quorum 3 and already has i3's vote. At 500 ms i2, a voter, subscribes to i1: the subscribe-time " +
					"Raft row carries the vote request, i2 votes at once and i1 wins while its relay to i2 is still enabling Raft " +
					"(5-10 ms). With drop, i2 never learns its leader and ignores every row.",
				Params: map[string]any{"instances": int64(3), "modes": []any{2.0, 1.0, 1.0}, "quorum": int64(3), "lateFollower": int64(2),
					"lateSource": int64(1), "lateSubscribeAt": 500.0, "relayEnableDelay": 10.0, "duration": 1500.0},
				MaxTime: 1500, MaxSteps: 20_000, Property: PropLearnLeader, Reach: PropEarlyPush},
			{ID: "leader-inconsistency", Title: "gh-5445: restarts of the leader and the others",
				Story: "Three candidates, quorum 2, election timeout 0.4 s, replication_timeout 0.1 s. Once a leader L is elected the script of " +
					"gh-5445-leader-inconsistency.test.lua runs: N and O become voters, N stops, L and O stop, N starts as a candidate with " +
					"quorum 1, O and L start as voters, L becomes a candidate with quorum 3 and N resigns, so L must win with all votes. " +
					"Every restart re-subscribes while elections may be running.",
				Params:  map[string]any{"instances": int64(3), "modes": []any{2.0}, "quorum": int64(2), "script": "gh-5445", "duration": 5000.0},
				MaxTime: 5000, MaxSteps: 50_000, Property: PropLearnLeader, Reach: PropEarlyPush},
			{ID: "random-elections", Title: "Random crashes, restarts, partitions and slow links",
				Story: "Two candidates and a voter under a nemesis that crashes and restarts instances, cuts and heals links and slows them " +
					"down, about two faults a second for half the run; then everything heals and the cluster must settle.",
				Params:  map[string]any{"instances": int64(3), "modes": []any{2.0, 2.0, 1.0}, "faults": 2.0, "duration": 6000.0},
				MaxTime: 6000, MaxSteps: 60_000, Property: PropLearnLeader, Reach: PropEarlyPush},
		},
		Params: []scenario.Param{
			scenario.IntParam("instances", 3, 1, MaxInstances, "", "number of instances (full mesh)"),
			scenario.IntListParam("modes", []int64{2}, 0, 2, "", "election_mode per instance: 2 candidate, 1 voter, 0 off; a shorter list repeats its last value"),
			scenario.IntParam("quorum", 0, 0, MaxInstances, "", "replication_synchro_quorum, the election quorum; 0 means a majority"),
			scenario.DurationParam("electionTimeout", 400, 10, 10_000, "election_timeout (the gh-5445 test's 0.4 s; upstream default 5 s); each wait adds a whole number of ms up to 10 %"),
			scenario.DurationParam("replicationTimeout", 100, 10, 2_000, "replication_timeout: heartbeat and ack period; 4x is the death and disconnect timeout"),
			scenario.DurationParam("relayEnableDelay", 5, 0, 1_000, "relay thread start plus the is_raft_enabled cbus round trip, drawn in [d/2, d]"),
			scenario.DurationParam("networkLatency", 1, 0, 1_000, "one-way network latency L, drawn in [L/2, 3L/2]"),
			scenario.DurationParam("walDelay", 0.5, 0, 1_000, "time of one raft_write (term and vote) to the WAL"),
			scenario.FloatParam("writeRate", 20, 0, 1_000, "rows/s", "rows per second the client writes to the leader (until 70 % of the run)"),
			scenario.FloatParam("faults", 0, 0, 50, "faults/s", "random crashes, restarts, partitions, heals and slow links per second (until half the run)"),
			scenario.EnumParam("script", "none", []string{"none", "gh-5445"}, "gh-5445 plays the restart sequence of the upstream test (3 instances)"),
			scenario.IntParam("lateFollower", 0, 0, MaxInstances, "", "instance whose applier from lateSource subscribes late (0: none)"),
			scenario.IntParam("lateSource", 1, 1, MaxInstances, "", "the master the late applier subscribes to"),
			scenario.DurationParam("lateSubscribeAt", 500, 0, 60_000, "when the late applier subscribes"),
			scenario.IntParam("anonymous", 0, 0, MaxInstances, "", "instance that replicates as an anonymous replica (replication_anon, election_mode off; 0: none). No relay enables Raft for it (the seed's code already skipped relay_send_is_raft_enabled for anon); that it gets no subscribe-time Raft row either is later upstream, 3bee3fe2b9 (committed August 2021), so it gets no Raft message"),
			scenario.IntParam("oldVersion", 0, 0, MaxInstances, "", "later upstream, not the seed's code: the version check of 3bee3fe2b9 (committed August 2021). Instance older than 2.6.0 (election_mode off): masters send it no Raft state on subscribe and no Raft broadcast (0: none)"),
			scenario.DurationParam("duration", 3000, 100, 600_000, "length of the run the model plans for (writes stop at 70 %, faults at 50 %)"),
		},
		Rules: rules(),
		// Each instance keeps a relay and an applier per peer; its log of
		// rows only grows.
		Cost: func(v scenario.Values) scenario.Cost {
			n := int64(v.Int("instances"))
			return scenario.Cost{WorldBytes: 2048 + 1200*n*n, GrowthPerStep: 4}
		},
		Properties:   properties.Info(),
		New:          newFromValues,
		Capabilities: capabilities.Erase(),
	}
}

// rules are the cross-parameter checks of Config.validate, in the schema.
func rules() []scenario.Rule {
	late := func(v scenario.Values) bool { return v.Int("lateFollower") != 0 }
	return []scenario.Rule{
		{Params: []string{"lateFollower", "instances"}, Help: "lateFollower ≤ instances",
			Broken: func(v scenario.Values) string {
				if v.Int("lateFollower") > v.Int("instances") {
					return "lateFollower names an instance that does not exist"
				}
				return ""
			}},
		{Params: []string{"lateSource", "instances", "lateFollower"}, Help: "with a lateFollower, lateSource ≤ instances",
			Broken: func(v scenario.Values) string {
				if late(v) && v.Int("lateSource") > v.Int("instances") {
					return "lateSource names an instance that does not exist"
				}
				return ""
			}},
		{Params: []string{"lateSource", "lateFollower"}, Help: "with a lateFollower, lateSource ≠ lateFollower",
			Broken: func(v scenario.Values) string {
				if late(v) && v.Int("lateSource") == v.Int("lateFollower") {
					return "an instance cannot subscribe late to itself: lateSource and lateFollower must differ"
				}
				return ""
			}},
		offRule("anonymous"), offRule("oldVersion"),
		{Params: []string{"script", "instances"}, Help: `script "gh-5445" needs instances = 3`,
			Broken: func(v scenario.Values) string {
				if v.String("script") == "gh-5445" && v.Int("instances") != 3 {
					return "the gh-5445 script restarts three named instances"
				}
				return ""
			}},
	}
}

// offRule: an instance that takes no part in Raft (anonymous, too old)
// exists and has election_mode off for the whole run.
func offRule(name string) scenario.Rule {
	return scenario.Rule{Params: []string{name, "instances", "modes", "script"},
		Help: "a non-zero " + name + " ≤ instances, with election_mode 0 in modes, and script none",
		Broken: func(v scenario.Values) string {
			id := v.Int(name)
			if id == 0 {
				return ""
			}
			modes := v.Ints("modes")
			switch {
			case id > v.Int("instances"):
				return name + " names an instance that does not exist"
			case modes[min(id-1, len(modes)-1)] != int64(ModeOff):
				return name + " must name an instance whose election_mode is off (0 in modes)"
			case v.String("script") != "none":
				return "the gh-5445 script changes election modes, so " + name + " needs script none"
			}
			return ""
		}}
}

func newFromValues(variant string, v scenario.Values) (sim.Model, error) {
	vr, ok := variantIDs[variant]
	if !ok {
		return nil, fmt.Errorf("%w: unknown variant %q", ErrConfig, variant)
	}
	n := v.Int("instances")
	raw := v.Ints("modes")
	modes := make([]Mode, n)
	for i := range modes {
		modes[i] = Mode(raw[min(i, len(raw)-1)])
	}
	cfg := Config{
		Variant: vr, Instances: n, Modes: modes, Quorum: v.Int("quorum"),
		ElectionTimeout: v.Duration("electionTimeout"), ReplicationTimeout: v.Duration("replicationTimeout"),
		RelayEnableDelay: v.Duration("relayEnableDelay"), NetworkLatency: v.Duration("networkLatency"),
		WALDelay: v.Duration("walDelay"), WriteRate: v.Float("writeRate"), Faults: v.Float("faults"),
		Script: v.String("script"), LateFollower: v.Int("lateFollower"), LateSource: v.Int("lateSource"),
		LateSubscribeAt: v.Duration("lateSubscribeAt"), Duration: v.Duration("duration"),
		Anonymous: v.Int("anonymous"), OldVersion: v.Int("oldVersion"),
	}
	return New(cfg)
}
