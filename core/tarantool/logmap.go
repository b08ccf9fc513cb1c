package tarantool

import (
	"strings"

	"github.com/racetrack-sim/racetrack/core/sim"
)

// InstanceLog is the name of the mapping of a cluster's logged
// executions.
const InstanceLog = "instances"

// instanceLog says how a logged execution of the cluster maps to the
// model, one rule per row of the thread tables (world.go, relay.go,
// applier.go, nemesis.go): each lane is a thread of an instance ("i1
// tx", "i1 relay→i2", "i2 applier←i1", the nemesis; a ShiViz log writes
// their spaces as "_"); a receive is logged as the message it carries,
// first ("SUBSCRIBE vclock {0 0 0}: ..."), which the model's delivery
// of that message must match; a thread's own step is logged by what it
// did ("raft worker: ...", "send heartbeat"), which the model's timer of
// that row must match. Every model step is one a rule describes, so the
// log must show each: the run exported from the model is such a log.
var instanceLog = sim.LogMap[*Model]{
	Name: InstanceLog,
	Help: "a log of the instances' tx, relay and applier threads and the nemesis, events named as the model's steps " +
		"(receives by the message first); timed: validate with the seed that draws the latencies",
	Lane: (*Model).lane,
	Events: []sim.LogRule[*Model]{
		receives[subscribeMsg]("SUBSCRIBE", "tx runs box_process_subscribe"),
		receives[subscribeReply]("subscribe response", "the applier follows"),
		receives[subscribeReply]("error: duplicate connection", "the applier retries later"),
		receives[raftRow]("raft {", "the applier runs raft_process_msg"),
		receives[dataRow]("row i", "the applier applies or skips a row"),
		receives[heartbeat]("heartbeat", "the applier takes a heartbeat"),
		receives[ackMsg]("ack vclock", "the relay takes the replica's ack"),
		receives[closeMsg]("close connection", "the relay exits"),
		receives[relayStartMsg]("relay_subscribe: cord_costart", "the relay thread starts"),
		// tx's receipt of the enable message and the relay's timer that
		// sends it are logged alike; their lanes tell them apart.
		{Label: "relay_send_is_raft_enabled(", Says: "tx runs tx_set_is_raft_enabled, or the relay asks it to",
			Step: &sim.ModelStep[*Model]{When: func(m *Model, w *sim.World, ev *sim.Event) bool {
				return delivers[enableMsg](ev) || isTimer(tagRelStart)(m, w, ev)
			}}},
		receives[enabledMsg]("relay_set_is_raft_enabled", "the relay has Raft enabled"),
		receives[raftPushMsg]("relay_push_raft", "the relay sends a Raft message"),
		receives[raftReturnMsg]("tx_raft_msg_return", "tx takes a Raft message back"),
		receives[relayExitMsg]("relay exits", "tx learns that a relay exited"),
		receives[walEventMsg]("wal event", "the relay sends the WAL's new rows"),
		fires("raft worker", "the Raft worker runs", tagWorker),
		fires("raft_write done", "a raft_write finishes", tagWAL),
		fires("wait leader found", "raft->timer times out: no leader was found", tagElection),
		fires("wait leader dead", "raft->timer times out: the leader is dead", tagElection),
		fires("wait election end", "raft->timer times out: the election ended undecided", tagElection),
		fires("write row", "the client writes a row", tagWrite),
		fires("read-only", "the client finds the instance read-only", tagWrite),
		fires("WAL watcher on", "the relay of a replica without Raft starts streaming", tagRelStart),
		fires("send heartbeat", "the relay sends a heartbeat", tagRelTick),
		fires("no ack for", "the relay times out", tagRelTick),
		fires("connect, SUBSCRIBE", "the applier connects and subscribes", tagConnect, tagApplTick),
		fires("already connected", "the applier's connect timer finds it connected", tagConnect),
		fires("ack", "the applier acks", tagApplTick),
		fires("timed out: disconnect", "the applier times out", tagApplTick),
		fires("connect timed out", "the applier's subscribe times out", tagApplTick),
		fires("waiting for the subscribe response", "the applier waits", tagApplTick),
		fires("reconnect later", "the applier waits to reconnect", tagApplTick),
		fires("stale timer", "a timer the thread no longer waits for fires", tagWorker, tagWAL, tagElection, tagWrite,
			tagConnect, tagApplTick, tagRelStart, tagRelTick),
		// The nemesis logs the fault it injected, in its own words.
		{Says: "the nemesis injects a fault", Step: &sim.ModelStep[*Model]{When: isTimer(tagNemesis)}},
	},
}

// receives is the rule for a receive logged as label: the model
// delivers a message of type T. Rules match by label alone: a ShiViz log
// shows a receive that brings no news to its lane's clock (a second
// message of one step) as a local event.
func receives[T any](label, says string) sim.LogRule[*Model] {
	return sim.LogRule[*Model]{Label: label, Says: says, Step: &sim.ModelStep[*Model]{
		When: func(_ *Model, _ *sim.World, ev *sim.Event) bool { return delivers[T](ev) }}}
}

func delivers[T any](ev *sim.Event) bool {
	_, ok := ev.Payload.(T)
	return ev.Kind == sim.EvDeliver && ok
}

// fires is the rule for a thread's own step logged as label: the model
// fires one of the timers tags (the tags are distinct over the tables).
func fires(label, says string, tags ...int) sim.LogRule[*Model] {
	return sim.LogRule[*Model]{Label: label, Says: says, Step: &sim.ModelStep[*Model]{When: isTimer(tags...)}}
}

func isTimer(tags ...int) func(*Model, *sim.World, *sim.Event) bool {
	return func(_ *Model, _ *sim.World, ev *sim.Event) bool {
		if ev.Kind != sim.EvTimer {
			return false
		}
		for _, t := range tags {
			if ev.Timer == t {
				return true
			}
		}
		return false
	}
}

// lane is the thread a logged lane names, with its spaces or with them
// written as "_" (a ShiViz log's hosts have none).
func (m *Model) lane(w *sim.World, _, name string) (sim.ProcID, bool) {
	for _, p := range w.Procs() {
		if p.Name == name || strings.ReplaceAll(p.Name, " ", "_") == name {
			return p.ID, true
		}
	}
	return sim.None, false
}
