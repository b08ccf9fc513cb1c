package broker

import (
	"strconv"

	"github.com/racetrack-sim/racetrack/core/sim"
)

// Names of the properties.
const (
	AckedKept       = "acked-writes-kept"
	RestartedBehind = "restarted-behind"
)

var properties = sim.Props[*Broker]{
	sim.Always(AckedKept, "a record acknowledged to the producer is in the leader's log, at its offset, for good",
		func(_ *sim.World, b *Broker) bool { return b.lostAck() == nil },
		func(_ *sim.World, b *Broker) string {
			a, l := b.lostAck(), b.R[b.Leader]
			return "record " + strconv.Itoa(a.Value) + " was acknowledged at offset " + strconv.Itoa(a.Offset) +
				", but the leader " + replicaName(b.Leader) + "'s log ends at " + strconv.Itoa(len(l.Log))
		}),
	sim.Sometimes(RestartedBehind, "the follower restarts holding an acknowledged record above its high watermark: the situation the loss needs",
		func(_ *sim.World, b *Broker) bool { return b.RestartedBehind },
		func(_ *sim.World, b *Broker) string {
			return "b1 restarted with an acknowledged record above its high watermark"
		}),
}

// lostAck is the first acknowledged record the leader's log does not hold
// at its offset, or nil.
func (b *Broker) lostAck() *ack {
	log := b.R[b.Leader].Log
	for i := range b.Acked {
		if a := &b.Acked[i]; a.Offset >= len(log) || log[a.Offset].Value != a.Value {
			return a
		}
	}
	return nil
}
