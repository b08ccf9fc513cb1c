// Package broker models a replication data-loss race in a log-replicated
// message broker (Kafka before KIP-101): a follower restarts, truncates its
// log to its high watermark — which lags the leader's by one fetch — and
// is then elected leader, so a write the old leader acknowledged is gone.
// The fixed variant asks the leader for the end offset of its last leader
// epoch instead (KIP-101's leader epoch) and keeps what the leader has.
//
// It is the message-passing model of docs/writing-a-model.md: every
// process is an actor whose handlers are declared once per message type
// in a sim.Actor table (replica.go, cluster.go). Next to them, logmap.go
// declares how a logged execution of the partition maps to those rows
// (sim.LogMap "broker"), so that a log validates against either variant.
// Like every model in core it performs no I/O and reads no clock.
package broker

import (
	"slices"

	"github.com/racetrack-sim/racetrack/core/sim"
)

// Config is fixed by New.
type Config struct {
	// LeaderEpoch selects the fixed variant: a restarted follower asks
	// the leader where its last epoch ends instead of truncating to its
	// high watermark.
	LeaderEpoch bool
	// Records is how many records the producer writes, one at a time.
	Records int
	// Losses is how many replication messages (fetch requests and
	// responses) the network may lose in a run: each such send is then a
	// two-way choice, which bfs enumerates.
	Losses int
}

// entry is one record of a replica's log: its value and the leader epoch
// it was appended in.
type entry struct{ Value, Epoch int }

// replica is one broker's copy of the partition. Log and HW are on disk
// (HW is the high-watermark checkpoint a restart reads); the rest is
// volatile and lost in a crash.
type replica struct {
	Log []entry
	HW  int
	// Leader is true on the partition's leader.
	Leader bool
	// Epoch is the leader epoch this broker knows.
	Epoch int

	// Leader side: the follower's log end offset as its last fetch told
	// it, a fetch parked until there is something new to answer (and the
	// high watermark that fetch knew), and the offsets of records it
	// appended for the producer and has not acknowledged yet.
	FollowerLEO int
	Parked      bool
	ParkedHW    int
	Owed        []int
	// Follower side, in the fixed variant: it waits for the leader's
	// epoch end offset before fetching.
	Recovering bool
}

// ack is a record the producer was told is committed.
type ack struct{ Offset, Value int }

// Broker is the model's state.
type Broker struct {
	cfg Config

	R [2]replica
	// Leader is the replica the controller elected last.
	Leader int
	// Produced counts records sent by the producer; Acked lists those
	// acknowledged to it.
	Produced int
	Acked    []ack
	// Lost counts messages the network lost.
	Lost int
	// Phase is how far the controller's fault script has got.
	Phase int
	// RestartedBehind is set when a follower restarted holding an
	// acknowledged record above its high watermark: the situation the
	// bug needs.
	RestartedBehind bool

	actors   sim.Actors[*Broker]
	replicas [2]sim.ProcID
	producer sim.ProcID
	nodeOf   [2]sim.NodeID
}

// New builds the model.
func New(cfg Config) *Broker { return &Broker{cfg: cfg} }

// Init creates a node per broker, one for the producer and one for the
// controller, and starts every actor. Steps and messages take no time:
// only the scheduler orders them, as the exhaustive checker needs.
func (b *Broker) Init(w *sim.World) {
	w.SetUntimed(true)
	for i := range b.replicas {
		b.nodeOf[i] = w.AddNode(replicaName(i))
		b.replicas[i] = b.actors.Add(w, b.nodeOf[i], -1, replicaName(i), replicaTable)
	}
	b.producer = b.actors.Add(w, w.AddNode("client"), -1, "producer", producerTable)
	b.actors.Add(w, w.AddNode("controller"), -1, "controller", controllerTable)
	b.R[0].Leader = true
	b.actors.Start(b, w)
}

func replicaName(i int) string { return []string{"b0", "b1"}[i] }

// Handle runs the row of p's table for ev.
func (b *Broker) Handle(w *sim.World, p *sim.Proc, ev *sim.Event) sim.Action {
	return b.actors.Handle(b, w, p, ev)
}

// Describe says what a pending event would do.
func (b *Broker) Describe(w *sim.World, ev *sim.Event) string { return b.actors.Describe(b, w, ev) }

// Restart is the kernel's hook after w.Restart.
func (b *Broker) Restart(w *sim.World, n sim.NodeID) { b.actors.Restart(b, w, n) }

// Properties binds the properties for one world.
func (b *Broker) Properties() []sim.Property { return properties.Of(b) }

// index is the replica index of process p.
func (b *Broker) index(p sim.ProcID) int {
	if p == b.replicas[1] {
		return 1
	}
	return 0
}

// Clone copies the state.
func (b *Broker) Clone() sim.Model {
	c := *b
	for i := range c.R {
		c.R[i].Log = slices.Clone(b.R[i].Log)
		c.R[i].Owed = slices.Clone(b.R[i].Owed)
	}
	c.Acked = slices.Clone(b.Acked)
	return &c
}

// Hash folds everything that decides what happens next.
func (b *Broker) Hash(h *sim.Hasher) {
	for i := range b.R {
		r := &b.R[i]
		h.Int(len(r.Log))
		for _, e := range r.Log {
			h.Int(e.Value)
			h.Int(e.Epoch)
		}
		h.Int(r.HW)
		h.Bool(r.Leader)
		h.Int(r.Epoch)
		h.Int(r.FollowerLEO)
		h.Bool(r.Parked)
		h.Int(r.ParkedHW)
		h.Int(len(r.Owed))
		for _, o := range r.Owed {
			h.Int(o)
		}
		h.Bool(r.Recovering)
	}
	h.Int(b.Leader)
	h.Int(b.Produced)
	h.Int(len(b.Acked))
	for _, a := range b.Acked {
		h.Int(a.Offset)
		h.Int(a.Value)
	}
	h.Int(b.Lost)
	h.Int(b.Phase)
	h.Bool(b.RestartedBehind)
}
