package scylla

import (
	"slices"
	"strconv"

	"github.com/racetrack-sim/racetrack/core/sim"
)

// Source says which shard's backlog a write response carries.
type Source uint8

// Backlog sources (the backlogSource switch).
const (
	// HandlingShard is the code before PR #19341: the shard that handled
	// the RPC calls add_fetch with its own semaphore (bug #18542, seed 000).
	HandlingShard Source = iota + 1
	// ApplyingShard is the fix: the shard that applied the mutation calls
	// add() when it generates view updates and when they finish; responses
	// carry fetch().
	ApplyingShard
	// OwnSlot is a wrong fix of #18542: the applying shard add()s as in
	// the fix, but a response carries fetch_shard(this_shard_id()), the
	// handling shard's own slot, instead of fetch()'s max with the cached
	// node max: the assumption fd9c7d4d59's message calls false ("the
	// backlog is modified on the same shard as where we later read it").
	OwnSlot
)

// Rule is the view_update_backlog_broker's publish rule.
type Rule uint8

// Gossip rules (the gossipRule switch).
const (
	// OnChange publishes only a value different from the last published
	// one (eedcee7f31, September 2020, "Fixes #5970"; bug #18461, seed 001).
	OnChange Rule = iota + 1
	// NeedPublishing also publishes when a backlog was added or sent in a
	// response since the last tick, even if equal (PR #18663).
	NeedPublishing
	// Always publishes every tick (the 2018 broker, and the alternative fix
	// seed 001 proposes).
	Always
)

// Write targets: where the coordinator stands relative to the replicas.
const (
	targetAny    = "any"
	targetLocal  = "local"
	targetRemote = "remote"
)

// config is a normalised parameter set.
type config struct {
	nodes, shards, rf  int
	maxMem             int64
	refresh            sim.Time
	gossipInterval     sim.Time
	gossipDelayMax     sim.Time
	rpcMin, rpcMax     sim.Time
	hopMin, hopMax     sim.Time
	writeRate          float64
	writeStart         sim.Time
	duration           sim.Time
	writeCount         int
	sizes              []int64
	randomSizes        bool
	viewWriteLatency   sim.Time
	neverFinish        bool
	delayLimit         sim.Time
	writeTimeout       sim.Time
	admission          bool
	admissionThreshold float64
	shardAware         bool
	perShardMaps       bool
	gossipAllShards    bool
	hotShardShare      float64
	hotShard           int
	keyCount           int
	target             string
	source             Source
	rule               Rule
	// split is the code from 272e80fe0a on (with 2cafa573df before it):
	// add() and fetch() are separate, the end of each view update add()s
	// the applying shard's backlog, and the broker's read refreshes no
	// slot. Before it, add_fetch stores the calling shard's backlog and a
	// view update's end refreshes nothing.
	split     bool
	clockSkew sim.Time
}

// Model is the state of a ScyllaDB cluster with one base table and one
// materialized view, seen through the view-update backlog. Per-shard and
// per-pair tables are flat slices indexed by idx(node, shard) and
// node*nodes+replica, so cloning is a few slice copies.
type Model struct {
	cfg config
	now sim.Time // time of the step being handled (for relative hashing)

	// Level 1: the view-update semaphore of each shard.
	sem     []int64 // bytes held by pending view updates
	updates []int32 // view updates in flight
	// The truth the properties compare against: a node's backlog is the
	// max over its shards, and trueSince is when it last changed.
	truth     []int64
	trueSince []sim.Time

	// Level 2: node_update_backlog of each node.
	slot           []int64
	flag           []bool // need_publishing
	truthAtRefresh []int64
	cachedMax      []int64
	lastUpdate     []sim.Time

	// Gossip: view_update_backlog_broker's backlog_published.
	published    []int64
	publishedAt  []sim.Time
	hasPublished []bool

	// Level 3: each coordinator's view of each replica
	// (storage_proxy::_view_update_backlogs), index bi(c, s, r): one map
	// per node, or one per coordinator shard with perShardMaps.
	belief      []int64
	beliefAt    []sim.Time
	beliefKnown []bool
	beliefVia   []uint8

	// Coordinator-side writes in flight, in id order.
	inflight []coordWrite

	// Client counters.
	issued, succeeded, rejected, failed int
	lastDelay, lastTrueDelay            []sim.Time
	// Flow-control totals over all writes: delay applied, delay the true
	// backlogs would give, and the absolute difference.
	delaySum, trueDelaySum, delayErrSum sim.Time

	// bad is set by the step that computed a write response carrying less
	// than the applying shard's backlog; cleared at the start of each step.
	bad respCheck
	// window is set by the step that answered a write from another shard
	// than the one holding its view updates (the situation of #18542,
	// whatever the variant); cleared at the start of each step.
	window respCheck
	// gossipWindow describes the broker tick that read a backlog equal to
	// the one it last published while a coordinator, told otherwise by a
	// response, believes another value (the situation of #18461, whatever
	// the variant); "" after any other step.
	gossipWindow string
	// spanWindow describes the view update that ended after its node's
	// broker ticked since the node's last write response (the situation
	// stale-gossip-slow-view needs); "" after any other step.
	spanWindow string
	// afterResponse is, per node, responseNone, responseSinceTick (a
	// write response since the last broker tick) or tickSinceResponse.
	// It feeds only the view-update-spans-broker-tick witness, never a
	// step or a property that must hold, so Hash leaves it out: states
	// that differ only in it behave alike (and the digests of runs stay
	// those of before it).
	afterResponse []uint8

	// Kernel objects, fixed after Init.
	salt uint64
	// offset is each node's system_clock minus true time (clockSkew);
	// never written after Init, so clones share it.
	offset    []sim.Time
	shardProc []sim.ProcID
	client    sim.ProcID
	mesh      sim.ProcID
	meshNode  sim.NodeID

	sTruth, sBelief, sShard []sim.SeriesID
	sDelay, sTrueDelay      []sim.SeriesID
	sRejected               sim.SeriesID
}

