package broker

import (
	"slices"
	"strconv"

	"github.com/racetrack-sim/racetrack/core/sim"
)

// Messages between the brokers. Payloads are immutable values.
type (
	// fetch asks the leader for the records from Offset (the follower's
	// log end offset); KnownHW is the high watermark the follower has.
	fetch struct{ Offset, KnownHW int }
	// fetchResp carries the records from Offset and the leader's high
	// watermark.
	fetchResp struct {
		Offset  int
		Entries []entry
		HW      int
	}
	// epochReq asks the leader where leader epoch Epoch ends
	// (OffsetsForLeaderEpoch, the fixed variant).
	epochReq struct{ Epoch int }
	// epochResp is the end offset of the asked epoch on the leader.
	epochResp struct{ EndOffset int }
)

func (fetch) Label() string     { return "Fetch" }
func (fetchResp) Label() string { return "FetchResponse" }
func (epochReq) Label() string  { return "OffsetsForLeaderEpoch" }
func (epochResp) Label() string { return "EpochEndOffset" }

// Timer tags of a broker. tagFetch starts a follower's fetch loop: at
// start, after a restart, and as its fetch timeout when the network lost
// its fetch or the response to it. tagAskEpoch sends a restarted
// follower's OffsetsForLeaderEpoch (the fixed variant). The restart hook
// sets them rather than sending itself: it runs inside the controller's
// step, and a message sent there would be drawn from that step.
const (
	tagFetch = iota + 1
	tagAskEpoch
)

// replicaTable is a broker: leader and follower of the one partition.
var replicaTable = sim.Handlers[*Broker]{
	sim.On("appends the record", func(b *Broker, w *sim.World, p *sim.Proc, m sim.Msg[produce]) string {
		r := &b.R[b.index(p.ID)]
		if !r.Leader {
			return "not the leader: ignored"
		}
		r.Owed = append(r.Owed, len(r.Log))
		r.Log = append(r.Log, entry{Value: m.Body.Value, Epoch: r.Epoch})
		b.advanceHW(w, p.ID)
		b.answerParked(w, p.ID)
		return "appended at offset " + strconv.Itoa(len(r.Log)-1)
	}),
	sim.On("answers the fetch", func(b *Broker, w *sim.World, p *sim.Proc, m sim.Msg[fetch]) string {
		r := &b.R[b.index(p.ID)]
		if !r.Leader {
			return "not the leader: ignored"
		}
		r.FollowerLEO = m.Body.Offset
		r.Parked, r.ParkedHW = true, m.Body.KnownHW
		did := b.advanceHW(w, p.ID)
		if !b.answerParked(w, p.ID) {
			did += "; nothing new: parked"
		}
		return did
	}),
	sim.On("appends the records and fetches again", func(b *Broker, w *sim.World, p *sim.Proc, m sim.Msg[fetchResp]) string {
		r := &b.R[b.index(p.ID)]
		if r.Leader || r.Recovering || m.Body.Offset != len(r.Log) {
			return "stale: ignored"
		}
		r.Log = append(r.Log, m.Body.Entries...)
		r.HW = min(m.Body.HW, len(r.Log))
		b.fetch(w, p.ID)
		return "log end " + strconv.Itoa(len(r.Log)) + ", high watermark " + strconv.Itoa(r.HW)
	}),
	sim.On("says where the epoch ends", func(b *Broker, w *sim.World, p *sim.Proc, m sim.Msg[epochReq]) string {
		r := &b.R[b.index(p.ID)]
		if !r.Leader {
			return "not the leader: ignored"
		}
		end := epochEnd(r.Log, m.Body.Epoch)
		w.Send(p.ID, m.From, epochResp{EndOffset: end})
		return "epoch " + strconv.Itoa(m.Body.Epoch) + " ends at " + strconv.Itoa(end)
	}),
	sim.On("truncates to the leader's epoch end and fetches", func(b *Broker, w *sim.World, p *sim.Proc, m sim.Msg[epochResp]) string {
		r := &b.R[b.index(p.ID)]
		if !r.Recovering {
			return "stale: ignored"
		}
		r.Recovering = false
		r.Log = r.Log[:min(m.Body.EndOffset, len(r.Log))]
		r.HW = min(r.HW, len(r.Log))
		b.fetch(w, p.ID)
		return "truncated to " + strconv.Itoa(len(r.Log))
	}),
	sim.OnTimer(tagFetch, "fetches from the leader", func(b *Broker, w *sim.World, p *sim.Proc, _ sim.Fired) string {
		if r := &b.R[b.index(p.ID)]; r.Leader || r.Recovering {
			return "no longer fetching"
		}
		b.fetch(w, p.ID)
		return ""
	}),
	sim.OnTimer(tagAskEpoch, "asks the leader where its last epoch ends", func(b *Broker, w *sim.World, p *sim.Proc, _ sim.Fired) string {
		r := &b.R[b.index(p.ID)]
		if !r.Recovering {
			return "no longer recovering"
		}
		epoch := r.Epoch
		if n := len(r.Log); n > 0 {
			epoch = r.Log[n-1].Epoch
		}
		w.Send(p.ID, b.replicas[b.Leader], epochReq{Epoch: epoch})
		return "asks where epoch " + strconv.Itoa(epoch) + " ends"
	}),
	sim.OnStart("follows the leader", func(b *Broker, w *sim.World, p *sim.Proc) {
		if !b.R[b.index(p.ID)].Leader {
			w.SetTimer(p.ID, 0, tagFetch)
		}
	}),
	sim.OnCrash("loses its leader and fetch state", func(b *Broker, w *sim.World, p *sim.Proc) {
		r := &b.R[b.index(p.ID)]
		*r = replica{Log: r.Log, HW: r.HW, Epoch: r.Epoch}
	}),
	sim.OnRestart("recovers its log and follows the leader", func(b *Broker, w *sim.World, p *sim.Proc) {
		b.recover(w, p.ID)
	}),
}

