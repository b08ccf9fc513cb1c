package tarantool

import (
	"github.com/racetrack-sim/racetrack/core/sim"
)

// connect mirrors applier_connect + applier_subscribe: send SUBSCRIBE with
// the replica's vclock on a new connection.
func (m *Model) connect(w *sim.World, b, a int) string {
	ap := m.applier(b, a)
	m.EpochSeq++
	ap.Epoch = m.EpochSeq
	ap.Status = applierConnecting
	ap.Since = w.Now()
	if ap.Tick == 0 {
		phase := w.Between(0, m.cfg.ReplicationTimeout, sim.Millisecond, "tick phase "+name(b)+"←"+name(a))
		ap.Tick = w.SetTimer(m.applierProc(b, a), m.cfg.ReplicationTimeout+phase, tagApplTick)
	}
	w.Send(m.applierProc(b, a), m.tx[a], subscribeMsg{Epoch: ap.Epoch, Vclock: m.Inst[b].Vclock, N: m.n()})
	return "connect, SUBSCRIBE"
}

// disconnect closes the applier's socket; it reconnects after
// replication_reconnect_interval (one replication_timeout, the next tick).
func (m *Model) disconnect(w *sim.World, b, a int, tell bool) {
	ap := m.applier(b, a)
	if tell && ap.Status == applierFollow {
		w.Send(m.applierProc(b, a), m.relayProc(a, b), closeMsg{Epoch: ap.Epoch})
	}
	ap.Status = applierOff
	ap.Since = w.Now()
}

// applierOf is the applier p runs: replica b's applier from master a.
func (m *Model) applierOf(p *sim.Proc) (ap *applier, b, a int) {
	a, b = m.roles[p.ID].a, m.roles[p.ID].b
	return m.applier(b, a), b, a
}

// applierTable is replica b's applier from master a. Applier fibers live
// in b's tx thread, so they run raft_process_msg directly.
var applierTable = sim.Handlers[*Model]{
	sim.On("follows, or retries after a refusal", func(m *Model, w *sim.World, p *sim.Proc, msg sim.Msg[subscribeReply]) string {
		ap, b, a := m.applierOf(p)
		if msg.Body.Epoch != ap.Epoch || ap.Status != applierConnecting {
			return "stale"
		}
		if !msg.Body.OK {
			m.disconnect(w, b, a, false)
			return "subscribe refused; retry after replication_timeout"
		}
		ap.Status, ap.Since, ap.LastRecv = applierFollow, w.Now(), w.Now()
		return "subscribed: follow"
	}),
	sim.On("processes a Raft message (raft_process_msg)", func(m *Model, w *sim.World, p *sim.Proc, msg sim.Msg[raftRow]) string {
		ap, b, a := m.applierOf(p)
		if !m.current(ap, msg.Body.Epoch) {
			return "stale"
		}
		ap.RaftRows++
		ap.LastRecv = w.Now()
		// applier_handle_raft -> box_raft_process -> raft_process_msg.
		m.processHeartbeat(w, b, id(a))
		return "raft_process_msg: " + m.processMsg(w, b, msg.Body.Req, id(a))
	}),
	sim.On("applies a row, or skips it", func(m *Model, w *sim.World, p *sim.Proc, msg sim.Msg[dataRow]) string {
		ap, b, a := m.applierOf(p)
		if !m.current(ap, msg.Body.Epoch) {
			return "stale"
		}
		ap.LastRecv = w.Now()
		m.processHeartbeat(w, b, id(a))
		return m.applyTx(w, b, a, msg.Body.Row)
	}),
	sim.On("takes a heartbeat", func(m *Model, w *sim.World, p *sim.Proc, msg sim.Msg[heartbeat]) string {
		ap, b, a := m.applierOf(p)
		if !m.current(ap, msg.Body.Epoch) {
			return "stale"
		}
		ap.LastRecv = w.Now()
		m.processHeartbeat(w, b, id(a))
		return "heartbeat"
	}),
	sim.OnTimer(tagConnect, "connects and subscribes", func(m *Model, w *sim.World, p *sim.Proc, _ sim.Fired) string {
		ap, b, a := m.applierOf(p)
		ap.Connect = 0
		if ap.Status != applierOff {
			return "already connected"
		}
		return m.connect(w, b, a)
	}),
	sim.OnTimer(tagApplTick, "acks or checks its connection", func(m *Model, w *sim.World, p *sim.Proc, t sim.Fired) string {
		ap, b, a := m.applierOf(p)
		if t.ID != ap.Tick {
			return "stale timer"
		}
		ap.Tick = w.SetTimer(p.ID, m.cfg.ReplicationTimeout, tagApplTick)
		return m.applierTick(w, b, a)
	}),
	sim.OnCrash("loses its connection", func(m *Model, w *sim.World, p *sim.Proc) {
		ap, _, _ := m.applierOf(p)
		ap.Status, ap.Tick, ap.Connect = applierOff, 0, 0
	}),
}

func (m *Model) current(ap *applier, epoch int) bool {
	return epoch == ap.Epoch && ap.Status == applierFollow
}

// applierTick is the applier writer's periodic ack and the reader's
// timeout: replication_disconnect_timeout without a packet breaks the
// connection; a broken one reconnects.
func (m *Model) applierTick(w *sim.World, b, a int) string {
	ap := m.applier(b, a)
	switch ap.Status {
	case applierFollow:
		if w.Now()-ap.LastRecv > m.cfg.deathTimeout() {
			m.disconnect(w, b, a, true)
			return "timed out: disconnect"
		}
		w.Send(m.applierProc(b, a), m.relayProc(a, b), ackMsg{Epoch: ap.Epoch, Vclock: m.Inst[b].Vclock, N: m.n()})
		return "ack"
	case applierConnecting:
		if w.Now()-ap.Since > m.cfg.deathTimeout() {
			m.disconnect(w, b, a, false)
			return "connect timed out"
		}
		return "waiting for the subscribe response"
	}
	if w.Now()-ap.Since < m.cfg.ReplicationTimeout {
		return "reconnect later"
	}
	return m.connect(w, b, a)
}

// applyTx mirrors the top of applier_apply_tx: a row from a source that is
// not the Raft leader is skipped (raft_is_source_allowed), without
// advancing the vclock; a duplicate is skipped; otherwise the row is
// written to b's WAL and b's relays are woken.
func (m *Model) applyTx(w *sim.World, b, a int, r row) string {
	in := &m.Inst[b]
	if m.isEnabled(b) && in.Leader != id(a) {
		m.applier(b, a).Ignored++
		return "ignored: raft_is_source_allowed(i" + itoa(id(a)) + ") is false (leader " + leaderName(in.Leader) + ")"
	}
	if r.LSN <= in.Vclock[r.Origin] {
		return "duplicate, skipped"
	}
	in.Vclock[r.Origin] = r.LSN
	in.WAL = append(in.WAL, r)
	m.walEvent(w, b, m.applierProc(b, a))
	return "applied, vclock " + in.Vclock.format(m.n())
}

func leaderName(l int) string {
	if l == 0 {
		return "unknown"
	}
	return "i" + itoa(l)
}
