package tarantool

import (
	"strconv"

	"github.com/racetrack-sim/racetrack/core/sim"
)

// raftReq is struct raft_request: the persisted term and vote, the current
// state, and the vclock when the sender is a candidate.
type raftReq struct {
	Term, Vote int
	State      RaftState
	HasVclock  bool
	Vclock     Vclock
	N          int // instances, for printing the vclock
}

func (r raftReq) String() string {
	s := "{term " + strconv.Itoa(r.Term)
	if r.Vote != 0 {
		s += ", vote i" + strconv.Itoa(r.Vote)
	}
	s += ", " + r.State.String()
	if r.HasVclock {
		s += ", vclock " + r.Vclock.format(r.N)
	}
	return s + "}"
}

func (r raftReq) hashInto(h *sim.Hasher) {
	h.Int(r.Term)
	h.Int(r.Vote)
	h.Int(int(r.State))
	h.Bool(r.HasVclock)
	if r.HasVclock {
		r.Vclock.hashInto(h)
	}
}

// Network messages (on the socket between a master and its replica's
// applier) and cbus messages (between the tx and relay threads of one
// instance). Every payload is an immutable value.

// subscribeMsg is IPROTO_SUBSCRIBE from an applier, with its vclock.
type subscribeMsg struct {
	Epoch  int
	Vclock Vclock
	N      int
}

func (m subscribeMsg) Label() string { return "SUBSCRIBE vclock " + m.Vclock.format(m.N) }
func (m subscribeMsg) HashInto(h *sim.Hasher) {
	h.Int(1)
	h.Int(m.Epoch)
	m.Vclock.hashInto(h)
}

// subscribeReply is the SUBSCRIBE response, or the "duplicate connection"
// error while the previous relay for this replica still runs.
type subscribeReply struct {
	Epoch int
	OK    bool
}

func (m subscribeReply) Label() string {
	if m.OK {
		return "subscribe response"
	}
	return "error: duplicate connection"
}
func (m subscribeReply) HashInto(h *sim.Hasher) { h.Int(2); h.Int(m.Epoch); h.Bool(m.OK) }

// raftRow is a Raft row on the socket: the subscribe-time state written by
// box_process_subscribe, or a broadcast sent by relay_raft_msg_push.
type raftRow struct {
	Epoch     int
	Req       raftReq
	Subscribe bool
}

func (m raftRow) Label() string {
	if m.Subscribe {
		return "raft " + m.Req.String() + " (subscribe-time)"
	}
	return "raft " + m.Req.String()
}
func (m raftRow) HashInto(h *sim.Hasher) {
	h.Int(3)
	h.Int(m.Epoch)
	m.Req.hashInto(h)
	h.Bool(m.Subscribe)
}

// dataRow is one WAL row streamed by a relay.
type dataRow struct {
	Epoch int
	Row   row
}

func (m dataRow) Label() string {
	return "row i" + strconv.Itoa(int(m.Row.Origin)) + ":" + strconv.Itoa(int(m.Row.LSN))
}
func (m dataRow) HashInto(h *sim.Hasher) {
	h.Int(4)
	h.Int(m.Epoch)
	h.Int(int(m.Row.Origin))
	h.Int(int(m.Row.LSN))
}

// heartbeat is the relay's heartbeat row (relay_send_heartbeat).
type heartbeat struct{ Epoch int }

func (heartbeat) Label() string            { return "heartbeat" }
func (m heartbeat) HashInto(h *sim.Hasher) { h.Int(5); h.Int(m.Epoch) }

// ackMsg is the applier writer's ack: the replica's vclock.
type ackMsg struct {
	Epoch  int
	Vclock Vclock
	N      int
}

func (m ackMsg) Label() string { return "ack vclock " + m.Vclock.format(m.N) }
func (m ackMsg) HashInto(h *sim.Hasher) {
	h.Int(6)
	h.Int(m.Epoch)
	m.Vclock.hashInto(h)
}

// closeMsg is the applier closing its socket after a read timeout.
type closeMsg struct{ Epoch int }

func (closeMsg) Label() string            { return "close connection" }
func (m closeMsg) HashInto(h *sim.Hasher) { h.Int(7); h.Int(m.Epoch) }

// relayStartMsg is relay_subscribe starting the relay thread
// (cord_costart) with the recovery positioned at the replica's vclock.
type relayStartMsg struct {
	Epoch int
	From  Vclock
}

func (relayStartMsg) Label() string { return "relay_subscribe: cord_costart(relay thread)" }
func (m relayStartMsg) HashInto(h *sim.Hasher) {
	h.Int(8)
	h.Int(m.Epoch)
	m.From.hashInto(h)
}

// enableMsg is relay_is_raft_enabled_msg, first hop (relay -> tx).
type enableMsg struct {
	Epoch int
	Value bool
}

func (m enableMsg) Label() string {
	return "relay_send_is_raft_enabled(" + strconv.FormatBool(m.Value) + ")"
}
func (m enableMsg) HashInto(h *sim.Hasher) { h.Int(9); h.Int(m.Epoch); h.Bool(m.Value) }

// enabledMsg is its second hop back (tx -> relay), relay_set_is_raft_enabled.
type enabledMsg struct{ Epoch int }

func (enabledMsg) Label() string            { return "relay_set_is_raft_enabled: is_finished" }
func (m enabledMsg) HashInto(h *sim.Hasher) { h.Int(10); h.Int(m.Epoch) }

// raftPushMsg is struct relay_raft_msg on the relay pipe.
type raftPushMsg struct {
	Req     raftReq
	Restart bool // do_restart_recovery
	Slot    int  // Pending: which of raft_msgs[2]; -1 otherwise
}

func (m raftPushMsg) Label() string {
	s := "relay_push_raft " + m.Req.String()
	if m.Slot >= 0 {
		s += " [msg " + strconv.Itoa(m.Slot) + "]"
	}
	if m.Req.State == Leader && !m.Restart {
		s += " (no recovery restart)"
	}
	return s
}
func (m raftPushMsg) HashInto(h *sim.Hasher) {
	h.Int(11)
	m.Req.hashInto(h)
	h.Bool(m.Restart)
	h.Int(m.Slot)
}

// raftReturnMsg is the second hop of a Pending message back to tx.
type raftReturnMsg struct{ Slot int }

func (m raftReturnMsg) Label() string          { return "tx_raft_msg_return [msg " + strconv.Itoa(m.Slot) + "]" }
func (m raftReturnMsg) HashInto(h *sim.Hasher) { h.Int(12); h.Int(m.Slot) }

// relayExitMsg is the relay thread ending: relay_send_is_raft_enabled(false)
// and the return of cord_cojoin in relay_subscribe.
type relayExitMsg struct{ Epoch int }

func (relayExitMsg) Label() string            { return "relay exits: is_raft_enabled = false" }
func (m relayExitMsg) HashInto(h *sim.Hasher) { h.Int(13); h.Int(m.Epoch) }

// walEventMsg is the WAL watcher waking a relay after a write.
type walEventMsg struct{}

func (walEventMsg) Label() string          { return "wal event" }
func (walEventMsg) HashInto(h *sim.Hasher) { h.Int(14) }
