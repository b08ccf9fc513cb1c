package scylla

import "github.com/racetrack-sim/racetrack/core/sim"

// ClusterLog is the name of the mapping of a cluster's logged
// executions.
const ClusterLog = "cluster"

// clusterLog says how a logged execution of the cluster maps to the
// model, one rule per case of a shard's, the client's and the gossip
// mesh's steps (write.go, gossip.go): each lane is a shard ("n1/s0"),
// the client or the gossip mesh; a receive is logged by what the shard
// did with the message ("coordinate w1 → n2", "w1: n2's backlog := 0.62
// (response)"), which the model's delivery of that message type must
// match; a timer step by what it did ("broker: gossip backlog 0.00
// (changed)", "remote view update done: ..."), which the model's timer
// of that kind must match. Every model step is one a rule describes, so
// the log must show each: the run exported from the model is such a
// log. Whether a broker tick gossips shows in the log as the gossip
// message and its receipt, which the model must then also send.
var clusterLog = sim.LogMap[*Model]{
	Name: ClusterLog,
	Help: "a log of the cluster's shards, the client and the gossip mesh, events named as the model's steps; " +
		"timed: validate with the seed that draws the ring, the latencies and the clock offsets",
	Lane: (*Model).lane,
	Events: []sim.LogRule[*Model]{
		rule("gossip of", "the gossip mesh carries a node's backlog", delivers[gossipMsg]),
		rule("client: ", "the client gets its answer", delivers[writeReply]),
		rule("client sends", "the client sends its next write", fires(tagClientNext)),
		rule("coordinate ", "a shard coordinates a write", delivers[writeReq]),
		rule("reject ", "a shard rejects a write (admission control)", delivers[writeReq]),
		rule("handle ", "a replica's shard submits a write to its owning shard", delivers[mutation]),
		rule("apply ", "a shard applies a write", delivers[mutation], delivers[applyReq]),
		rule("answer ", "the handling shard answers a write", delivers[applied]),
		// "w1: n2's backlog := ...", "w1 applied locally; ...", "w1:
		// flow-control delay over".
		rule("w", "a shard takes a write's response or its local apply, or its flow-control delay ends",
			delivers[mutationDone], delivers[applied], fires(tagFlowDone)),
		rule("broker: ", "a node's backlog broker ticks", fires(tagBroker)),
		rule("remote view update done", "a remote view update finishes", fires(tagViewDone)),
		rule("ignore gossip", "a coordinator keeps a newer backlog than the gossiped one", delivers[gossipMsg]),
		// "n2's backlog := 0.00 (gossip)".
		rule("n", "a coordinator stores a gossiped backlog", delivers[gossipMsg]),
	},
}

// rule is the rule for an event logged as label: the model step is one
// that one of is says it is. Rules match by label alone: a ShiViz log
// shows a receive that brings no news to its lane's clock as a local
// event.
func rule(label, says string, is ...func(*sim.Event) bool) sim.LogRule[*Model] {
	return sim.LogRule[*Model]{Label: label, Says: says, Step: &sim.ModelStep[*Model]{
		When: func(_ *Model, _ *sim.World, ev *sim.Event) bool {
			for _, f := range is {
				if f(ev) {
					return true
				}
			}
			return false
		}}}
}

// delivers is a delivery of a message of type T.
func delivers[T any](ev *sim.Event) bool {
	_, ok := ev.Payload.(T)
	return ev.Kind == sim.EvDeliver && ok
}

// fires says a step fires a timer of kind (its tag's low bits).
func fires(kind int) func(*sim.Event) bool {
	return func(ev *sim.Event) bool { return ev.Kind == sim.EvTimer && tagKind(ev.Timer) == kind }
}

// lane is the process a logged lane names: a shard ("n1/s0"), the
// client or the gossip mesh.
func (m *Model) lane(w *sim.World, _, name string) (sim.ProcID, bool) {
	for _, p := range w.Procs() {
		if p.Name == name {
			return p.ID, true
		}
	}
	return sim.None, false
}
