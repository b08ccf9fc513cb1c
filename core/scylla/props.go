package scylla

import (
	"strconv"

	"github.com/racetrack-sim/racetrack/core/sim"
)

// Property names.
const (
	PropConverges     = "coordinator-view-converges"
	PropApplyingShard = "response-from-applying-shard"
	PropOtherShard    = "response-from-other-shard"
	// PropEqualAfterResponse is the Sometimes property of seed 001's window.
	PropEqualAfterResponse = "equal-backlog-after-response"
	// PropViewSpansTick is the Sometimes property of the slow view write.
	PropViewSpansTick = "view-update-spans-broker-tick"
)

// convergeSlack covers message latency and scheduling on top of one broker
// period, one propagation and one refresh interval.
const convergeSlack = 250 * sim.Millisecond

// deadline is how long a replica's true backlog may stay stable before
// every coordinator must believe it.
func (m *Model) deadline() sim.Time {
	return m.cfg.gossipInterval + m.cfg.gossipDelayMax + m.cfg.refresh + convergeSlack
}

// properties are the model's properties, declared once: the kernel checks
// them (Properties) and the catalog lists them (Scenario).
var properties = sim.Props[*Model]{
	sim.Eventually(PropConverges,
		"whenever a replica's true backlog (max over its shards) stays stable for longer than gossipInterval + gossipDelayMax + refreshInterval + 250 ms, every coordinator believes it",
		(*Model).deadline,
		func(_ *sim.World, m *Model) (bool, sim.Time) {
			c, _, r := m.staleBelief()
			if c < 0 {
				return false, 0
			}
			return true, m.trueSince[r]
		},
		func(_ *sim.World, m *Model) string { return m.explainStale() }).
		About(func(_ *sim.World, m *Model) []sim.NodeID {
			// The coordinator, the replica it misjudges, and the gossip
			// mesh that carries the replica's backlog to it.
			c, _, r := m.staleBelief()
			if c < 0 {
				return nil
			}
			return []sim.NodeID{sim.NodeID(c), sim.NodeID(r), m.meshNode}
		}),
	sim.Always(PropApplyingShard,
		"a write response carries at least the backlog of the shard that applied the write (as of the node's last refresh, when that is less than one refresh interval old)",
		func(_ *sim.World, m *Model) bool { return !m.bad.set },
		func(_ *sim.World, m *Model) string { return m.explainBad() }),
	sim.Sometimes(PropOtherShard,
		"a replica answers a write on another shard than the one holding the write's view updates: the situation #18542 needs, in every variant",
		func(_ *sim.World, m *Model) bool { return m.window.set },
		func(_ *sim.World, m *Model) string {
			b := m.window
			return nodeName(b.replica) + " answered w" + strconv.Itoa(int(b.id)) + " on shard s" + strconv.Itoa(b.handling) +
				" while shard s" + strconv.Itoa(b.applied) + " holds " + bytesText(b.required) + " of its view updates"
		}),
	sim.Sometimes(PropViewSpansTick,
		"a view update ends after its node's broker ticked since the node's last write response: then only a refresh when the view update ends can republish, in every variant",
		func(_ *sim.World, m *Model) bool { return m.spanWindow != "" },
		func(_ *sim.World, m *Model) string { return m.spanWindow }),
	sim.Sometimes(PropEqualAfterResponse,
		"a broker reads the backlog it last published while a coordinator believes another value from a response: the situation #18461 needs, in every variant",
		func(_ *sim.World, m *Model) bool { return m.gossipWindow != "" },
		func(_ *sim.World, m *Model) string { return m.gossipWindow }),
}

// Properties: the coordinators' view converges to the truth, every
// response carries the backlog of the shard that applied the write, and a
// response can come from another shard.
func (m *Model) Properties() []sim.Property { return properties.Of(m) }

// staleBelief finds the coordinator (shard)/replica pair whose belief
// differs from the truth for the longest time (the replica whose truth is
// stable the longest); c is -1 when every belief is right. With
// perShardMaps every shard's map must be right.
func (m *Model) staleBelief() (c, s, r int) {
	N := m.cfg.nodes
	c, s, r = -1, 0, -1
	for rr := 0; rr < N; rr++ {
		if r >= 0 && m.trueSince[rr] >= m.trueSince[r] {
			continue
		}
	scan:
		for cc := 0; cc < N; cc++ {
			for ss := 0; ss < m.maps(); ss++ {
				if d := m.believedOn(cc, ss, rr) - m.truth[rr]; d > 1 || d < -1 {
					c, s, r = cc, ss, rr
					break scan
				}
			}
		}
	}
	return c, s, r
}

func (m *Model) explainStale() string {
	c, s, r := m.staleBelief()
	if c < 0 {
		return "every coordinator believes every replica's true backlog"
	}
	i := m.bi(c, s, r)
	who := nodeName(c)
	if m.maps() > 1 {
		who = shardName(c, s)
	}
	how := "never heard of it"
	switch m.beliefVia[i] {
	case viaResponse:
		how = "from a write response at " + secText(m.beliefAt[i])
	case viaGossip:
		how = "from gossip stamped " + secText(m.beliefAt[i])
	}
	return "coordinator " + who + " still believes " + nodeName(r) + "'s backlog is " + relText(m.rel(m.believedOn(c, s, r))) +
		" (" + how + "); " + nodeName(r) + "'s true backlog has been " + relText(m.rel(m.truth[r])) +
		" for " + sim.FormatSeconds(m.now-m.trueSince[r], 1)
}

func (m *Model) explainBad() string {
	b := m.bad
	return nodeName(b.replica) + " answered w" + strconv.Itoa(int(b.id)) + " with backlog " + relText(m.rel(b.carried)) +
		" computed on handling shard s" + strconv.Itoa(b.handling) + ", but applying shard s" + strconv.Itoa(b.applied) +
		" holds " + relText(m.rel(b.required)) + " (" + bytesText(b.required) + " of view updates)"
}
