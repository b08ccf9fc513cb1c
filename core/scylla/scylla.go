// Package scylla models how a ScyllaDB coordinator learns the
// materialized-view update backlog of its replicas, and two real bugs in
// it: the backlog sent with a write response came from the shard that
// handled the RPC rather than the shard that applied the write
// (scylladb#18542, seed 000), and the gossip broker did not publish a
// backlog equal to the last one it published even when a response had
// since told coordinators something else (scylladb#18461, seed 001).
//
// Three levels of backlog: each shard's view-update semaphore (level 1),
// each node's node_update_backlog with one slot per shard and a cached max
// refreshed at most once per interval (level 2), and each coordinator's
// map of replica backlogs with timestamps (level 3), fed by write
// responses (overwrite) and gossip (only if newer). The coordinator delays
// writes by min(timeLeft, relative^3 * delayLimit) from level 3 and may
// reject them (admission control).
//
// Simplifications, each noted where it is modelled: the coordinator map
// is per node unless perShardMaps (upstream one per shard; gossip updates
// all of them since #19268, gossipAllShards); the delay's relative size
// is current/max (newer upstream divides by 0.8, as admission control
// here does); no_backlog is {0, maxMem}; the consistency level is QUORUM
// of RF; the view update of a write is as large as the write and always
// remote.
//
// Each variant is an upstream commit (named in its help) except three kept
// to show what a partial fix misses: fix-shard-only (upstream built the
// shard fix on the gossip fix), and the wrong fixes fix-shard-own-slot
// and fix-gossip-responses-only. Clocks: clockSkew gives each node a fixed offset, used for
// the stamps on gossip (the publisher's system_clock) and on responses
// (the coordinator's), as upstream does; the fixed broker republishes
// once, and on_change ignores that republish when the coordinator's clock
// is ahead by more than the time from the response to the tick.
//
// logmap.go maps a logged execution of the cluster to the model's steps
// (sim.LogMap "cluster"), so that a log validates against a variant with
// the seed that drew its ring, latencies and offsets.
//
// Like all of core, it performs no I/O and reads no clock.
package scylla

import (
	"github.com/racetrack-sim/racetrack/core/scenario"
	"github.com/racetrack-sim/racetrack/core/sim"
)

// ID is the scenario id.
const ID = "scylla-mv-backlog"

// variants maps each variant to its switches. Each is a state of upstream's
// code, named by commit in its help, except fix-shard-only (upstream built
// the shard fix on top of the gossip fix) and the two wrong fixes, one per
// seed, that a property catches: fix-shard-own-slot (seed 000,
// response-from-applying-shard) and fix-gossip-responses-only (seed 001,
// coordinator-view-converges on stale-gossip-slow-view).
var variants = []struct {
	scenario.VariantOf[Variant]
	source Source
	rule   Rule
	split  bool
}{
	{scenario.VariantOf[Variant]{ID: "buggy", Title: "both bugs",
		Help: "the seed commits 4433d2e10e and 2d9142250e (April 2024): responses and the broker call add_fetch with the calling shard's own backlog " +
			"(the RPC's shard, #18542); the broker gossips only a changed value (eedcee7f31, #18461); a view update's end refreshes nothing"}, HandlingShard, OnChange, false},
	{scenario.VariantOf[Variant]{ID: "fixed", Title: "both fixes",
		Help: "96dff367f8 (merge of PR #19341, July 2024): the shard that generated view updates add()s its backlog after builder.close() and again " +
			"when each view update ends (2cafa573df, #18804), raising its need_publishing flag; responses carry fetch(); the broker gossips what " +
			"fetch_if_changed() returns (e18aeb2486, PR #18663)"}, ApplyingShard, NeedPublishing, true},
	{scenario.VariantOf[Variant]{ID: "fix-shard-only", Title: "shard fix only (never upstream)",
		Help: "not an upstream state: upstream's shard fix (fd9c7d4d59) was built on the gossip fix (f70f774e40). This is 96dff367f8 with the " +
			"on-change broker of eedcee7f31 reading fetch(): seed 000 fixed, seed 001 still there"}, ApplyingShard, OnChange, true},
	{scenario.VariantOf[Variant]{ID: "fix-gossip-only", Title: "gossip fix only",
		Help: "e18aeb2486 (merge of PR #18663, June 2024), which already had 2cafa573df and 272e80fe0a: the handling shard add()s its own backlog " +
			"and fetch()es for a response (#18542 still there); the end of each view update add()s the applying shard's backlog; every add() " +
			"raises need_publishing; the broker gossips what fetch_if_changed() returns and refreshes no slot"}, HandlingShard, NeedPublishing, true},
	{scenario.VariantOf[Variant]{ID: "fix-gossip-responses-only", Title: "gossip fix, flag on responses only (wrong fix)",
		Help: "a wrong fix, never upstream: f70f774e40's need_publishing flag on the seed code 4433d2e10e, without 2cafa573df and 272e80fe0a: " +
			"only responses raise the flag, the broker's add_fetch refreshes shard 0's slot, a view update's end refreshes nothing. It passes " +
			"stale-gossip and fails stale-gossip-slow-view, where the view update outlives a broker tick"}, HandlingShard, NeedPublishing, false},
	{scenario.VariantOf[Variant]{ID: "fix-shard-own-slot", Title: "shard fix reading the handling shard's slot (wrong fix)",
		Help: "a wrong fix of #18542, never upstream: 96dff367f8 with responses carrying fetch_shard(this_shard_id()) instead of fetch(), " +
			"so the shard that handled the RPC reports its own slot, not the node's max: the assumption fd9c7d4d59's message calls false"}, OwnSlot, NeedPublishing, true},
	{scenario.VariantOf[Variant]{ID: "always-gossip", Title: "gossip every second",
		Help: "the broker before eedcee7f31 (September 2020, Fixes #5970), which gossiped every tick, on the seed's add_fetch code: also the " +
			"alternative fix seed 001 proposes"}, HandlingShard, Always, false},
}

