package broker

import "github.com/racetrack-sim/racetrack/core/sim"

// BrokerLog is the name of the mapping of a broker's logged executions.
const BrokerLog = "broker"

// brokerLog says how a logged execution of the partition maps to the
// model, one rule per row of the step tables (replica.go, cluster.go):
// lanes b0, b1, producer and controller are the model's processes; a
// receive is logged as the Kafka API it carries, first ("FetchResponse:
// ..."), which the model's delivery of that message must match; a
// broker's, the producer's and the controller's own steps are logged by
// what they did ("fetches from the leader", "b1 crashes and restarts"),
// which the model's timer of that row must match. Every model step is
// one a rule describes, so the log must show each; the run exported from
// the model (ShiViz, JSON) is such a log.
var brokerLog = sim.LogMap[*Broker]{
	Name: BrokerLog,
	Help: "a log of the partition's brokers b0 and b1, the producer and the controller, events named by Kafka API " +
		"(receives) or by what the process did (the model's step labels); validate with the variant and preset it claims",
	Lane: (*Broker).lane,
	Events: []sim.LogRule[*Broker]{
		receives[produceAck]("ProduceAck", "the producer takes the acknowledgement of a record"),
		receives[produce]("Produce", "the leader appends a produced record"),
		receives[fetchResp]("FetchResponse", "the follower appends what the leader sent"),
		receives[fetch]("Fetch", "the leader answers or parks a fetch"),
		receives[epochReq]("OffsetsForLeaderEpoch", "the leader says where an epoch ends (KIP-101)"),
		receives[epochResp]("EpochEndOffset", "the restarted follower truncates to the leader's epoch end (KIP-101)"),
		fires("fetches from the leader", replicaTimer, tagFetch, "a follower's fetch timer sends a fetch"),
		fires("no longer fetching", replicaTimer, tagFetch, "a follower's fetch timer finds it leads or recovers"),
		fires("asks where epoch", replicaTimer, tagAskEpoch, "a restarted follower asks where its last epoch ends (KIP-101)"),
		fires("no longer recovering", replicaTimer, tagAskEpoch, "a follower's epoch timer finds it recovered"),
		fires("writes record", producerTimer, tagWrite, "the producer writes its next record"),
		fires("done", producerTimer, tagWrite, "the producer has written every record"),
		fires("b1 crashes and restarts", controllerTimer, tagFault, "the controller restarts the follower b1"),
		fires("b0 ", controllerTimer, tagFault, "the controller fails the leader b0 and elects b1"),
	},
}

// receives is the rule for a receive logged as api: the model delivers a
// message of type T.
func receives[T any](api, says string) sim.LogRule[*Broker] {
	return sim.LogRule[*Broker]{Label: api + ":", Says: says, Step: &sim.ModelStep[*Broker]{
		When: func(_ *Broker, _ *sim.World, ev *sim.Event) bool {
			_, ok := ev.Payload.(T)
			return ev.Kind == sim.EvDeliver && ok
		}}}
}

// fires is the rule for a step logged as label: the model fires timer
// tag of the lane's process, which plays role (timer tags are per
// table).
func fires(label string, role func(b *Broker, p sim.ProcID) bool, tag int, says string) sim.LogRule[*Broker] {
	return sim.LogRule[*Broker]{Label: label, Says: says, Step: &sim.ModelStep[*Broker]{
		When: func(b *Broker, _ *sim.World, ev *sim.Event) bool {
			return ev.Kind == sim.EvTimer && ev.Timer == tag && role(b, ev.Proc)
		}}}
}

// The roles whose timers the log names.
func replicaTimer(b *Broker, p sim.ProcID) bool    { return p == b.replicas[0] || p == b.replicas[1] }
func producerTimer(b *Broker, p sim.ProcID) bool   { return p == b.producer }
func controllerTimer(b *Broker, p sim.ProcID) bool { return p != b.producer && !replicaTimer(b, p) }

// lane is the process a logged lane names: b0, b1, producer, controller
// (the node a log gives is not checked: a ShiViz log has none).
func (b *Broker) lane(w *sim.World, _, name string) (sim.ProcID, bool) {
	for _, p := range w.Procs() {
		if p.Name == name {
			return p.ID, true
		}
	}
	return sim.None, false
}
