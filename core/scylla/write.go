package scylla

import (
	"math"
	"strconv"

	"github.com/racetrack-sim/racetrack/core/sim"
)

// Handle runs one step of one actor: a shard, the client or the gossip mesh.
func (m *Model) Handle(w *sim.World, p *sim.Proc, ev *sim.Event) sim.Action {
	m.now = w.Now()
	m.bad, m.window, m.gossipWindow, m.spanWindow = respCheck{}, respCheck{}, "", ""
	switch p.ID {
	case m.client:
		return m.handleClient(w, ev)
	case m.mesh:
		g := ev.Payload.(gossipMsg)
		w.Send(m.mesh, m.shardProc[m.idx(g.To, 0)], g)
		if untraced(w) {
			return silent
		}
		return sim.Local("gossip of "+nodeName(g.From)+" reaches "+nodeName(g.To), 0)
	}
	n, s := int(p.Node), p.Shard
	if ev.Kind == sim.EvTimer {
		switch tagKind(ev.Timer) {
		case tagBroker:
			return m.brokerTick(w, n)
		case tagViewDone:
			return m.viewUpdateDone(w, n, s, tagArg(ev.Timer))
		case tagFlowDone:
			return m.flowDone(w, n, s)
		}
		w.Failf("%s: unknown timer %d", p.Name, ev.Timer)
		return sim.Local("?", 0)
	}
	switch msg := ev.Payload.(type) {
	case writeReq:
		return m.coordinate(w, n, s, msg.W)
	case mutation:
		return m.handleMutation(w, n, s, msg.W)
	case applyReq:
		return m.handleApply(w, n, s, msg)
	case applied:
		return m.handleApplied(w, n, s, msg)
	case mutationDone:
		return m.gotResponse(w, n, s, msg)
	case gossipMsg:
		return m.onGossip(w, n, msg.From, msg.Current, msg.TS)
	}
	w.Failf("%s: unexpected message %T", p.Name, ev.Payload)
	return sim.Local("?", 0)
}

// silent is the step of an untraced run: labels only name steps in the
// trace, so an untraced run does not build them.
var silent = sim.Local("", 0)

func untraced(w *sim.World) bool { return w.Trace() == nil }

// handleClient issues writes at writeRate and collects answers.
func (m *Model) handleClient(w *sim.World, ev *sim.Event) sim.Action {
	if ev.Kind == sim.EvDeliver {
		if untraced(w) {
			return silent
		}
		return sim.Local("client: "+ev.Payload.(writeReply).Label(), 0)
	}
	c := &m.cfg
	x := m.drawWrite(w)
	m.issued++
	w.Send(m.client, m.shardProc[m.idx(x.Coord, x.CShard)], writeReq{W: x})
	if c.writeCount == 0 || m.issued < c.writeCount {
		mean := sim.Time(float64(sim.Second) / c.writeRate)
		gap := w.Between(mean/2, mean*3/2, sim.Millisecond, "time to next write")
		if m.now+gap <= c.duration {
			w.SetTimer(m.client, gap, tagClientNext)
		}
	}
	if untraced(w) {
		return silent
	}
	return sim.Local("client sends "+x.name()+" to "+shardName(x.Coord, x.CShard), 0)
}

// drawWrite picks the next write: its key (a token on the ring, which
// names its owning shard, token mod shards, and its first replica), its
// size, and the coordinator shard the driver sends it to.
func (m *Model) drawWrite(w *sim.World) writeInfo {
	c := &m.cfg
	N, S := c.nodes, c.shards
	key := w.Choose(c.keyCount, "key")
	token := uint32(sim.Mix64(uint64(key)^m.salt) >> 33)
	if c.hotShardShare > 0 && w.Chance(c.hotShardShare, "hot shard?") {
		token = token - token%uint32(S) + uint32(c.hotShard)
	}
	x := writeInfo{ID: int32(m.issued + 1), Token: token, Applying: int(token % uint32(S)), Owner: int(token / uint32(S) % uint32(N))}
	if c.randomSizes {
		x.Bytes = c.sizes[w.Choose(len(c.sizes), "write size")]
	} else {
		x.Bytes = c.sizes[m.issued%len(c.sizes)]
	}
	switch c.target {
	case targetLocal:
		x.Coord = x.Owner
	case targetRemote:
		x.Coord = (x.Owner + c.rf + w.Choose(N-c.rf, "coordinator node")) % N
	default:
		x.Coord = w.Choose(N, "coordinator node")
	}
	if c.shardAware {
		// A shard-aware driver sends the write to the shard that owns
		// its token; the RPC to each replica then arrives on that shard.
		x.CShard = x.Applying
	} else {
		x.CShard = w.Choose(S, "coordinator shard")
	}
	return x
}

