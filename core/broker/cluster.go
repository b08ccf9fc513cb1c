package broker

import (
	"strconv"

	"github.com/racetrack-sim/racetrack/core/sim"
)

// Messages between the producer and the leader.
type (
	// produce writes one record (acks=all: acknowledged once every
	// replica in sync has it).
	produce struct{ Value int }
	// produceAck says the record at Offset is committed.
	produceAck struct{ Offset, Value int }
)

func (produce) Label() string    { return "Produce" }
func (produceAck) Label() string { return "ProduceAck" }

// tagWrite and tagFault are the producer's and the controller's timers.
const (
	tagWrite = 1
	tagFault = 2
)

// producerTable writes Records records, the next once the last is
// acknowledged, to the broker the controller made leader.
var producerTable = sim.Handlers[*Broker]{
	sim.OnStart("starts writing", func(b *Broker, w *sim.World, p *sim.Proc) {
		w.SetTimer(p.ID, 0, tagWrite)
	}),
	sim.OnTimer(tagWrite, "writes the next record", func(b *Broker, w *sim.World, p *sim.Proc, _ sim.Fired) string {
		return b.produceNext(w)
	}),
	sim.On("takes the acknowledgement", func(b *Broker, w *sim.World, p *sim.Proc, m sim.Msg[produceAck]) string {
		b.Acked = append(b.Acked, ack(m.Body))
		return "record " + strconv.Itoa(m.Body.Value) + " committed at offset " + strconv.Itoa(m.Body.Offset) + "; " + b.produceNext(w)
	}),
}

func (b *Broker) produceNext(w *sim.World) string {
	if b.Produced == b.cfg.Records {
		return "done"
	}
	b.Produced++
	w.Send(b.producer, b.replicas[b.Leader], produce{Value: b.Produced})
	return "writes record " + strconv.Itoa(b.Produced) + " to " + replicaName(b.Leader)
}

// controllerTable is the fault script: b1 (the follower) restarts, then
// b0 (the leader) fails and the controller elects b1, the only replica
// left in sync. Each is one step that the scheduler may place anywhere.
var controllerTable = sim.Handlers[*Broker]{
	sim.OnStart("starts the fault script", func(b *Broker, w *sim.World, p *sim.Proc) {
		w.SetTimer(p.ID, 0, tagFault)
	}),
	sim.OnTimer(tagFault, "injects the next fault", func(b *Broker, w *sim.World, p *sim.Proc, _ sim.Fired) string {
		b.Phase++
		if b.Phase == 1 {
			w.SetTimer(p.ID, 0, tagFault)
			did := b.actors.Crash(b, w, b.nodeOf[1])
			w.Restart(b.nodeOf[1])
			return "b1 crashes and restarts (" + did + ")"
		}
		did := b.actors.Crash(b, w, b.nodeOf[0])
		return did + "; " + b.elect(1)
	}),
}

// elect makes replica i the leader of a new epoch. It is alone in sync:
// its high watermark is its log end.
func (b *Broker) elect(i int) string {
	b.Leader = i
	r := &b.R[i]
	r.Leader, r.Recovering, r.Epoch, r.HW = true, false, b.R[i].Epoch+1, len(r.Log)
	return "the controller elects " + replicaName(i) + " (epoch " + strconv.Itoa(r.Epoch) + ", log end " + strconv.Itoa(len(r.Log)) + ")"
}
