package broker

import (
	"strconv"

	"github.com/racetrack-sim/racetrack/core/scenario"
	"github.com/racetrack-sim/racetrack/core/sim"
)

// Variant is a version of the follower's recovery.
type Variant string

// The variants.
const (
	VariantTruncate    Variant = "truncate-to-hw"
	VariantLeaderEpoch Variant = "leader-epoch"
)

// Params are the model's parameters; the tags are their schema.
type Params struct {
	Records int `default:"1" min:"1" max:"4" unit:"records" help:"records the producer writes, one at a time"`
	Losses  int `default:"0" min:"0" max:"3" unit:"messages" help:"replication messages the network may lose in a run"`
}

// Scenario is the catalog entry.
func Scenario() *scenario.Scenario {
	return scenario.Model[*Broker, Params, Variant]{
		ID:      "broker-hw-truncation",
		Title:   "Log replication loses an acknowledged write (Kafka KIP-101)",
		Summary: "A follower restarts, truncates its log to a high watermark one fetch behind the leader's, and is elected leader: a committed record is gone.",
		Story: "A producer writes with acks=all to the leader b0; the follower b1 fetches the record, and its next fetch tells " +
			"b0 it has it, so b0 commits and acknowledges. b1 learns the new high watermark only from the response to that " +
			"fetch. If b1 restarts before it arrives, it truncates its log to its old high watermark and drops the record; " +
			"if b0 then fails, the controller elects b1 and the acknowledged record is lost. KIP-101 replaces the " +
			"truncation: the restarted follower asks the leader where its last leader epoch ends and keeps what the leader has.",
		Links: []scenario.Link{
			{Title: "KIP-101: alter replication protocol to use leader epoch", URL: "https://cwiki.apache.org/confluence/display/KAFKA/KIP-101+-+Alter+Replication+Protocol+to+use+Leader+Epoch+rather+than+High+Watermark+for+Truncation"},
			{Title: "docs/writing-a-model.md (message-passing chapter)", URL: "https://github.com/racetrack-sim/racetrack/blob/main/docs/writing-a-model.md"},
		},
		Variants: []scenario.VariantOf[Variant]{
			{ID: VariantTruncate, Title: "truncate to the high watermark", Help: "a restarted follower truncates its log to its high-watermark checkpoint (Kafka before 0.11)"},
			{ID: VariantLeaderEpoch, Title: "leader epoch", Help: "a restarted follower truncates to where the leader says its last epoch ends (KIP-101)"},
		},
		Presets: []scenario.Preset{
			{ID: "restart-then-failover", Title: "One record; the follower restarts, then the leader fails",
				Story:  "Every step is a scheduling choice; no message is lost.",
				Params: scenario.Set(func(*Params) {}), MaxTime: 1000, MaxSteps: 200, Property: AckedKept, Reach: RestartedBehind},
			{ID: "lossy", Title: "One record, and the network may lose one replication message",
				Story:  "As restart-then-failover, and one fetch or fetch response may be lost (a two-way choice per message, which bfs enumerates).",
				Params: scenario.Set(func(p *Params) { p.Losses = 1 }), MaxTime: 1000, MaxSteps: 200, Property: AckedKept, Reach: RestartedBehind},
		},
		Props:        properties,
		Capabilities: capabilities,
		New: func(v Variant, p Params) (*Broker, error) {
			return New(Config{LeaderEpoch: v == VariantLeaderEpoch, Records: p.Records, Losses: p.Losses}), nil
		},
	}.Scenario()
}

// View is what the state inspector shows: per broker its log, high
// watermark and role; the producer's acknowledged records.
func (b *Broker) View(w *sim.World) sim.View {
	var groups []sim.Group
	for i := range b.R {
		r := &b.R[i]
		role := "follower"
		switch {
		case w.Node(b.nodeOf[i]).Down:
			role = "down"
		case r.Leader:
			role = "leader"
		case r.Recovering:
			role = "recovering"
		}
		groups = append(groups, sim.Group{ID: replicaName(i), Title: replicaName(i), Node: b.nodeOf[i], Fields: []sim.Field{
			{Name: "role", Value: role},
			{Name: "log", Value: formatLog(r.Log)},
			{Name: "high watermark", Value: strconv.Itoa(r.HW), Unit: "offset"},
			{Name: "leader epoch", Value: strconv.Itoa(r.Epoch)},
		}})
	}
	acked := ""
	for _, a := range b.Acked {
		acked += " " + strconv.Itoa(a.Value) + "@" + strconv.Itoa(a.Offset)
	}
	groups = append(groups, sim.Group{ID: "producer", Title: "producer", Node: w.Proc(b.producer).Node, Fields: []sim.Field{
		{Name: "written", Value: strconv.Itoa(b.Produced), Unit: "records"},
		{Name: "acknowledged", Value: "[" + trimSpace(acked) + "]"},
	}})
	return sim.View{Groups: groups}
}

func formatLog(log []entry) string {
	s := "["
	for i, e := range log {
		if i > 0 {
			s += " "
		}
		s += strconv.Itoa(e.Value) + "e" + strconv.Itoa(e.Epoch)
	}
	return s + "]"
}

func trimSpace(s string) string {
	if len(s) > 0 && s[0] == ' ' {
		return s[1:]
	}
	return s
}
