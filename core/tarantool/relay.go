package tarantool

import (
	"github.com/racetrack-sim/racetrack/core/sim"
)

// processSubscribe mirrors box_process_subscribe and relay_subscribe on
// master a, in its tx thread, for replica b.
func (m *Model) processSubscribe(w *sim.World, a, b int, msg subscribeMsg) string {
	r := m.relay(a, b)
	appl := m.applierProc(b, a)
	if r.Follow {
		w.Send(m.tx[a], appl, subscribeReply{Epoch: msg.Epoch})
		return "duplicate connection: the old relay still runs"
	}
	// The response and the Raft state go straight to the socket, before
	// the relay thread exists.
	w.Send(m.tx[a], appl, subscribeReply{Epoch: msg.Epoch, OK: true})
	did := "subscribe response"
	if m.isEnabled(a) && !m.cfg.raftless(b) {
		req := m.checkpointRemote(a)
		w.Send(m.tx[a], appl, raftRow{Epoch: msg.Epoch, Req: req, Subscribe: true})
		did += ", raft " + req.String() + " straight to the socket"
	}
	r.Follow = true
	w.Send(m.tx[a], m.relayProc(a, b), relayStartMsg{Epoch: msg.Epoch, From: msg.Vclock})
	return did + ", start relay"
}

// pushRaft mirrors relay_push_raft on a's tx thread for the relay serving
// b. It reports whether the update will reach the relay (now or later).
func (m *Model) pushRaft(w *sim.World, a, b int, req raftReq) bool {
	r := m.relay(a, b)
	if r.Follow && !r.IsRaftEnabled && !m.cfg.raftless(b) {
		r.Early++
	}
	switch m.cfg.Variant {
	case Drop:
		// "Raft updates don't stack. They are thrown away if can't be
		// pushed now."
		if !r.IsRaftEnabled {
			r.Dropped++
			return false
		}
		m.sendPush(w, a, b, raftPushMsg{Req: req, Restart: true, Slot: -1})
	case PendingAlloc:
		if !r.IsRaftEnabled {
			r.HasSaved, r.Saved = true, req
			return true
		}
		m.sendPush(w, a, b, raftPushMsg{Req: req, Restart: true, Slot: -1})
	default:
		// Overwrite the ready slot: only the latest request is kept.
		r.Msgs[r.ReadyMsg] = req
		r.PushPending = true
		m.pushRaftMsg(w, a, b, true)
	}
	return true
}

// pushRaftMsg mirrors relay_push_raft_msg (Pending): push the ready slot
// unless the relay is not enabled or a message is already en route.
func (m *Model) pushRaftMsg(w *sim.World, a, b int, restart bool) {
	r := m.relay(a, b)
	if !r.IsRaftEnabled || r.PushSent {
		return
	}
	slot := r.ReadyMsg
	m.sendPush(w, a, b, raftPushMsg{Req: r.Msgs[slot], Restart: restart, Slot: slot})
	r.ReadyMsg = (r.ReadyMsg + 1) % 2
	r.PushSent = true
	r.PushPending = false
}

func (m *Model) sendPush(w *sim.World, a, b int, msg raftPushMsg) {
	m.relay(a, b).InFlight++
	w.Send(m.tx[a], m.relayProc(a, b), msg)
}

// setIsRaftEnabled mirrors tx_set_is_raft_enabled, the first hop of the
// relay's enable message, then sends the second hop back.
func (m *Model) setIsRaftEnabled(w *sim.World, a, b int, msg enableMsg) string {
	r := m.relay(a, b)
	r.IsRaftEnabled = msg.Value
	did := "is_raft_enabled = true"
	switch m.cfg.Variant {
	case Pending, Merged, MergedWithoutRecvVclock:
		// Push the saved message now. v4 does not restart the recovery
		// (it is still positioned at the replica's vclock); as merged,
		// every leader message restarts it.
		if r.PushPending {
			m.pushRaftMsg(w, a, b, m.cfg.Variant != Pending)
			did += ", push the pending message"
		}
	case PendingAlloc:
		if r.HasSaved {
			m.sendPush(w, a, b, raftPushMsg{Req: r.Saved, Slot: -1})
			r.HasSaved = false
			did += ", push the saved message"
		}
	}
	w.Send(m.tx[a], m.relayProc(a, b), enabledMsg{Epoch: msg.Epoch})
	return did
}

// raftMsgReturn mirrors tx_raft_msg_return (Pending).
func (m *Model) raftMsgReturn(w *sim.World, a, b int) string {
	r := m.relay(a, b)
	r.PushSent = false
	r.InFlight--
	if r.PushPending {
		m.pushRaftMsg(w, a, b, true)
		if r.PushSent {
			return "push the pending message"
		}
	}
	return "message back in tx"
}