// replica is the write's i-th replica: RF consecutive nodes on the ring.
func (m *Model) replica(x writeInfo, i int) int { return (x.Owner + i) % m.cfg.nodes }

// quorum is the consistency level: QUORUM of RF.
func (m *Model) quorum() int8 { return int8(m.cfg.rf/2 + 1) }

// coordinate runs storage_proxy::mutate on coordinator shard s of node n:
// admission control (can_update_views), then the write to every replica,
// locally through apply_locally (lmutate) or remotely (send_mutation).
func (m *Model) coordinate(w *sim.World, n, s int, x writeInfo) sim.Action {
	c := &m.cfg
	if worst, size, reject := m.shouldRejectDueToViewBacklog(n, x); reject {
		m.rejected++
		w.Sample(m.sRejected, float64(m.rejected))
		w.Send(m.shardProc[m.idx(n, s)], m.client, writeReply{ID: x.ID, Outcome: outcomeRejected})
		return sim.Local("reject "+x.name()+": believes "+nodeName(worst)+" at relative_size "+strconv.FormatFloat(size, 'f', 2, 64)+" >= 1", 0)
	}
	m.inflight = append(m.inflight, coordWrite{w: x, start: m.now})
	label := ""
	if !untraced(w) {
		label = "coordinate " + x.name() + " →"
	}
	for i := 0; i < c.rf; i++ {
		r := m.replica(x, i)
		if label != "" {
			label += " " + nodeName(r)
		}
		switch {
		case r != n:
			w.Send(m.shardProc[m.idx(n, s)], m.shardProc[m.idx(r, s)], mutation{W: x})
		case x.Applying == s:
			ok := m.apply(w, n, s, x)
			m.gotBacklog(w, n, s, n, m.responseBacklog(n, s, x))
			m.countResponse(w, n, x.ID, ok)
			if label != "" {
				label += " (applied here)"
			}
		default:
			w.Send(m.shardProc[m.idx(n, s)], m.shardProc[m.idx(n, x.Applying)], applyReq{W: x, Local: true})
		}
	}
	return sim.Local(label, 0)
}

// shouldRejectDueToViewBacklog is storage_proxy's admission control: a
// write is rejected unless every target's believed backlog has a
// relative_size below 1, relative_size being current / max /
// admission_control_threshold (0.8 upstream: the admissionThreshold
// parameter). It returns the target with the largest backlog and its
// relative_size.
func (m *Model) shouldRejectDueToViewBacklog(n int, x writeInfo) (worst int, size float64, reject bool) {
	c := &m.cfg
	if !c.admission {
		return -1, 0, false
	}
	var b int64
	worst = -1
	for i := 0; i < c.rf; i++ {
		r := m.replica(x, i)
		if v := m.believedOn(n, x.CShard, r); worst < 0 || v > b {
			worst, b = r, v
		}
	}
	size = float64(b) / float64(c.maxMem) / c.admissionThreshold
	return worst, size, size >= 1
}

// handleMutation is remote::handle_write on the replica shard the RPC
// arrived on (the coordinator's shard id): apply_fn submits the mutation to
// the owning shard, and send_mutation_done answers from this shard.
func (m *Model) handleMutation(w *sim.World, n, s int, x writeInfo) sim.Action {
	if x.Applying == s {
		ok := m.apply(w, n, s, x)
		m.respond(w, n, s, x, ok)
		if untraced(w) {
			return silent
		}
		return sim.Local("apply "+x.name()+" here (+"+bytesText(x.Bytes)+" view updates) and answer", 0)
	}
	w.Send(m.shardProc[m.idx(n, s)], m.shardProc[m.idx(n, x.Applying)], applyReq{W: x})
	if untraced(w) {
		return silent
	}
	return sim.Local("handle "+x.name()+": submit to owning shard s"+strconv.Itoa(x.Applying), 0)
}

