package scylla

import (
	"strconv"

	"github.com/racetrack-sim/racetrack/core/sim"
)

// View shows, per node, the node_update_backlog and the broker; per
// shard, its semaphore; per coordinator, what it believes of each replica;
// and the client's tally.
func (m *Model) View(w *sim.World) sim.View {
	var v sim.View
	N, S := m.cfg.nodes, m.cfg.shards
	for n := 0; n < N; n++ {
		g := sim.Group{ID: nodeName(n), Title: nodeName(n) + " node_update_backlog", Node: sim.NodeID(n)}
		g.Fields = append(g.Fields,
			sim.Field{Name: "true backlog (max over shards)", Value: relText(m.rel(m.truth[n])), Unit: "relative"},
			sim.Field{Name: "true backlog stable for", Value: sim.FormatSeconds(m.now-m.trueSince[n], 3)},
			sim.Field{Name: "cached max", Value: relText(m.rel(m.cachedMax[n])), Unit: "relative"},
			sim.Field{Name: "last refresh", Value: refreshText(m.lastUpdate[n])})
		if m.cfg.clockSkew > 0 {
			g.Fields = append(g.Fields, sim.Field{Name: "system_clock offset", Value: msText(m.offset[n])})
		}
		for s := 0; s < S; s++ {
			i := m.idx(n, s)
			val := relText(m.rel(m.slot[i]))
			if m.flag[i] {
				val += " (need_publishing)"
			}
			g.Fields = append(g.Fields, sim.Field{Name: "slot s" + strconv.Itoa(s), Value: val, Unit: "relative"})
		}
		pub := "nothing yet"
		if m.hasPublished[n] {
			pub = relText(m.rel(m.published[n])) + " at " + secText(m.publishedAt[n])
		}
		g.Fields = append(g.Fields, sim.Field{Name: "broker: last gossiped", Value: pub})
		v.Groups = append(v.Groups, g)
		for s := 0; s < S; s++ {
			i := m.idx(n, s)
			v.Groups = append(v.Groups, sim.Group{ID: shardName(n, s), Title: shardName(n, s) + " view-update semaphore", Node: sim.NodeID(n), Fields: []sim.Field{
				{Name: "units in use", Value: strconv.FormatInt(m.sem[i], 10), Unit: "bytes"},
				{Name: "backlog", Value: relText(m.rel(m.sem[i])), Unit: "relative"},
				{Name: "view updates in flight", Value: strconv.Itoa(int(m.updates[i]))},
			}})
		}
	}
	for c := 0; c < N; c++ {
		g := sim.Group{ID: nodeName(c) + "-beliefs", Title: "coordinator " + nodeName(c) + ": _view_update_backlogs", Node: sim.NodeID(c)}
		for r := 0; r < N; r++ {
			g.Fields = append(g.Fields, sim.Field{Name: nodeName(r), Value: m.beliefText(c, r) + "; true " + relText(m.rel(m.truth[r])), Unit: "relative"})
		}
		g.Fields = append(g.Fields,
			sim.Field{Name: "last flow-control delay", Value: strconv.FormatFloat(m.lastDelay[c].Millis(), 'f', 1, 64), Unit: "ms"},
			sim.Field{Name: "delay the true backlog gives", Value: strconv.FormatFloat(m.lastTrueDelay[c].Millis(), 'f', 1, 64), Unit: "ms"})
		v.Groups = append(v.Groups, g)
	}
	v.Groups = append(v.Groups, sim.Group{ID: "client", Title: "client", Node: sim.NodeID(N), Fields: []sim.Field{
		{Name: "writes sent", Value: strconv.Itoa(m.issued)},
		{Name: "succeeded", Value: strconv.Itoa(m.succeeded)},
		{Name: "rejected by admission control", Value: strconv.Itoa(m.rejected)},
		{Name: "failed", Value: strconv.Itoa(m.failed)},
		{Name: "in flight at coordinators", Value: strconv.Itoa(len(m.inflight))},
		{Name: "total flow-control delay applied", Value: strconv.FormatFloat(m.delaySum.Seconds(), 'f', 3, 64), Unit: "s"},
		{Name: "total delay the true backlogs give", Value: strconv.FormatFloat(m.trueDelaySum.Seconds(), 'f', 3, 64), Unit: "s"},
		{Name: "total |applied - true| delay", Value: strconv.FormatFloat(m.delayErrSum.Seconds(), 'f', 3, 64), Unit: "s"},
	}})
	return v
}

func refreshText(t sim.Time) string {
	if t < 0 {
		return "never"
	}
	return secText(t)
}

func (m *Model) beliefText(c, r int) string {
	i := m.bi(c, 0, r)
	switch m.beliefVia[i] {
	case viaResponse:
		return relText(m.rel(m.belief[i])) + " (response, " + secText(m.beliefAt[i]) + ")"
	case viaGossip:
		return relText(m.rel(m.belief[i])) + " (gossip, ts " + secText(m.beliefAt[i]) + ")"
	}
	return "unknown (no_backlog)"
}

// Describe says what a pending event would do.
func (m *Model) Describe(w *sim.World, ev *sim.Event) string {
	p := w.Proc(ev.Proc)
	if ev.Kind == sim.EvTimer {
		switch tagKind(ev.Timer) {
		case tagClientNext:
			return "client sends its next write"
		case tagBroker:
			return p.Name + ": backlog broker reads the node backlog and decides whether to gossip it"
		case tagViewDone:
			return p.Name + ": a remote view update of " + bytesText(tagArg(ev.Timer)) + " completes and releases its units"
		case tagFlowDone:
			if k := m.delayedAt(int(p.Node), p.Shard, ev.At); k >= 0 {
				return p.Name + ": " + m.inflight[k].w.name() + "'s flow-control delay ends; the client gets its answer"
			}
			return p.Name + ": a write's flow-control delay ends; the client gets its answer"
		}
		return p.Name + ": timer"
	}
	switch msg := ev.Payload.(type) {
	case writeReq:
		return p.Name + " coordinates " + msg.W.name()
	case mutation:
		if msg.W.Applying == p.Shard {
			return p.Name + " applies " + msg.W.name() + " itself and answers"
		}
		return p.Name + " handles " + msg.W.name() + " and submits it to s" + strconv.Itoa(msg.W.Applying)
	case applyReq:
		return p.Name + " applies " + msg.W.name() + ": +" + bytesText(msg.W.Bytes) + " of view updates"
	case applied:
		return p.Name + " answers " + msg.W.name() + " with its view of the backlog"
	case mutationDone:
		return p.Name + " records " + nodeName(msg.Replica) + "'s backlog " + relText(msg.Rel) + " from w" + strconv.Itoa(int(msg.ID)) + "'s response"
	case writeReply:
		return "client gets " + msg.Label()
	case gossipMsg:
		if p.ID == m.mesh {
			return "gossip carries " + nodeName(msg.From) + "'s backlog to " + nodeName(msg.To)
		}
		return p.Name + " receives " + nodeName(msg.From) + "'s gossiped backlog " + relText(msg.Rel)
	}
	return p.Name + " handles a message"
}