// relayExited is the tx side of the relay thread's end: is_raft_enabled
// goes false (the pending slot stays) and relay_subscribe returns.
func (m *Model) relayExited(a, b int) {
	r := m.relay(a, b)
	r.IsRaftEnabled = false
	r.Follow = false
}

// relayOf is the relay p runs: master a's relay thread serving b.
func (m *Model) relayOf(p *sim.Proc) (r *relay, a, b int) {
	a, b = m.roles[p.ID].a, m.roles[p.ID].b
	return m.relay(a, b), a, b
}

// relayTable is master a's relay thread serving replica b.
var relayTable = sim.Handlers[*Model]{
	sim.On("starts the relay thread (relay_subscribe)", func(m *Model, w *sim.World, p *sim.Proc, msg sim.Msg[relayStartMsg]) string {
		// relay_subscribe: recovery at the replica's vclock. The relay
		// struct is replica->relay, made once by relay_new (zeroed) and
		// reused by every connection: relay_start resets neither
		// recv_vclock nor anything else that Recv stands for, so before
		// 660f3323b9 a restart before the first ack resumes at the
		// previous connection's last ack.
		r, a, b := m.relayOf(p)
		r.Epoch, r.Phase = msg.Body.Epoch, relayStarting
		r.Cursor, r.Subscribed = msg.Body.From, msg.Body.From
		if m.cfg.Variant == Merged {
			// 660f3323b9: "Save the first vclock as 'received' ...
			// recv_vclock is used by recovery restart and must always be
			// valid."
			r.Recv = msg.Body.From
		}
		r.LastAck = w.Now()
		lo := m.cfg.RelayEnableDelay / 2
		d := w.Between(lo, m.cfg.RelayEnableDelay, 10*sim.Microsecond, "relay start "+name(a)+"→"+name(b))
		r.Start = w.SetTimer(p.ID, d, tagRelStart)
		return "relay thread starts (cbus_pair)"
	}),
	sim.On("has Raft enabled and starts streaming", func(m *Model, w *sim.World, p *sim.Proc, msg sim.Msg[enabledMsg]) string {
		r, a, b := m.relayOf(p)
		if msg.Body.Epoch != r.Epoch || r.Phase != relayEnabling {
			return "stale"
		}
		// relay_set_is_raft_enabled: is_finished.
		return "raft enabled; " + m.startStreaming(w, p, a, b)
	}),
	sim.On("sends a Raft message (relay_raft_msg_push)", func(m *Model, w *sim.World, p *sim.Proc, msg sim.Msg[raftPushMsg]) string {
		_, a, b := m.relayOf(p)
		return m.raftMsgPush(w, a, b, msg.Body)
	}),
	sim.On("sends the new rows of the WAL", func(m *Model, w *sim.World, p *sim.Proc, _ sim.Msg[walEventMsg]) string {
		r, a, b := m.relayOf(p)
		if r.Phase != relayStreaming {
			return "not streaming"
		}
		return "recover_remaining_wals: " + itoa(m.recoverRemainingWALs(w, a, b)) + " row(s) sent"
	}),
	sim.On("takes the replica's ack as recv_vclock", func(m *Model, w *sim.World, p *sim.Proc, msg sim.Msg[ackMsg]) string {
		r, _, _ := m.relayOf(p)
		if msg.Body.Epoch != r.Epoch || r.Phase == relayStopped {
			return "stale ack"
		}
		r.Recv = msg.Body.Vclock
		r.LastAck = w.Now()
		return "recv_vclock = " + msg.Body.Vclock.format(m.n())
	}),
	sim.On("exits: the replica closed the socket", func(m *Model, w *sim.World, p *sim.Proc, msg sim.Msg[closeMsg]) string {
		r, a, b := m.relayOf(p)
		if msg.Body.Epoch != r.Epoch || r.Phase == relayStopped {
			return "stale"
		}
		m.relayExit(w, a, b)
		return "replica closed the socket: relay exits"
	}),
	sim.OnTimer(tagRelStart, "finishes starting and asks tx to enable Raft", func(m *Model, w *sim.World, p *sim.Proc, t sim.Fired) string {
		r, a, b := m.relayOf(p)
		if t.ID != r.Start || r.Phase != relayStarting {
			return "stale timer"
		}
		r.Start = 0
		if m.cfg.raftless(b) {
			// relay_subscribe_f: no relay_send_is_raft_enabled for a
			// replica that takes no Raft; straight to the WAL watcher.
			return m.startStreaming(w, p, a, b)
		}
		// relay_subscribe_f: cbus_pair done, ask tx to enable Raft.
		r.Phase = relayEnabling
		w.Send(p.ID, m.tx[a], enableMsg{Epoch: r.Epoch, Value: true})
		return "relay_send_is_raft_enabled(true)"
	}),
	sim.OnTimer(tagRelTick, "sends a heartbeat or times out", func(m *Model, w *sim.World, p *sim.Proc, t sim.Fired) string {
		r, a, b := m.relayOf(p)
		if t.ID != r.Tick || r.Phase == relayStopped {
			return "stale timer"
		}
		if w.Now()-r.LastAck > m.cfg.deathTimeout() {
			m.relayExit(w, a, b)
			return "no ack for " + m.cfg.deathTimeout().String() + ": relay exits"
		}
		w.Send(p.ID, m.applierProc(b, a), heartbeat{Epoch: r.Epoch})
		r.Tick = w.SetTimer(p.ID, m.cfg.ReplicationTimeout, tagRelTick)
		return "send heartbeat"
	}),
	sim.OnCrash("is gone with its thread", func(m *Model, w *sim.World, p *sim.Proc) {
		r, _, _ := m.relayOf(p)
		*r = relay{}
	}),
}