// handleApply runs the apply on the owning shard and hands back.
func (m *Model) handleApply(w *sim.World, n, s int, a applyReq) sim.Action {
	ok := m.apply(w, n, s, a.W)
	w.Send(m.shardProc[m.idx(n, s)], m.shardProc[m.idx(n, a.W.CShard)], applied{W: a.W, OK: ok, Local: a.Local})
	if untraced(w) {
		return silent
	}
	if !ok {
		return sim.Local("apply "+a.W.name()+": Too many view updates started concurrently", 0)
	}
	return sim.Local("apply "+a.W.name()+": +"+bytesText(a.W.Bytes)+" view updates, s"+strconv.Itoa(s)+" at "+relText(m.rel(m.sem[m.idx(n, s)])), 0)
}

// handleApplied is the handling shard once the owning shard is done: the
// replica answers the coordinator, or, on the coordinator itself, lmutate's
// continuation calls got_response(my_address, get_view_update_backlog()).
func (m *Model) handleApplied(w *sim.World, n, s int, a applied) sim.Action {
	if a.Local {
		v := m.responseBacklog(n, s, a.W)
		m.gotBacklog(w, n, s, n, v)
		m.countResponse(w, n, a.W.ID, a.OK)
		if untraced(w) {
			return silent
		}
		return sim.Local(a.W.name()+" applied locally; "+nodeName(n)+"'s own backlog := "+relText(m.rel(v)), 0)
	}
	v := m.respond(w, n, s, a.W, a.OK)
	if untraced(w) {
		return silent
	}
	return sim.Local("answer "+a.W.name()+" with backlog "+relText(m.rel(v)), 0)
}

// apply is database::apply on the owning shard followed by view-update
// generation (generate_and_propagate_view_updates): a batch of view
// updates consumes its semaphore units first, and if that leaves no units
// available the write fails with "Too many view updates started
// concurrently" and the units go back at once (4433d2e10e and after). The
// units of a batch that goes ahead are held until the remote view write
// completes. After #19341 the shard add()s its backlog once generation is
// over (after builder.close(), failed or not).
func (m *Model) apply(w *sim.World, n, s int, x writeInfo) bool {
	i := m.idx(n, s)
	ok := m.sem[i]+x.Bytes < m.cfg.maxMem
	if ok {
		m.setSem(w, n, s, m.sem[i]+x.Bytes)
		m.updates[i]++
		if !m.cfg.neverFinish {
			lat := m.cfg.viewWriteLatency
			d := w.Between(lat/2, lat*3/2, sim.Millisecond, "view write latency")
			w.SetTimer(m.shardProc[i], d, tagOf(tagViewDone, x.Bytes))
		}
	}
	if m.cfg.source != HandlingShard {
		m.add(n, s) // update_view_update_backlog() after builder.close()
	}
	return ok
}

// viewUpdateDone is the continuation of a remote view update in mutate_MV:
// its units go back to the semaphore, and from 2cafa573df (#18804) on the
// shard refreshes its slot. 2cafa573df called get_view_update_backlog()
// (add_fetch on this shard); 272e80fe0a made it
// update_view_update_backlog() = add(), which raises need_publishing
// since f70f774e40. Only add() is modelled: no variant stops at
// 2cafa573df alone.
func (m *Model) viewUpdateDone(w *sim.World, n, s int, bytes int64) sim.Action {
	i := m.idx(n, s)
	m.setSem(w, n, s, m.sem[i]-bytes)
	m.updates[i]--
	if m.afterResponse[n] == tickSinceResponse {
		m.spanWindow = shardName(n, s) + "'s view update ended after " + nodeName(n) + "'s broker ticked since its last write response"
	}
	if m.cfg.split {
		m.add(n, s)
	}
	if untraced(w) {
		return silent
	}
	return sim.Local("remote view update done: −"+bytesText(bytes)+", s"+strconv.Itoa(s)+" at "+relText(m.rel(m.sem[i])), 0)
}

// respond is send_mutation_done / send_mutation_failed from handling shard
// s of replica n, with p->get_view_update_backlog().
func (m *Model) respond(w *sim.World, n, s int, x writeInfo, ok bool) int64 {
	v := m.responseBacklog(n, s, x)
	w.Send(m.shardProc[m.idx(n, s)], m.shardProc[m.idx(x.Coord, x.CShard)],
		mutationDone{ID: x.ID, Replica: n, Backlog: v, Rel: m.rel(v), OK: ok})
	return v
}