// Variant names a version of the code (the variants table).
type Variant string

// The names of the parameters the rules relate, and of two tests set.
const (
	pNodes, pShards, pRF    = "nodes", "shards", "rf"
	pHotShare, pHotShard    = "hotShardShare", "hotShard"
	pWriteTarget            = "writeTarget"
	pShardAware, pClockSkew = "shardAware", "clockSkew"
)

// SizeOrder is how a write's size is taken from writeSizes.
type SizeOrder string

// WriteTarget is where the coordinator stands relative to the replicas.
type WriteTarget string

// Params are the model's parameters; the tags are their schema.
type Params struct {
	Nodes                  int         `default:"3" min:"1" max:"16" help:"ScyllaDB nodes"`
	Shards                 int         `default:"4" min:"1" max:"64" help:"shards per node (--smp)"`
	RF                     int         `param:"rf" default:"3" min:"1" max:"16" help:"replication factor, at most nodes; writes use consistency QUORUM"`
	MaxMem                 int64       `default:"250000" min:"1000" max:"1000000000" unit:"bytes" help:"view-update memory per shard (the view_update_limit injection: 250000; upstream default is 10% of shard memory)"`
	RefreshInterval        sim.Time    `default:"10" min:"0" max:"1000" help:"node_update_backlog refresh interval (_interval, 10 ms)"`
	GossipInterval         sim.Time    `default:"1000" min:"10" max:"60000" help:"view_update_backlog_broker period (gms::gossiper::INTERVAL)"`
	GossipDelayMax         sim.Time    `default:"1000" min:"0" max:"60000" help:"longest gossip propagation delay; each value takes 0 to this, at 1 ms resolution"`
	RPCLatency             sim.Time    `param:"rpcLatency" default:"1" min:"0.005" max:"1000" help:"longest one-way RPC latency between nodes (the shortest is a fifth of it)"`
	WriteRate              float64     `default:"20" min:"0.01" max:"10000" unit:"writes/s" help:"client write rate; gaps are uniform in [0.5, 1.5] / rate at 1 ms resolution"`
	WriteStart             sim.Time    `default:"100" min:"0" max:"3600000" help:"time of the first write"`
	Duration               sim.Time    `default:"60000" min:"0" max:"3600000" help:"the client writes until this time"`
	WriteCount             int         `default:"0" min:"0" max:"1000000" unit:"writes" help:"stop after this many writes (0: until duration)"`
	WriteSizes             []int64     `default:"1000,2000,4000,8000,16000,32000,64000" min:"1" max:"1000000000" unit:"bytes" help:"write sizes; a write's view update is as large"`
	SizeOrder              SizeOrder   `default:"random" enum:"random,cycle" help:"draw each write's size from writeSizes, or take them in order"`
	ViewWriteLatency       sim.Time    `default:"300" min:"0" max:"60000" help:"remote view write latency; each takes 0.5x to 1.5x of it, at 1 ms resolution"`
	NeverFinishViewUpdates bool        `default:"false" help:"remote view updates never finish (the never_finish_remote_view_updates injection)"`
	DelayLimit             sim.Time    `default:"1000" min:"0" max:"60000" help:"MV flow-control delay limit (view_flow_control_delay_limit_in_ms)"`
	WriteTimeout           sim.Time    `default:"2000" min:"1" max:"60000" help:"write timeout; the flow-control delay never exceeds what is left of it"`
	AdmissionControl       bool        `default:"false" help:"reject a write unless every target's believed backlog has relative_size below 1 (should_reject_due_to_view_backlog); a rejected write gets no response"`
	AdmissionThreshold     float64     `default:"0.8" min:"0.01" max:"1" unit:"relative" help:"admission_control_threshold: relative_size is current / max / this"`
	PerShardMaps           bool        `default:"false" help:"each coordinator shard keeps its own map of replica backlogs, as upstream's sharded storage_proxy does (off: one map per node)"`
	GossipAllShards        bool        `default:"true" help:"with perShardMaps: gossip updates every shard's map (#19268); off: only shard 0's, as before it"`
	ClockSkew              sim.Time    `default:"0" min:"0" max:"60000" help:"each node's system_clock is off by an amount drawn in [-clockSkew, +clockSkew] at 1 ms resolution; gossip stamps (the publisher's clock) and response stamps (the coordinator's clock) use it"`
	ShardAware             bool        `default:"false" help:"a shard-aware driver: every write goes to the shard that owns its token, so replicas handle and apply it on the same shard and the wrong-shard bug cannot show"`
	HotShardShare          float64     `default:"0" min:"0" max:"1" help:"share of writes whose key lives on hotShard"`
	HotShard               int         `default:"1" min:"0" max:"63" help:"the hot shard (below shards)"`
	KeyCount               int         `default:"100000" min:"1" max:"1000000000" unit:"keys" help:"distinct partition keys (1: every write hits one key, as in test_mv_backlog.py)"`
	WriteTarget            WriteTarget `default:"any" enum:"any,local,remote" help:"coordinator: any node, the key's first replica (local write), or a node that is not a replica (remote write; needs rf < nodes)"`
}