// startStreaming is the rest of relay_subscribe_f: the gc trigger and the
// WAL watcher, the reader fiber and a first heartbeat.
func (m *Model) startStreaming(w *sim.World, p *sim.Proc, a, b int) string {
	r := m.relay(a, b)
	r.Phase = relayStreaming
	r.LastAck = w.Now()
	w.Send(p.ID, m.applierProc(b, a), heartbeat{Epoch: r.Epoch})
	r.Tick = w.SetTimer(p.ID, m.cfg.ReplicationTimeout, tagRelTick)
	n := m.recoverRemainingWALs(w, a, b)
	return "WAL watcher on, " + itoa(n) + " row(s) sent"
}

// raftMsgPush mirrors relay_raft_msg_push in the relay thread: send the
// row, then restart the recovery on a leader message so that the rows the
// replica ignored so far are sent again after it.
func (m *Model) raftMsgPush(w *sim.World, a, b int, msg raftPushMsg) string {
	r := m.relay(a, b)
	p := m.relayProc(a, b)
	did := ""
	if r.Phase == relayStopped {
		did = "relay gone: not sent"
	} else {
		w.Send(p, m.applierProc(b, a), raftRow{Epoch: r.Epoch, Req: msg.Req})
		did = "send raft " + msg.Req.String()
		if msg.Req.State == Leader && msg.Restart {
			did += "; relay_restart_recovery from " + r.Recv.format(m.n())
			r.Cursor = r.Recv
			if r.Phase == relayStreaming {
				did += ", " + itoa(m.recoverRemainingWALs(w, a, b)) + " row(s) sent"
			}
		}
	}
	if msg.Slot >= 0 {
		w.Send(p, m.tx[a], raftReturnMsg{Slot: msg.Slot})
	} else {
		r.InFlight--
	}
	return did
}

// recoverRemainingWALs sends every row of a's WAL past the cursor, except
// the replica's own rows.
func (m *Model) recoverRemainingWALs(w *sim.World, a, b int) int {
	r := m.relay(a, b)
	p := m.relayProc(a, b)
	n := 0
	for _, row := range m.Inst[a].WAL {
		if int(row.Origin) == id(b) || row.LSN <= r.Cursor[row.Origin] {
			continue
		}
		r.Cursor[row.Origin] = row.LSN
		if row.LSN <= r.Subscribed[row.Origin] {
			r.Resent++
			if m.resend == "" {
				m.resend = name(a) + "'s relay sent " + name(b) + " row " + itoa(int(row.Origin)) + ":" + itoa(int(row.LSN)) +
					" again: " + name(b) + " subscribed at " + r.Subscribed.format(m.n()) + " and the recovery restarted from " + r.Recv.format(m.n())
			}
		}
		w.Send(p, m.applierProc(b, a), dataRow{Epoch: r.Epoch, Row: row})
		n++
	}
	return n
}

// relayExit ends the relay thread: relay_send_is_raft_enabled(false) and
// cord_cojoin returning in tx.
func (m *Model) relayExit(w *sim.World, a, b int) {
	r := m.relay(a, b)
	r.Phase = relayStopped
	m.cancel(w, &r.Tick)
	m.cancel(w, &r.Start)
	w.Send(m.relayProc(a, b), m.tx[a], relayExitMsg{Epoch: r.Epoch})
}

func (m *Model) cancel(w *sim.World, t *int64) {
	if *t != 0 {
		w.CancelTimer(*t)
		*t = 0
	}
}
