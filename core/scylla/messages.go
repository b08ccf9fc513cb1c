package scylla

import (
	"strconv"

	"github.com/racetrack-sim/racetrack/core/sim"
)

// Timer tags: the low 4 bits are the kind, the rest an argument.
const (
	tagClientNext = iota // the client issues its next write
	tagBroker            // view_update_backlog_broker wakes up (shard 0)
	tagViewDone          // a remote view update finishes; arg = bytes
	tagFlowDone          // a write's flow-control delay ends on this coordinator shard
	tagBits       = 4
)

func tagOf(kind int, arg int64) int { return kind | int(arg)<<tagBits }

func tagKind(tag int) int { return tag & (1<<tagBits - 1) }

func tagArg(tag int) int64 { return int64(tag >> tagBits) }

// writeInfo is what every message of a write carries.
type writeInfo struct {
	ID       int32
	Token    uint32
	Bytes    int64
	Coord    int // coordinator node
	CShard   int // coordinator shard: the handling shard on every replica
	Owner    int // first replica; the others follow on the ring
	Applying int // the key's owning shard: token mod shards
}

func (x writeInfo) hashInto(h *sim.Hasher) {
	h.Uint64(uint64(x.Token))
	h.Int64(x.Bytes)
	h.Int(x.Coord)
	h.Int(x.CShard)
	h.Int(x.Owner)
}

func (x writeInfo) name() string { return "w" + strconv.Itoa(int(x.ID)) }

// writeReq: client -> coordinator shard (a CQL INSERT).
type writeReq struct{ W writeInfo }

func (p writeReq) Label() string {
	return "INSERT " + p.W.name() + " (" + bytesText(p.W.Bytes) + ", token " + strconv.Itoa(int(p.W.Token)) + ")"
}
func (p writeReq) HashInto(h *sim.Hasher) { h.Int(1); p.W.hashInto(h) }

// mutation: coordinator shard -> replica. It arrives on the replica shard
// with the coordinator's shard id: messaging_service listens with
// load_balancing_algorithm::port and seastar's find_port_and_connect binds
// each shard's client to a port equal to its shard id modulo smp::count
// (same smp count on both nodes assumed, as here).
type mutation struct{ W writeInfo }

func (p mutation) Label() string {
	return "mutation " + p.W.name() + " (apply on s" + strconv.Itoa(p.W.Applying) + ")"
}
func (p mutation) HashInto(h *sim.Hasher) { h.Int(2); p.W.hashInto(h) }

// applyReq: the handling shard submits the apply to the owning shard
// (mutate_locally -> invoke_on(shard_of(m))). Local marks the
// coordinator's own apply_locally.
type applyReq struct {
	W     writeInfo
	Local bool
}

func (p applyReq) Label() string { return "apply " + p.W.name() + " on owning shard" }
func (p applyReq) HashInto(h *sim.Hasher) {
	h.Int(3)
	p.W.hashInto(h)
	h.Bool(p.Local)
}

// applied: the owning shard hands control back to the handling shard.
type applied struct {
	W     writeInfo
	OK    bool
	Local bool
}

func (p applied) Label() string {
	if !p.OK {
		return p.W.name() + " failed: Too many view updates started concurrently"
	}
	return p.W.name() + " applied"
}
func (p applied) HashInto(h *sim.Hasher) {
	h.Int(4)
	p.W.hashInto(h)
	h.Bool(p.OK)
	h.Bool(p.Local)
}

// mutationDone: replica -> coordinator shard (send_mutation_done or the
// failure response), carrying the replica's view-update backlog.
type mutationDone struct {
	ID      int32
	Replica int
	Backlog int64
	Rel     float64
	OK      bool
}

func (p mutationDone) Label() string {
	s := "done "
	if !p.OK {
		s = "failed "
	}
	return s + "w" + strconv.Itoa(int(p.ID)) + ", backlog " + relText(p.Rel)
}
func (p mutationDone) HashInto(h *sim.Hasher) {
	h.Int(5)
	h.Int(p.Replica)
	h.Int64(p.Backlog)
	h.Bool(p.OK)
}

// writeReply: coordinator -> client.
type writeReply struct {
	ID      int32
	Outcome uint8
	Delay   sim.Time
}

// Write outcomes.
const (
	outcomeOK uint8 = iota + 1
	outcomeRejected
	outcomeFailed
)

func (p writeReply) Label() string {
	w := "w" + strconv.Itoa(int(p.ID))
	switch p.Outcome {
	case outcomeRejected:
		return w + " rejected (admission control)"
	case outcomeFailed:
		return w + " failed"
	}
	if p.Delay > 0 {
		return w + " ok after " + msText(p.Delay) + " throttling"
	}
	return w + " ok"
}
func (p writeReply) HashInto(h *sim.Hasher) {
	h.Int(6)
	h.Int(int(p.Outcome))
	h.Int64(int64(p.Delay))
}

// gossipMsg: the VIEW_BACKLOG application state "current:max:ts" of node
// From on its way to node To.
type gossipMsg struct {
	From, To int
	Current  int64
	Rel      float64
	TS       sim.Time
}

func (p gossipMsg) Label() string {
	return "VIEW_BACKLOG " + nodeName(p.From) + " = " + relText(p.Rel) + " (ts " + secText(p.TS) + ") → " + nodeName(p.To)
}
func (p gossipMsg) HashInto(h *sim.Hasher) {
	h.Int(7)
	h.Int(p.From)
	h.Int(p.To)
	h.Int64(p.Current)
	h.Int64(int64(p.TS))
}

// relText prints a relative backlog with two decimals, or four when it is
// too small for two to show.
func relText(r float64) string {
	if r > 0 && r < 0.01 {
		return strconv.FormatFloat(r, 'f', 4, 64)
	}
	return strconv.FormatFloat(r, 'f', 2, 64)
}

func secText(t sim.Time) string { return strconv.FormatFloat(t.Seconds(), 'f', 3, 64) + "s" }

// msText prints a delay in ms, or in µs below a millisecond.
func msText(t sim.Time) string {
	if t < 0 {
		return "−" + msText(-t)
	}
	if t < sim.Millisecond {
		return strconv.FormatInt(int64(t/sim.Microsecond), 10) + " µs"
	}
	return strconv.FormatFloat(t.Millis(), 'f', 1, 64) + " ms"
}

func bytesText(b int64) string { return strconv.FormatInt(b, 10) + " B" }