// What a node did last of answering a write and ticking its broker.
const (
	responseNone uint8 = iota
	responseSinceTick
	tickSinceResponse
)

// Belief sources, for the state view.
const (
	viaNone uint8 = iota
	viaResponse
	viaGossip
)

// coordWrite is a write as its coordinator tracks it
// (abstract_write_response_handler).
type coordWrite struct {
	w        writeInfo
	start    sim.Time
	acks     int8
	fails    int8
	answered int8 // responses received
	done     bool // the client has its answer (or is about to, after the delay)
	// delay is the flow-control delay chosen at the consistency level;
	// delayLeft while it has not elapsed.
	delay      sim.Time
	delayLeft  bool
	delayUntil sim.Time
}

// respCheck records one write response that under-reported the applying
// shard's backlog.
type respCheck struct {
	set               bool
	id                int32
	replica           int
	handling, applied int
	carried, required int64
}

// newModel builds a model from a configuration.
func newModel(cfg config) *Model { return &Model{cfg: cfg} }

// Init creates the cluster: one kernel node per ScyllaDB node with one
// actor per shard (the lanes of the diagram), a client, and the gossip
// mesh that carries application states between nodes.
func (m *Model) Init(w *sim.World) {
	c := &m.cfg
	N, S := c.nodes, c.shards
	w.SetDefaultLink(sim.Link{Min: c.rpcMin, Max: c.rpcMax, Res: sim.Microsecond, FIFO: true})
	// A cross-shard hop (smp::submit_to) stays on the node.
	w.SetLocalLink(sim.Link{Min: c.hopMin, Max: c.hopMax, Res: sim.Microsecond, FIFO: true})
	for n := 0; n < N; n++ {
		w.AddNode(nodeName(n))
	}
	cn := w.AddNode("client")
	m.meshNode = w.AddNode("gossip")
	m.shardProc = make([]sim.ProcID, N*S)
	for n := 0; n < N; n++ {
		for s := 0; s < S; s++ {
			m.shardProc[m.idx(n, s)] = w.AddActor(sim.NodeID(n), s, shardName(n, s))
		}
	}
	m.client = w.AddActor(cn, -1, "client")
	m.mesh = w.AddActor(m.meshNode, -1, "gossip")
	// Gossip takes one or more rounds to reach a node: model the whole
	// propagation as the hop into the mesh, with no ordering between
	// values (receivers keep the newest by timestamp).
	for n := 0; n < N; n++ {
		w.SetLink(sim.NodeID(n), m.meshNode, sim.Link{Min: 0, Max: c.gossipDelayMax, Res: sim.Millisecond})
		w.SetLink(m.meshNode, sim.NodeID(n), sim.Link{FIFO: true})
	}

	m.sem = make([]int64, N*S)
	m.updates = make([]int32, N*S)
	m.truth = make([]int64, N)
	m.trueSince = make([]sim.Time, N)
	m.slot = make([]int64, N*S)
	m.flag = make([]bool, N*S)
	m.truthAtRefresh = make([]int64, N*S)
	m.cachedMax = make([]int64, N)
	m.lastUpdate = make([]sim.Time, N)
	for n := range m.lastUpdate {
		m.lastUpdate[n] = -c.refresh // _last_update starts at now - interval
	}
	m.afterResponse = make([]uint8, N)
	m.published = make([]int64, N)
	m.publishedAt = make([]sim.Time, N)
	m.hasPublished = make([]bool, N)
	B := N * m.maps() * N
	m.belief = make([]int64, B)
	m.beliefAt = make([]sim.Time, B)
	m.beliefKnown = make([]bool, B)
	m.beliefVia = make([]uint8, B)
	m.lastDelay = make([]sim.Time, N)
	m.lastTrueDelay = make([]sim.Time, N)

	m.defineSeries(w)

	// The token ring differs from seed to seed.
	m.salt = uint64(w.Choose(1<<30, "token ring"))
	m.offset = make([]sim.Time, N)
	if c.clockSkew > 0 {
		for n := range m.offset {
			m.offset[n] = w.Between(-c.clockSkew, c.clockSkew, sim.Millisecond, "clock offset of "+nodeName(n))
		}
	}
	for n := 0; n < N; n++ {
		w.SetTimer(m.shardProc[m.idx(n, 0)], 0, tagBroker)
	}
	if c.writeStart <= c.duration {
		w.SetTimer(m.client, c.writeStart, tagClientNext)
	}
}