var sizesOfTest = []int64{1000, 4000, 16000, 64000}

// seed001 is the shape of seed 001: one write of 155,000 bytes at 1.2 s
// from n1 to a key of n2, one shard each.
func seed001(p *Params) {
	p.Nodes, p.Shards, p.RF, p.KeyCount, p.WriteTarget = 2, 1, 1, 1, targetRemote
	p.WriteSizes, p.WriteCount, p.WriteRate, p.WriteStart, p.Duration = []int64{155_000}, 1, 1, 1200*ms, 1200*ms
}

const ms = sim.Millisecond

func presets() []scenario.Preset {
	return []scenario.Preset{
		{ID: "wrong-shard-remote", Title: "Wrong shard, remote write (seed 000)",
			Story: "The shape of test_view_backlog_increased_after_write: 2 nodes, 5 shards, RF 1, one key, writes of 1000, 4000, 16000 and 64000 bytes " +
				"coordinated by the other node on a random shard; view updates never finish. The replica answers with the backlog of the shard " +
				"that handled the RPC, not of the shard that holds the view updates.",
			Params: scenario.Set(func(p *Params) {
				p.Nodes, p.Shards, p.RF, p.KeyCount, p.WriteTarget = 2, 5, 1, 1, targetRemote
				p.WriteSizes, p.SizeOrder, p.WriteCount, p.WriteRate, p.Duration, p.NeverFinishViewUpdates = sizesOfTest, "cycle", 4, 4, 2000*ms, true
			}),
			MaxTime: 5000, MaxSteps: 100_000, Property: PropApplyingShard, Reach: PropOtherShard},
		{ID: "wrong-shard-local", Title: "Wrong shard, local write (seed 000)",
			Story: "The coordinator is the replica: lmutate applies the write on the key's shard, then records its own backlog as seen from the " +
				"coordinator's shard. Eight writes to one key, 4 shards, view updates finishing after about 500 ms.",
			Params: scenario.Set(func(p *Params) {
				p.Nodes, p.Shards, p.RF, p.KeyCount, p.WriteTarget = 2, 4, 1, 1, targetLocal
				p.WriteSizes, p.SizeOrder, p.WriteCount, p.WriteRate, p.Duration, p.ViewWriteLatency = sizesOfTest, "cycle", 8, 4, 4000*ms, 500*ms
			}),
			MaxTime: 6000, MaxSteps: 100_000, Property: PropApplyingShard, Reach: PropOtherShard},
		{ID: "stale-gossip", Title: "Stale gossip (seed 001)",
			Story: "The five steps of seed 001: (1) the cluster starts and gossips empty backlogs; (2) at 1 s n2's broker sees no change; " +
				"(3) at 1.2 s a write from n1 raises n1's belief about n2 through the response; (4) n2's view update finishes before 2 s; " +
				"(5) from then on n2's broker sees 0.00 = last published and never gossips again, so n1 believes 0.62 for ever.",
			Params:  scenario.Set(func(p *Params) { seed001(p); p.ViewWriteLatency = 300 * ms }),
			MaxTime: 5000, MaxSteps: 100_000, Property: PropConverges, Reach: PropEqualAfterResponse},
		{ID: "stale-gossip-slow-view", Title: "Stale gossip, view write across a broker tick",
			Story: "Seed 001's shape with a view write of about 1.5 s (0.75 to 2.25 s), so the view update usually ends after the broker's " +
				"next tick: the tick gossips 0.62, and only a refresh when the view update ends can raise the flag that gossips 0.00 later. " +
				"A gossip fix that raises the flag on responses alone leaves the coordinator at 0.62 whenever the view write spans the tick.",
			Params:  scenario.Set(func(p *Params) { seed001(p); p.ViewWriteLatency = 1500 * ms }),
			MaxTime: 8000, MaxSteps: 100_000, Property: PropConverges, Reach: PropViewSpansTick},
		{ID: "stale-gossip-skewed", Title: "Stale gossip under clock skew",
			Story: "Seed 001's shape with each node's clock off by up to ±1 s. The coordinator stamps a response with its own clock, the " +
				"replica stamps its gossip with its clock, and on_change keeps gossip only if its stamp is newer: when the coordinator's " +
				"clock runs ahead by more than the time from the response to the republish, the fixed broker's one republish is ignored " +
				"and nothing is gossiped again, so even the fixed code keeps 0.62.",
			Params:  scenario.Set(func(p *Params) { seed001(p); p.ViewWriteLatency, p.ClockSkew = 300*ms, 1000*ms }),
			MaxTime: 8000, MaxSteps: 100_000, Property: PropConverges, Reach: PropEqualAfterResponse,
			Unfixed: "upstream's fix republishes once, and on_change drops that gossip when the coordinator's clock runs ahead " +
				"(core/scylla/README.md: 96dff367f8 and master alike)"},
		{ID: "steady-hot-shard", Title: "Steady load on a hot shard",
			Story: "3 nodes x 4 shards, RF 3, 10 writes/s for two minutes, half of them on shard 1, view writes of about 800 ms. The coordinators' " +
				"beliefs follow whichever shard last handled an RPC, so the flow-control delay is wrong while the load lasts (compare the delay " +
				"applied with the delay the true backlog gives), and once the load stops they keep the last stale value for ever.",
			Params: scenario.Set(func(p *Params) {
				p.HotShardShare, p.WriteRate, p.ViewWriteLatency, p.Duration = 0.5, 10, 800*ms, 120_000*ms
			}),
			MaxTime: 126_000, MaxSteps: 1_000_000, Property: PropConverges, Reach: PropOtherShard},
	}
}