// recover is a follower's restart. Before KIP-101 it truncates its log to
// its high-watermark checkpoint, which lags the leader's by one fetch; the
// fix keeps the log and asks the leader where its last epoch ends.
func (b *Broker) recover(w *sim.World, p sim.ProcID) {
	r := &b.R[b.index(p)]
	for _, a := range b.Acked {
		b.RestartedBehind = b.RestartedBehind || (a.Offset >= r.HW && a.Offset < len(r.Log))
	}
	if !b.cfg.LeaderEpoch {
		r.Log = r.Log[:r.HW]
		w.SetTimer(p, 0, tagFetch)
		return
	}
	r.Recovering = true
	w.SetTimer(p, 0, tagAskEpoch)
}

// fetch sends the follower's next fetch to the leader, perhaps lost.
func (b *Broker) fetch(w *sim.World, p sim.ProcID) {
	r := &b.R[b.index(p)]
	b.send(w, p, b.replicas[b.Leader], p, fetch{Offset: len(r.Log), KnownHW: r.HW})
}

// send sends a replication message that the network may lose while the
// run's loss budget lasts; a loss times out the follower's fetch.
func (b *Broker) send(w *sim.World, from, to, follower sim.ProcID, payload any) {
	if _, lost := w.SendOrLose(from, to, payload, b.Lost < b.cfg.Losses); lost {
		b.Lost++
		w.SetTimer(follower, 0, tagFetch)
	}
}

// advanceHW moves the leader's high watermark to what both replicas have
// and acknowledges the records it commits.
func (b *Broker) advanceHW(w *sim.World, leader sim.ProcID) string {
	r := &b.R[b.index(leader)]
	hw := len(r.Log)
	if !w.Node(b.nodeOf[1-b.index(leader)]).Down {
		hw = min(hw, r.FollowerLEO)
	}
	if hw <= r.HW {
		return "high watermark stays " + strconv.Itoa(r.HW)
	}
	r.HW = hw
	for len(r.Owed) > 0 && r.Owed[0] < hw {
		o := r.Owed[0]
		r.Owed = r.Owed[1:]
		w.Send(leader, b.producer, produceAck{Offset: o, Value: r.Log[o].Value})
	}
	return "high watermark " + strconv.Itoa(hw)
}

// answerParked answers the parked fetch if there is something new for
// it; it reports whether it did.
func (b *Broker) answerParked(w *sim.World, leader sim.ProcID) bool {
	r := &b.R[b.index(leader)]
	if !r.Parked || (r.FollowerLEO >= len(r.Log) && r.HW <= r.ParkedHW) || r.FollowerLEO > len(r.Log) {
		return false
	}
	r.Parked = false
	follower := b.replicas[1-b.index(leader)]
	b.send(w, leader, follower, follower, fetchResp{Offset: r.FollowerLEO, Entries: slices.Clone(r.Log[r.FollowerLEO:]), HW: r.HW})
	return true
}

// epochEnd is the offset where epoch ends in log: the first offset of a
// later epoch, or the log's end.
func epochEnd(log []entry, epoch int) int {
	for i, e := range log {
		if e.Epoch > epoch {
			return i
		}
	}
	return len(log)
}
