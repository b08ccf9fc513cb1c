package export

import (
	"encoding/json"

	"github.com/racetrack-sim/racetrack/core/scenario"
	"github.com/racetrack-sim/racetrack/core/sim"
	"github.com/racetrack-sim/racetrack/core/timeline"
)

// Run is the JSON shape of a whole run (times in milliseconds).
type Run struct {
	ID         string                `json:"id"`
	Spec       scenario.RunSpec      `json:"spec"`
	Summary    scenario.Summary      `json:"summary"`
	Schedule   []int                 `json:"schedule"`
	Choices    []sim.ChoiceRecord    `json:"choices"`
	Nodes      []NodeInfo            `json:"nodes"`
	Procs      []ProcInfo            `json:"procs"`
	Mutexes    []string              `json:"mutexes"`
	Steps      []timeline.StepView   `json:"steps"`
	Messages   []MessageInfo         `json:"messages"`
	Spans      []timeline.Span       `json:"spans"`
	Violations []scenario.Violation  `json:"violations"`
	Series     []timeline.SeriesView `json:"series"`
	Parent     *timeline.Branch      `json:"parent,omitempty"`
}

// NodeInfo names a node.
type NodeInfo struct {
	ID   sim.NodeID `json:"id"`
	Name string     `json:"name"`
}

// ProcInfo describes a process.
type ProcInfo struct {
	ID    sim.ProcID `json:"id"`
	Name  string     `json:"name"`
	Node  sim.NodeID `json:"node"`
	Shard int        `json:"shard"`
	Kind  string     `json:"kind"` // "actor" or "thread"
}

// MessageInfo is one message (times in milliseconds).
type MessageInfo struct {
	ID         sim.MsgID  `json:"id"`
	From       sim.ProcID `json:"from"`
	To         sim.ProcID `json:"to"`
	Label      string     `json:"label"`
	SentStep   int32      `json:"sentStep"`
	RecvStep   int32      `json:"recvStep"`
	SentAt     float64    `json:"sentAt"`
	DeliverAt  float64    `json:"deliverAt"`
	Dropped    bool       `json:"dropped,omitempty"`
	DropReason string     `json:"dropReason,omitempty"`
}

// JSON writes the whole run: spec, schedule, steps, messages, lock spans,
// violations and series.
func JSON(tl *timeline.Timeline) ([]byte, error) {
	tr := tl.Trace()
	r := Run{ID: tl.ID(), Spec: tl.Spec(), Summary: tl.Summary(), Schedule: tl.Schedule(), Choices: tr.Choices,
		Spans: tl.Spans(), Series: tl.Series(), Parent: tl.Parent(), Violations: tl.Summary().Violations}
	if r.Schedule == nil {
		r.Schedule = []int{}
	}
	if r.Choices == nil {
		r.Choices = []sim.ChoiceRecord{}
	}
	if r.Spans == nil {
		r.Spans = []timeline.Span{}
	}
	for _, n := range tl.Nodes() {
		r.Nodes = append(r.Nodes, NodeInfo{ID: n.ID, Name: n.Name})
	}
	for _, p := range tl.Procs() {
		kind := "actor"
		if p.Kind == sim.Thread {
			kind = "thread"
		}
		r.Procs = append(r.Procs, ProcInfo{ID: p.ID, Name: p.Name, Node: p.Node, Shard: p.Shard, Kind: kind})
	}
	r.Mutexes = []string{}
	for _, m := range tl.Mutexes() {
		r.Mutexes = append(r.Mutexes, m.Name)
	}
	r.Steps = make([]timeline.StepView, 0, tl.Len())
	for i := 0; i < tl.Len(); i++ {
		r.Steps = append(r.Steps, tl.StepView(i))
	}
	r.Messages = make([]MessageInfo, 0, tr.NumMessages())
	for id := 1; id <= tr.NumMessages(); id++ {
		m := tr.Message(sim.MsgID(id))
		mi := MessageInfo{ID: m.ID, From: m.From, To: m.To, Label: tr.Label(m.Label), SentStep: m.SentStep, RecvStep: m.RecvStep,
			SentAt: m.SentAt.Millis(), DeliverAt: m.DeliverAt.Millis(), Dropped: m.Dropped}
		if m.Dropped {
			mi.DropReason = m.DropReason.String()
		}
		r.Messages = append(r.Messages, mi)
	}
	return json.Marshal(r)
}