// Scenario is the catalog entry.
func Scenario() *scenario.Scenario {
	vs := make([]scenario.VariantOf[Variant], len(variants))
	for i := range variants {
		vs[i] = variants[i].VariantOf
	}
	return scenario.Model[*Model, Params, Variant]{
		ID:    ID,
		Title: "ScyllaDB materialized-view backlog",
		Summary: "A coordinator believes a replica is overloaded (or idle) when it is not, and throttles writes wrongly: " +
			"the backlog comes from the wrong shard (seed 000) and gossip goes stale (seed 001).",
		Story: "ScyllaDB slows writes to a base table with materialized views by the replicas' view-update backlog. Each shard's " +
			"semaphore counts the bytes of pending view updates; each node aggregates its shards in node_update_backlog; each " +
			"coordinator keeps a map of replica backlogs, fed by write responses and by gossip every second. Before the fixes, a " +
			"response carried the backlog of the shard that happened to handle the RPC, not of the shard that applied the write " +
			"and holds the view updates; and the gossip broker skipped a backlog equal to the one it last published, even after " +
			"a response had told the coordinator something else. Either way the coordinator's belief drifts from the truth and stays there.",
		Links: []scenario.Link{
			{Title: "scylladb#18542: the gossiped view update backlog is updated on the wrong shard", URL: "https://github.com/scylladb/scylladb/issues/18542"},
			{Title: "scylladb#18461: view update backlog may not be gossiped if it's already been updated with a response", URL: "https://github.com/scylladb/scylladb/issues/18461"},
			{Title: "PR #19341: update the backlog on the shard that generates view updates", URL: "https://github.com/scylladb/scylladb/pull/19341"},
			{Title: "PR #18663: gossip the same backlog if a different backlog was sent in a response", URL: "https://github.com/scylladb/scylladb/pull/18663"},
			{Title: "scylladb#18783 / PR #18804: refresh the backlog when view updates finish", URL: "https://github.com/scylladb/scylladb/pull/18804"},
			{Title: "db/view/view.cc (node_update_backlog)", URL: "https://github.com/scylladb/scylladb/blob/master/db/view/view.cc"},
			{Title: "service/storage_proxy.cc", URL: "https://github.com/scylladb/scylladb/blob/master/service/storage_proxy.cc"},
			{Title: "service/misc_services.cc (view_update_backlog_broker)", URL: "https://github.com/scylladb/scylladb/blob/master/service/misc_services.cc"},
			{Title: "test_mv_backlog.py", URL: "https://github.com/scylladb/scylladb/blob/master/test/topology_custom/test_mv_backlog.py"},
		},
		Variants: vs,
		Presets:  presets(),
		Props:    properties,
		Rules:    rules(),
		// A shard's backlog, gossip and view state: about 130 bytes each.
		Cost: func(p Params) scenario.Cost {
			return scenario.Cost{WorldBytes: 4096 + 160*int64(p.Nodes*p.Shards)}
		},
		New:          build,
		Capabilities: capabilities,
	}.Scenario()
}