// responseBacklog is what handling shard s of node n puts in a response:
// add_fetch(this_shard_id(), own semaphore) in the seed code;
// update_view_update_backlog() then get_view_update_backlog(), that is
// add() of its own semaphore then fetch(), from 272e80fe0a to
// fd9c7d4d59 (the same value, and the same need_publishing flag since
// f70f774e40); only fetch() after #19341 (the wrong fix OwnSlot: the
// handling shard's own slot). It also checks response-from-applying-shard: the
// value must cover the applying shard's backlog now, or as of the node's
// last refresh if that is less than one interval old.
func (m *Model) responseBacklog(n, s int, x writeInfo) int64 {
	m.afterResponse[n] = responseSinceTick
	var v int64
	switch m.cfg.source {
	case HandlingShard:
		v = m.addFetch(n, s, true)
	case OwnSlot:
		v = m.slot[m.idx(n, s)]
	default:
		v = m.fetch(n, s)
	}
	a := m.idx(n, x.Applying)
	required := m.sem[a]
	if m.now-m.lastUpdate[n] < m.cfg.refresh {
		required = min(required, m.truthAtRefresh[a])
	}
	if s != x.Applying && m.sem[a] > 0 && !m.window.set {
		m.window = respCheck{set: true, id: x.ID, replica: n, handling: s, applied: x.Applying, carried: v, required: m.sem[a]}
	}
	if v < required && !m.bad.set {
		m.bad = respCheck{set: true, id: x.ID, replica: n, handling: s, applied: x.Applying, carried: v, required: required}
	}
	return v
}

// maps is the number of backlog maps a coordinator node keeps: one, or
// one per shard (storage_proxy is sharded upstream: perShardMaps).
func (m *Model) maps() int {
	if m.cfg.perShardMaps {
		return m.cfg.shards
	}
	return 1
}

// bi indexes the map of coordinator c's shard s for replica r.
func (m *Model) bi(c, s, r int) int {
	return (c*m.maps()+s%m.maps())*m.cfg.nodes + r
}

// believed is get_backlog_of(ep) on coordinator c's shard 0 (its only map
// unless perShardMaps): the stored backlog of a replica, no_backlog when
// unknown.
func (m *Model) believed(c, r int) int64 { return m.believedOn(c, 0, r) }

// believedOn is get_backlog_of(ep) on coordinator c's shard s.
func (m *Model) believedOn(c, s, r int) int64 {
	i := m.bi(c, s, r)
	if !m.beliefKnown[i] {
		return 0
	}
	return m.belief[i]
}

// gotBacklog is maybe_update_view_backlog_of(replica, backlog) on
// coordinator c's shard s: the response path overwrites unconditionally
// (insert_or_assign), stamped with the coordinator's system_clock.
func (m *Model) gotBacklog(w *sim.World, c, s, r int, v int64) {
	i := m.bi(c, s, r)
	m.belief[i], m.beliefAt[i], m.beliefKnown[i], m.beliefVia[i] = v, m.clock(c), true, viaResponse
	if s%m.maps() == 0 {
		w.Sample(m.sBelief[c*m.cfg.nodes+r], m.rel(v))
	}
}

// gotResponse is storage_proxy::got_response / got_failure_response on
// the coordinator shard. The handler's completion (and so the flow-control
// delay) runs as a continuation after got_response returns, so it already
// sees the backlog this response carried.
func (m *Model) gotResponse(w *sim.World, c, cs int, d mutationDone) sim.Action {
	m.gotBacklog(w, c, cs, d.Replica, d.Backlog)
	m.countResponse(w, c, d.ID, d.OK)
	if untraced(w) {
		return silent
	}
	return sim.Local("w"+strconv.Itoa(int(d.ID))+": "+nodeName(d.Replica)+"'s backlog := "+relText(d.Rel)+" (response)", 0)
}

func (m *Model) findWrite(id int32) int {
	for i := range m.inflight {
		if m.inflight[i].w.ID == id {
			return i
		}
	}
	return -1
}