func (m *Model) defineSeries(w *sim.World) {
	N, S := m.cfg.nodes, m.cfg.shards
	m.sTruth = make([]sim.SeriesID, N)
	m.sBelief = make([]sim.SeriesID, N*N)
	for r := 0; r < N; r++ {
		group := "backlog of " + nodeName(r)
		m.sTruth[r] = w.DefineSeries(nodeName(r)+" true backlog", "relative", group)
		for c := 0; c < N; c++ {
			m.sBelief[c*N+r] = w.DefineSeries(nodeName(c)+" believes "+nodeName(r), "relative", group)
		}
	}
	m.sShard = make([]sim.SeriesID, N*S)
	for n := 0; n < N; n++ {
		for s := 0; s < S; s++ {
			m.sShard[m.idx(n, s)] = w.DefineSeries(shardName(n, s)+" backlog", "relative", "shards of "+nodeName(n))
		}
	}
	m.sDelay = make([]sim.SeriesID, N)
	m.sTrueDelay = make([]sim.SeriesID, N)
	for c := 0; c < N; c++ {
		group := "flow control at " + nodeName(c)
		m.sDelay[c] = w.DefineSeries(nodeName(c)+" delay applied", "ms", group)
		m.sTrueDelay[c] = w.DefineSeries(nodeName(c)+" delay the true backlog gives", "ms", group)
	}
	m.sRejected = w.DefineSeries("writes rejected", "writes", "admission control")
}

func nodeName(n int) string { return "n" + strconv.Itoa(n+1) }

func shardName(n, s int) string { return nodeName(n) + "/s" + strconv.Itoa(s) }

// Clone copies the model's state.
func (m *Model) Clone() sim.Model {
	c := *m
	c.sem = slices.Clone(m.sem)
	c.updates = slices.Clone(m.updates)
	c.truth = slices.Clone(m.truth)
	c.trueSince = slices.Clone(m.trueSince)
	c.slot = slices.Clone(m.slot)
	c.flag = slices.Clone(m.flag)
	c.truthAtRefresh = slices.Clone(m.truthAtRefresh)
	c.cachedMax = slices.Clone(m.cachedMax)
	c.lastUpdate = slices.Clone(m.lastUpdate)
	c.afterResponse = slices.Clone(m.afterResponse)
	c.published = slices.Clone(m.published)
	c.publishedAt = slices.Clone(m.publishedAt)
	c.hasPublished = slices.Clone(m.hasPublished)
	c.belief = slices.Clone(m.belief)
	c.beliefAt = slices.Clone(m.beliefAt)
	c.beliefKnown = slices.Clone(m.beliefKnown)
	c.beliefVia = slices.Clone(m.beliefVia)
	c.inflight = slices.Clone(m.inflight)
	c.lastDelay = slices.Clone(m.lastDelay)
	c.lastTrueDelay = slices.Clone(m.lastTrueDelay)
	return &c
}

// Hash folds the state that shapes the future. Times are folded relative
// to now (a refresh older than the interval is folded as "expired", a
// stability age beyond the property's deadline as "long"), write ids and
// counters of finished work are left out, so the same state reached by
// different paths hashes the same.
func (m *Model) Hash(h *sim.Hasher) {
	N, S := m.cfg.nodes, m.cfg.shards
	for i := range m.sem {
		h.Int64(m.sem[i])
		h.Int64(m.slot[i])
		h.Bool(m.flag[i])
		h.Int64(m.truthAtRefresh[i])
	}
	for n := 0; n < N; n++ {
		h.Int64(m.cachedMax[n])
		h.Int64(int64(min(m.now-m.lastUpdate[n], m.cfg.refresh)))
		h.Int64(int64(min(m.now-m.trueSince[n], m.deadline()+1)))
		h.Bool(m.hasPublished[n])
		h.Int64(m.published[n])
	}
	for i := range m.belief {
		h.Bool(m.beliefKnown[i])
		h.Int64(m.belief[i])
		h.Int64(int64(m.now - m.beliefAt[i]))
	}
	h.Int(len(m.inflight))
	for i := range m.inflight {
		x := &m.inflight[i]
		h.Uint64(uint64(x.w.Token))
		h.Int64(x.w.Bytes)
		h.Int(x.w.Coord*S + x.w.CShard)
		h.Int64(int64(m.now - x.start))
		h.Int(int(x.acks))
		h.Int(int(x.fails))
		h.Int(int(x.answered))
		h.Bool(x.done)
		h.Bool(x.delayLeft)
		h.Int64(int64(x.delayUntil - m.now))
	}
	if m.cfg.writeCount > 0 {
		h.Int(m.issued)
	}
}
