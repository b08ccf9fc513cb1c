package tarantool

import (
	"fmt"

	"github.com/racetrack-sim/racetrack/core/scenario"
	"github.com/racetrack-sim/racetrack/core/sim"
)

// ScenarioID is the catalog id.
const ScenarioID = "tarantool-raft-relay"

// VariantID names a variant in the catalog.
type VariantID string

var variantIDs = map[VariantID]Variant{"drop": Drop, "pending": Pending, "pending-alloc": PendingAlloc, "merged": Merged,
	"merged-without-recv-vclock": MergedWithoutRecvVclock}

// Scenario is the catalog entry.
func Scenario() *scenario.Scenario {
	const ms = sim.Millisecond
	return scenario.Model[*Model, Params, VariantID]{
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
		Variants: []scenario.VariantOf[VariantID]{
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
				Params: scenario.Set(func(p *Params) {
					p.Instances, p.Modes, p.Quorum, p.LateFollower, p.LateSource = 3, []int64{2, 1, 1}, 3, 2, 1
					p.LateSubscribeAt, p.RelayEnableDelay, p.Duration = 500*ms, 10*ms, 1500*ms
				}),
				MaxTime: 1500, MaxSteps: 20_000, Property: PropLearnLeader, Reach: PropEarlyPush},
			{ID: "leader-inconsistency", Title: "gh-5445: restarts of the leader and the others",
				Story: "Three candidates, quorum 2, election timeout 0.4 s, replication_timeout 0.1 s. Once a leader L is elected the script of " +
					"gh-5445-leader-inconsistency.test.lua runs: N and O become voters, N stops, L and O stop, N starts as a candidate with " +
					"quorum 1, O and L start as voters, L becomes a candidate with quorum 3 and N resigns, so L must win with all votes. " +
					"Every restart re-subscribes while elections may be running.",
				Params: scenario.Set(func(p *Params) {
					p.Instances, p.Modes, p.Quorum, p.Script, p.Duration = 3, []int64{2}, 2, "gh-5445", 5000*ms
				}),
				MaxTime: 5000, MaxSteps: 50_000, Property: PropLearnLeader, Reach: PropEarlyPush},
			{ID: "random-elections", Title: "Random crashes, restarts, partitions and slow links",
				Story: "Two candidates and a voter under a nemesis that crashes and restarts instances, cuts and heals links and slows them " +
					"down, about two faults a second for half the run; then everything heals and the cluster must settle.",
				Params:  scenario.Set(func(p *Params) { p.Instances, p.Modes, p.Faults, p.Duration = 3, []int64{2, 2, 1}, 2, 6000*ms }),
				MaxTime: 6000, MaxSteps: 60_000, Property: PropLearnLeader, Reach: PropEarlyPush},
		},
		Rules: rules(),
		// Each instance keeps a relay and an applier per peer; its log of
		// rows only grows.
		Cost: func(p Params) scenario.Cost {
			n := int64(p.Instances)
			return scenario.Cost{WorldBytes: 2048 + 1200*n*n, GrowthPerStep: 4}
		},
		Props:        properties,
		New:          newFromParams,
		Capabilities: capabilities,
	}.Scenario()
}

// Script is a scripted sequence of faults, or none.
type Script string

// Params are the model's parameters; the tags are their schema.
type Params struct {
	Instances          int      `default:"3" min:"1" max:"7" help:"number of instances (full mesh)"`
	Modes              []int64  `default:"2" min:"0" max:"2" help:"election_mode per instance: 2 candidate, 1 voter, 0 off; a shorter list repeats its last value"`
	Quorum             int      `default:"0" min:"0" max:"7" help:"replication_synchro_quorum, the election quorum; 0 means a majority"`
	ElectionTimeout    sim.Time `default:"400" min:"10" max:"10000" help:"election_timeout (the gh-5445 test's 0.4 s; upstream default 5 s); each wait adds a whole number of ms up to 10 %"`
	ReplicationTimeout sim.Time `default:"100" min:"10" max:"2000" help:"replication_timeout: heartbeat and ack period; 4x is the death and disconnect timeout"`
	RelayEnableDelay   sim.Time `default:"5" min:"0" max:"1000" help:"relay thread start plus the is_raft_enabled cbus round trip, drawn in [d/2, d]"`
	NetworkLatency     sim.Time `default:"1" min:"0" max:"1000" help:"one-way network latency L, drawn in [L/2, 3L/2]"`
	WALDelay           sim.Time `param:"walDelay" default:"0.5" min:"0" max:"1000" help:"time of one raft_write (term and vote) to the WAL"`
	WriteRate          float64  `default:"20" min:"0" max:"1000" unit:"rows/s" help:"rows per second the client writes to the leader (until 70 % of the run)"`
	Faults             float64  `default:"0" min:"0" max:"50" unit:"faults/s" help:"random crashes, restarts, partitions, heals and slow links per second (until half the run)"`
	Script             Script   `default:"none" enum:"none,gh-5445" help:"gh-5445 plays the restart sequence of the upstream test (3 instances)"`
	LateFollower       int      `default:"0" min:"0" max:"7" help:"instance whose applier from lateSource subscribes late (0: none)"`
	LateSource         int      `default:"1" min:"1" max:"7" help:"the master the late applier subscribes to"`
	LateSubscribeAt    sim.Time `default:"500" min:"0" max:"60000" help:"when the late applier subscribes"`
	Anonymous          int      `default:"0" min:"0" max:"7" help:"instance that replicates as an anonymous replica (replication_anon, election_mode off; 0: none). No relay enables Raft for it (the seed's code already skipped relay_send_is_raft_enabled for anon); that it gets no subscribe-time Raft row either is later upstream, 3bee3fe2b9 (committed August 2021), so it gets no Raft message"`
	OldVersion         int      `default:"0" min:"0" max:"7" help:"later upstream, not the seed's code: the version check of 3bee3fe2b9 (committed August 2021). Instance older than 2.6.0 (election_mode off): masters send it no Raft state on subscribe and no Raft broadcast (0: none)"`
	Duration           sim.Time `default:"3000" min:"100" max:"600000" help:"length of the run the model plans for (writes stop at 70 %, faults at 50 %)"`
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

func newFromParams(variant VariantID, p Params) (*Model, error) {
	vr, ok := variantIDs[variant]
	if !ok {
		return nil, fmt.Errorf("%w: unknown variant %q", ErrConfig, variant)
	}
	modes := make([]Mode, p.Instances)
	for i := range modes {
		modes[i] = Mode(p.Modes[min(i, len(p.Modes)-1)])
	}
	return New(Config{
		Variant: vr, Instances: p.Instances, Modes: modes, Quorum: p.Quorum,
		ElectionTimeout: p.ElectionTimeout, ReplicationTimeout: p.ReplicationTimeout,
		RelayEnableDelay: p.RelayEnableDelay, NetworkLatency: p.NetworkLatency,
		WALDelay: p.WALDelay, WriteRate: p.WriteRate, Faults: p.Faults,
		Script: string(p.Script), LateFollower: p.LateFollower, LateSource: p.LateSource,
		LateSubscribeAt: p.LateSubscribeAt, Duration: p.Duration,
		Anonymous: p.Anonymous, OldVersion: p.OldVersion,
	})
}
