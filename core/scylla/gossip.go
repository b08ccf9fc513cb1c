package scylla

import "github.com/racetrack-sim/racetrack/core/sim"

// brokerTick is one iteration of view_update_backlog_broker's loop on
// shard 0 (service/misc_services.cc), which then sleeps
// gms::gossiper::INTERVAL.
//
// The read follows the code: before 272e80fe0a the broker calls
// get_view_update_backlog() = add_fetch(0, shard 0's semaphore), which
// refreshes shard 0's slot; from it on get_view_update_backlog() is
// fetch(), and with the need-publishing rule (f70f774e40) the broker
// calls get_view_update_backlog_if_changed() = fetch_if_changed(); neither
// refreshes a slot.
//
// The rule decides whether to publish: on-change compares with
// backlog_published (eedcee7f31, bug #18461); need-publishing publishes
// exactly when a need_publishing flag was raised since the last tick
// (an add(), or in the wrong fix a response), whether or not the value
// changed, and never otherwise, not even a first value at start; always
// publishes every tick (the broker before eedcee7f31).
func (m *Model) brokerTick(w *sim.World, n int) sim.Action {
	w.SetTimer(m.shardProc[m.idx(n, 0)], m.cfg.gossipInterval, tagBroker)
	m.sampleNode(w, n)
	if m.afterResponse[n] == responseSinceTick {
		m.afterResponse[n] = tickSinceResponse
	}
	var b int64
	flagged := false
	switch {
	case !m.cfg.split:
		b = m.addFetch(n, 0, false)
		flagged = m.takeFlags(n)
	case m.cfg.rule == NeedPublishing:
		b, flagged = m.fetchIfChanged(n)
	default:
		b = m.fetch(n, 0)
	}
	changed := !m.hasPublished[n] || b != m.published[n]
	if !changed {
		for c := 0; c < m.cfg.nodes; c++ {
			if i := m.bi(c, 0, n); c != n && m.beliefVia[i] == viaResponse && m.belief[i] != b {
				m.gossipWindow = nodeName(n) + "'s broker reads " + relText(m.rel(b)) + ", the value it last published, while " +
					nodeName(c) + " believes " + relText(m.rel(m.belief[i])) + " from a response"
				break
			}
		}
	}
	var why string
	switch m.cfg.rule {
	case OnChange:
		if changed {
			why = "changed"
		}
	case NeedPublishing:
		// get_view_update_backlog_if_changed returns a backlog only when
		// a need_publishing flag was set since the last tick; otherwise
		// the broker sleeps without publishing (no first value at start).
		if flagged {
			why = "need_publishing"
		}
	case Always:
		why = "every tick"
	}
	if why != "" && !m.hasPublished[n] && m.cfg.rule != NeedPublishing {
		why = "first value"
	}
	if why != "" {
		m.publish(w, n, b)
	}
	if untraced(w) {
		return silent
	}
	v := relText(m.rel(b))
	if why == "" {
		return sim.Local("broker: backlog "+v+" = last published, not gossiped", 0)
	}
	return sim.Local("broker: gossip backlog "+v+" ("+why+")", 0)
}

// publish is add_local_application_state(VIEW_BACKLOG, "current:max:ts"),
// ts being the publisher's system_clock (true time plus its clockSkew
// offset). The gossiper runs the on_change
// notifications for the local endpoint at once (do_on_change_notifications
// in add_local_application_state); the other nodes learn the value through
// gossip rounds.
func (m *Model) publish(w *sim.World, n int, b int64) {
	ts := m.clock(n)
	m.published[n], m.publishedAt[n], m.hasPublished[n] = b, m.now, true
	m.applyGossip(w, n, n, b, ts)
	from := m.shardProc[m.idx(n, 0)]
	for c := 0; c < m.cfg.nodes; c++ {
		if c != n {
			w.Send(from, m.mesh, gossipMsg{From: n, To: c, Current: b, Rel: m.rel(b), TS: ts})
		}
	}
}

// onGossip is view_update_backlog_broker::on_change on node c for the
// VIEW_BACKLOG state of node r.
func (m *Model) onGossip(w *sim.World, c, r int, b int64, ts sim.Time) sim.Action {
	ok := m.applyGossip(w, c, r, b, ts)
	if untraced(w) {
		return silent
	}
	if ok {
		return sim.Local(nodeName(r)+"'s backlog := "+relText(m.rel(b))+" (gossip)", 0)
	}
	i := m.bi(c, 0, r)
	return sim.Local("ignore gossip of "+nodeName(r)+" (ts "+secText(ts)+" not newer than "+secText(m.beliefAt[i])+")", 0)
}

// applyGossip stores a gossiped backlog: an unknown replica is inserted
// (try_emplace), a known one is overwritten only if the stored timestamp is
// older. on_change runs on shard 0; since #19268 it updates every shard's
// map (gossipAllShards), before it only shard 0's. Without perShardMaps
// the one per-node map stands for all of them.
func (m *Model) applyGossip(w *sim.World, c, r int, b int64, ts sim.Time) bool {
	shards := m.maps()
	if !m.cfg.gossipAllShards {
		shards = 1
	}
	ok := false
	for s := 0; s < shards; s++ {
		i := m.bi(c, s, r)
		if m.beliefKnown[i] && m.beliefAt[i] >= ts {
			continue
		}
		m.belief[i], m.beliefAt[i], m.beliefKnown[i], m.beliefVia[i] = b, ts, true, viaGossip
		if s == 0 {
			w.Sample(m.sBelief[c*m.cfg.nodes+r], m.rel(b))
		}
		ok = true
	}
	return ok
}

// clock is node n's system_clock: true time plus its offset.
func (m *Model) clock(n int) sim.Time { return m.now + m.offset[n] }

// sampleNode samples node n's series once per broker period, so that
// every chart starts at time 0 even where nothing changes.
func (m *Model) sampleNode(w *sim.World, n int) {
	if untraced(w) {
		return
	}
	N := m.cfg.nodes
	w.Sample(m.sTruth[n], m.rel(m.truth[n]))
	for s := 0; s < m.cfg.shards; s++ {
		w.Sample(m.sShard[m.idx(n, s)], m.rel(m.sem[m.idx(n, s)]))
	}
	for r := 0; r < N; r++ {
		w.Sample(m.sBelief[n*N+r], m.rel(m.believed(n, r)))
	}
	w.Sample(m.sDelay[n], m.lastDelay[n].Millis())
	w.Sample(m.sTrueDelay[n], m.lastTrueDelay[n].Millis())
	if n == 0 {
		w.Sample(m.sRejected, float64(m.rejected))
	}
}