// countResponse is the response handler: once the consistency level is
// reached the write is delayed by MV flow control
// (abstract_write_response_handler::delay), once too many replicas failed
// it fails.
func (m *Model) countResponse(w *sim.World, c int, id int32, ok bool) {
	k := m.findWrite(id)
	if k < 0 {
		w.Failf("response for unknown write w%d", id)
		return
	}
	x := &m.inflight[k]
	x.answered++
	if ok {
		x.acks++
	} else {
		x.fails++
	}
	q := m.quorum()
	switch {
	case x.done:
	case x.acks >= q:
		x.done = true
		d := m.throttle(w, c, x)
		if d > 0 {
			w.SetTimer(m.shardProc[m.idx(c, x.w.CShard)], d, tagFlowDone)
			return
		}
		m.reply(w, c, x, outcomeOK)
	case x.fails > int8(m.cfg.rf)-q:
		x.done = true
		m.reply(w, c, x, outcomeFailed)
	}
	if x.done && int(x.answered) == m.cfg.rf && !x.delayLeft {
		m.inflight = append(m.inflight[:k], m.inflight[k+1:]...)
	}
}

// throttle computes the flow-control delay of a write that reached its
// consistency level, from the coordinator's beliefs about its targets, and
// the delay the replicas' true backlogs would give.
func (m *Model) throttle(w *sim.World, c int, x *coordWrite) sim.Time {
	var believed, truth int64
	for i := 0; i < m.cfg.rf; i++ {
		r := m.replica(x.w, i)
		believed = max(believed, m.believedOn(c, x.w.CShard, r))
		truth = max(truth, m.truth[r])
	}
	budget := max(0, m.cfg.writeTimeout-(m.now-x.start))
	d := m.delayFor(believed, budget)
	td := m.delayFor(truth, budget)
	m.lastDelay[c], m.lastTrueDelay[c] = d, td
	m.delaySum += d
	m.trueDelaySum += td
	if d > td {
		m.delayErrSum += d - td
	} else {
		m.delayErrSum += td - d
	}
	w.Sample(m.sDelay[c], d.Millis())
	w.Sample(m.sTrueDelay[c], td.Millis())
	x.delay, x.delayLeft, x.delayUntil = d, d > 0, m.now+d
	return d
}

// delayFor mirrors calculate_view_update_throttling_delay:
// min(budget, relative^3 * delay_limit).
func (m *Model) delayFor(b int64, budget sim.Time) sim.Time {
	r := m.rel(b)
	d := sim.Time(math.Round(r * r * r * float64(m.cfg.delayLimit)))
	return min(d, budget)
}

// delayedUntilNow finds the write coordinated on shard s of node c whose
// flow-control delay ends now. The timer names no write, so that write
// ids (a count of past writes) stay out of the state hash.
func (m *Model) delayedUntilNow(c, s int) int { return m.delayedAt(c, s, m.now) }

func (m *Model) delayedAt(c, s int, at sim.Time) int {
	for i := range m.inflight {
		x := &m.inflight[i]
		if x.delayLeft && x.delayUntil == at && x.w.Coord == c && x.w.CShard == s {
			return i
		}
	}
	return -1
}

// flowDone ends a write's flow-control delay and answers the client.
func (m *Model) flowDone(w *sim.World, c, s int) sim.Action {
	k := m.delayedUntilNow(c, s)
	if k < 0 {
		w.Failf("flow-control timer on %s without a delayed write", shardName(c, s))
		return sim.Local("?", 0)
	}
	x := &m.inflight[k]
	id := x.w.ID
	x.delayLeft = false
	m.reply(w, c, x, outcomeOK)
	if int(x.answered) == m.cfg.rf {
		m.inflight = append(m.inflight[:k], m.inflight[k+1:]...)
	}
	if untraced(w) {
		return silent
	}
	return sim.Local("w"+strconv.Itoa(int(id))+": flow-control delay over", 0)
}

func (m *Model) reply(w *sim.World, c int, x *coordWrite, outcome uint8) {
	if outcome == outcomeOK {
		m.succeeded++
	} else {
		m.failed++
	}
	w.Send(m.shardProc[m.idx(c, x.w.CShard)], m.client, writeReply{ID: x.w.ID, Outcome: outcome, Delay: x.delay})
}
