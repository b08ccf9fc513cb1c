package export

import (
	"io"

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

// JSON is WriteJSON into memory.
func JSON(tl *timeline.Timeline) ([]byte, error) { return collect(WriteJSON, tl) }

// JSONForked is WriteJSONForked into memory.
func JSONForked(tl *timeline.Timeline, parent *timeline.Branch) ([]byte, error) {
	return collect(func(w io.Writer, tl *timeline.Timeline) error { return WriteJSONForked(w, tl, parent) }, tl)
}

// WriteJSON writes the whole run as one JSON object (the shape of Run):
// spec, schedule, steps, messages, lock spans, violations and series,
// each step and message encoded as it is written, and the fork it was
// recorded from.
func WriteJSON(w io.Writer, tl *timeline.Timeline) error { return WriteJSONForked(w, tl, tl.Parent()) }

// WriteJSONForked is WriteJSON for a run whose place in a fork tree is
// kept apart from its timeline (a debugging session's tree over shared
// timelines).
func WriteJSONForked(w io.Writer, tl *timeline.Timeline, parent *timeline.Branch) error {
	tr := tl.Trace()
	sum := tl.Summary()
	o := &jsonOut{w: w}
	o.raw("{")
	o.field("id", tl.ID(), true)
	o.field("spec", tl.Spec(), false)
	o.field("summary", sum, false)
	sched := tl.Schedule()
	o.key("schedule", false)
	o.array(len(sched), func(i int) any { return sched[i] })
	o.key("choices", false)
	o.array(len(tr.Choices), func(i int) any { return tr.Choices[i] })
	nodes := tl.Nodes()
	o.key("nodes", false)
	o.array(len(nodes), func(i int) any { return NodeInfo{ID: nodes[i].ID, Name: nodes[i].Name} })
	procs := tl.Procs()
	o.key("procs", false)
	o.array(len(procs), func(i int) any {
		p := procs[i]
		kind := "actor"
		if p.Kind == sim.Thread {
			kind = "thread"
		}
		return ProcInfo{ID: p.ID, Name: p.Name, Node: p.Node, Shard: p.Shard, Kind: kind}
	})
	mutexes := tl.Mutexes()
	o.key("mutexes", false)
	o.array(len(mutexes), func(i int) any { return mutexes[i].Name })
	o.key("steps", false)
	o.array(tl.Len(), func(i int) any { return tl.StepView(i) })
	o.key("messages", false)
	o.array(tr.NumMessages(), func(i int) any {
		m := tr.Message(sim.MsgID(i + 1))
		mi := MessageInfo{ID: m.ID, From: m.From, To: m.To, Label: tr.Label(m.Label), SentStep: m.SentStep, RecvStep: m.RecvStep,
			SentAt: m.SentAt.Millis(), DeliverAt: m.DeliverAt.Millis(), Dropped: m.Dropped}
		if m.Dropped {
			mi.DropReason = m.DropReason.String()
		}
		return mi
	})
	spans := tl.Spans()
	o.key("spans", false)
	o.array(len(spans), func(i int) any { return spans[i] })
	o.field("violations", sum.Violations, false)
	o.field("series", tl.Series(), false)
	if parent != nil {
		o.field("parent", parent, false)
	}
	o.raw("}")
	return o.err
}