// rules relate the parameters whose ranges depend on each other.
func rules() []scenario.Rule {
	return []scenario.Rule{
		{Params: []string{pRF, pNodes}, Help: "rf ≤ nodes",
			Broken: func(v scenario.Values) string {
				if v.Int(pRF) > v.Int(pNodes) {
					return "the replication factor is larger than the number of nodes"
				}
				return ""
			}},
		{Params: []string{pHotShard, pShards, pHotShare}, Help: "with hotShardShare > 0, hotShard < shards",
			Broken: func(v scenario.Values) string {
				if v.Float(pHotShare) > 0 && v.Int(pHotShard) >= v.Int(pShards) {
					return "the hot shard must be one of the shards (they are numbered from 0)"
				}
				return ""
			}},
		{Params: []string{pWriteTarget, pRF, pNodes}, Help: `writeTarget "remote" needs rf < nodes`,
			Broken: func(v scenario.Values) string {
				if v.String(pWriteTarget) == targetRemote && v.Int(pRF) >= v.Int(pNodes) {
					return "remote needs a node that is not a replica: rf must be below nodes"
				}
				return ""
			}},
	}
}

// build turns a variant and parameters (which keep the rules) into a
// model.
func build(variant Variant, p Params) (*Model, error) {
	cfg := config{
		nodes: p.Nodes, shards: p.Shards, rf: p.RF,
		maxMem: p.MaxMem, refresh: p.RefreshInterval,
		gossipInterval: p.GossipInterval, gossipDelayMax: p.GossipDelayMax,
		writeRate: p.WriteRate, writeStart: p.WriteStart, duration: p.Duration,
		writeCount: p.WriteCount, sizes: p.WriteSizes, randomSizes: p.SizeOrder == "random",
		viewWriteLatency: p.ViewWriteLatency, neverFinish: p.NeverFinishViewUpdates,
		delayLimit: p.DelayLimit, writeTimeout: p.WriteTimeout,
		admission: p.AdmissionControl, admissionThreshold: p.AdmissionThreshold, shardAware: p.ShardAware,
		perShardMaps: p.PerShardMaps, gossipAllShards: p.GossipAllShards,
		hotShardShare: p.HotShardShare, hotShard: p.HotShard,
		keyCount: p.KeyCount, target: string(p.WriteTarget),
		clockSkew: p.ClockSkew,
	}
	cfg.rpcMax = p.RPCLatency
	cfg.rpcMin = cfg.rpcMax / 5
	cfg.hopMin, cfg.hopMax = sim.Microsecond, 5*sim.Microsecond
	for _, x := range variants {
		if x.ID == variant {
			cfg.source, cfg.rule, cfg.split = x.source, x.rule, x.split
			return newModel(cfg), nil
		}
	}
	return nil, &scenario.FieldError{Field: "variant", Msg: "unknown variant " + string(variant)}
}
