package scylla

import (
	"strconv"

	"github.com/racetrack-sim/racetrack/core/sim"
)

// Property names.
const (
	PropConverges     = "coordinator-view-converges"
	PropApplyingShard = "response-from-applying-shard"
)

// convergeSlack covers message latency and scheduling on top of one broker
// period, one propagation and one refresh interval.
const convergeSlack = 250 * sim.Millisecond

// deadline is how long a replica's true backlog may stay stable before
// every coordinator must believe it.
func (m *Model) deadline() sim.Time {
	return m.cfg.gossipInterval + m.cfg.gossipDelayMax + m.cfg.refresh + convergeSlack
}

func of(w *sim.World) *Model { return w.Model().(*Model) }

// Properties: the coordinators' view converges to the truth, and every
// response carries the backlog of the shard that applied the write.
func (m *Model) Properties() []sim.Property {
	return []sim.Property{
		sim.Eventually(PropConverges,
			"whenever a replica's true backlog (max over its shards) stays stable for longer than gossipInterval + gossipDelayMax + refreshInterval + 250 ms, every coordinator believes it",
			m.deadline(),
			func(w *sim.World) (bool, sim.Time) {
				mm := of(w)
				c, r := mm.staleBelief()
				if c < 0 {
					return false, 0
				}
				return true, mm.trueSince[r]
			},
			func(w *sim.World) string { return of(w).explainStale() }),
		sim.Always(PropApplyingShard,
			"a write response carries at least the backlog of the shard that applied the write (as of the node's last refresh, when that is less than one refresh interval old)",
			func(w *sim.World) bool { return !of(w).bad.set },
			func(w *sim.World) string { return of(w).explainBad() }),
	}
}

// staleBelief finds the coordinator/replica pair whose belief differs
// from the truth for the longest time (the replica whose truth is stable
// the longest); c is -1 when every belief is right.
func (m *Model) staleBelief() (c, r int) {
	N := m.cfg.nodes
	c, r = -1, -1
	for rr := 0; rr < N; rr++ {
		if r >= 0 && m.trueSince[rr] >= m.trueSince[r] {
			continue
		}
		for cc := 0; cc < N; cc++ {
			if d := m.believed(cc, rr) - m.truth[rr]; d > 1 || d < -1 {
				c, r = cc, rr
				break
			}
		}
	}
	return c, r
}

func (m *Model) explainStale() string {
	c, r := m.staleBelief()
	if c < 0 {
		return "every coordinator believes every replica's true backlog"
	}
	i := c*m.cfg.nodes + r
	how := "never heard of it"
	switch m.beliefVia[i] {
	case viaResponse:
		how = "from a write response at " + secText(m.beliefAt[i])
	case viaGossip:
		how = "from gossip stamped " + secText(m.beliefAt[i])
	}
	return "coordinator " + nodeName(c) + " still believes " + nodeName(r) + "'s backlog is " + relText(m.rel(m.believed(c, r))) +
		" (" + how + "); " + nodeName(r) + "'s true backlog has been " + relText(m.rel(m.truth[r])) +
		" for " + sim.FormatSeconds(m.now-m.trueSince[r], 1)
}

func (m *Model) explainBad() string {
	b := m.bad
	return nodeName(b.replica) + " answered w" + strconv.Itoa(int(b.id)) + " with backlog " + relText(m.rel(b.carried)) +
		" computed on handling shard s" + strconv.Itoa(b.handling) + ", but applying shard s" + strconv.Itoa(b.applied) +
		" holds " + relText(m.rel(b.required)) + " (" + bytesText(b.required) + " of view updates)"
}
