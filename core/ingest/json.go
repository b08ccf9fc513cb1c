package ingest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/racetrack-sim/racetrack/core/sim"
)

// jsonRun is the part of core/export's Run an import reads back.
type jsonRun struct {
	ID    string `json:"id"`
	Nodes []struct {
		Name string `json:"name"`
	} `json:"nodes"`
	Procs []struct {
		Name  string `json:"name"`
		Node  int32  `json:"node"`
		Shard int    `json:"shard"`
		Kind  string `json:"kind"`
	} `json:"procs"`
	Mutexes []string `json:"mutexes"`
	Steps   []struct {
		Index  int     `json:"index"`
		Time   float64 `json:"time"`
		Proc   int32   `json:"proc"`
		Kind   string  `json:"kind"`
		Label  string  `json:"label"`
		Object string  `json:"object"`
		Msg    int32   `json:"msg"`
		Parent int32   `json:"parent"`
	} `json:"steps"`
	Messages []struct {
		ID         int32   `json:"id"`
		From       int32   `json:"from"`
		To         int32   `json:"to"`
		Label      string  `json:"label"`
		SentStep   int32   `json:"sentStep"`
		RecvStep   int32   `json:"recvStep"`
		SentAt     float64 `json:"sentAt"`
		DeliverAt  float64 `json:"deliverAt"`
		Dropped    bool    `json:"dropped"`
		DropReason string  `json:"dropReason"`
	} `json:"messages"`
	Spans []struct {
		Kind  string `json:"kind"`
		Mutex int32  `json:"mutex"`
		Cond  int32  `json:"cond"`
		Start int    `json:"start"`
	} `json:"spans"`
	Violations []struct {
		Property string  `json:"property"`
		Step     int     `json:"step"`
		Time     float64 `json:"time"`
		Message  string  `json:"message"`
	} `json:"violations"`
}

var stepKinds = map[string]sim.StepKind{}

func init() {
	for k := sim.StepReceive; k <= sim.StepExit; k++ {
		stepKinds[k.String()] = k
	}
}

var dropReasons = map[string]sim.DropReason{"": sim.NotDropped, "partitioned": sim.DropPartition, "lost": sim.DropLost,
	"receiver crashed": sim.DropReceiverDown}

// JSON reads a run exported by core/export (WriteJSON) back into step
// records: the same processes, steps, messages, mutexes and violations,
// with the vector clocks the kernel computes from each step's parent.
func JSON(data []byte, opt Options) (*Log, error) {
	if err := checkSize(FormatJSON, len(data), opt); err != nil {
		return nil, err
	}
	fail := func(field, msg string, args ...any) error {
		return &Error{Format: FormatJSON, Field: field, Msg: fmt.Sprintf(msg, args...)}
	}
	var r jsonRun
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&r); err != nil {
		e := &Error{Format: FormatJSON, Msg: "not a Racetrack run export: " + err.Error()}
		var se *json.SyntaxError
		var te *json.UnmarshalTypeError
		switch {
		case errors.As(err, &se):
			e.Line = 1 + bytes.Count(data[:min(int(se.Offset), len(data))], []byte("\n"))
		case errors.As(err, &te):
			e.Line, e.Field = 1+bytes.Count(data[:min(int(te.Offset), len(data))], []byte("\n")), te.Field
		}
		return nil, e
	}
	if dec.More() {
		return nil, fail("", "more than one JSON value")
	}
	if len(r.Procs) == 0 || len(r.Steps) == 0 {
		return nil, fail("steps", "the run has no processes or no steps")
	}
	if err := checkClocks(FormatJSON, len(data), len(r.Steps), len(r.Procs), opt); err != nil {
		return nil, err
	}
	x := &Execution{Label: r.ID, Untimed: true}
	for i, n := range r.Nodes {
		x.Nodes = append(x.Nodes, sim.Node{ID: sim.NodeID(i), Name: n.Name})
	}
	for i, p := range r.Procs {
		if p.Node < 0 || int(p.Node) >= len(x.Nodes) {
			return nil, fail(fmt.Sprintf("procs[%d].node", i), "node %d does not exist", p.Node)
		}
		kind := sim.Actor
		if p.Kind == "thread" {
			kind = sim.Thread
		}
		x.Procs = append(x.Procs, sim.Proc{ID: sim.ProcID(i), Node: sim.NodeID(p.Node), Shard: p.Shard, Name: p.Name, Kind: kind})
	}
	mutexIDs := map[string]int32{}
	for i, name := range r.Mutexes {
		x.Mutexes = append(x.Mutexes, sim.Mutex{ID: sim.MutexID(i), Name: name, Holder: sim.None})
		if _, dup := mutexIDs[name]; !dup {
			mutexIDs[name] = int32(i)
		}
	}
	// The export names a step's condition variable; its waits' spans give
	// its number and its mutex (the one a wait releases). A condition
	// variable that is only signalled takes a free number.
	condIDs := map[string]int32{}
	for k, sp := range r.Spans {
		if sp.Kind != "cond" {
			continue
		}
		field := fmt.Sprintf("spans[%d]", k)
		switch {
		case sp.Start < 0 || sp.Start >= len(r.Steps) || r.Steps[sp.Start].Kind != sim.StepWait.String():
			return nil, fail(field+".start", "step %d is not a wait", sp.Start)
		case sp.Cond < 0 || int(sp.Cond) >= len(r.Steps):
			return nil, fail(field+".cond", "condition variable %d does not exist", sp.Cond)
		case sp.Mutex < 0 || int(sp.Mutex) >= len(x.Mutexes):
			return nil, fail(field+".mutex", "mutex %d does not exist", sp.Mutex)
		}
		name := r.Steps[sp.Start].Object
		if id, ok := condIDs[name]; ok && id != sp.Cond {
			return nil, fail(field+".cond", "condition variable %q is numbered %d and %d", name, id, sp.Cond)
		}
		condIDs[name] = sp.Cond
		for len(x.Conds) <= int(sp.Cond) {
			x.Conds = append(x.Conds, sim.Cond{ID: sim.CondID(len(x.Conds)), L: sim.None})
		}
		x.Conds[sp.Cond].Name, x.Conds[sp.Cond].L = name, sim.MutexID(sp.Mutex)
	}
	b := newBuilder(x, len(r.Steps))
	for i, st := range r.Steps {
		field := func(f string) string { return fmt.Sprintf("steps[%d].%s", i, f) }
		kind, ok := stepKinds[st.Kind]
		switch {
		case st.Index != i:
			return nil, fail(field("index"), "is %d, want %d", st.Index, i)
		case !ok:
			return nil, fail(field("kind"), "unknown step kind %q", st.Kind)
		case st.Proc < 0 || int(st.Proc) >= len(x.Procs):
			return nil, fail(field("proc"), "process %d does not exist", st.Proc)
		case st.Parent < -1 || int(st.Parent) >= i:
			return nil, fail(field("parent"), "is %d: a parent is an earlier step or -1", st.Parent)
		case st.Msg < 0 || int(st.Msg) > len(r.Messages):
			return nil, fail(field("msg"), "message %d does not exist", st.Msg)
		case st.Time < 0:
			return nil, fail(field("time"), "is negative")
		}
		s := sim.Step{Time: sim.FromMillis(st.Time), Proc: sim.ProcID(st.Proc), Kind: kind, Msg: sim.MsgID(st.Msg), Parent: st.Parent, Obj: -1}
		if s.Time != 0 {
			x.Untimed = false
		}
		if i > 0 && s.Time < x.Steps[i-1].Time {
			return nil, fail(field("time"), "the time goes backwards: %v after %v", st.Time, r.Steps[i-1].Time)
		}
		switch kind {
		case sim.StepLock, sim.StepBlock, sim.StepUnlock:
			m, ok := mutexIDs[st.Object]
			if !ok {
				return nil, fail(field("object"), "mutex %q is not in mutexes", st.Object)
			}
			s.Obj = m
		case sim.StepWait, sim.StepSignal:
			c, ok := condIDs[st.Object]
			if !ok {
				c = freeCond(x)
				condIDs[st.Object] = c
				x.Conds[c].Name = st.Object
			}
			s.Obj = c
		}
		var after []int32
		if s.Parent >= 0 {
			after = []int32{s.Parent}
		}
		b.add(s, st.Label, after, 0, nil)
	}
	for i, m := range r.Messages {
		field := func(f string) string { return fmt.Sprintf("messages[%d].%s", i, f) }
		n := int32(len(x.Steps))
		reason, ok := dropReasons[m.DropReason]
		switch {
		case m.ID != int32(i+1):
			return nil, fail(field("id"), "is %d, want %d", m.ID, i+1)
		case m.From < 0 || int(m.From) >= len(x.Procs) || m.To < 0 || int(m.To) >= len(x.Procs):
			return nil, fail(field("from"), "a process in from or to does not exist")
		case m.SentStep < -1 || m.SentStep >= n || m.SentStep >= 0 && x.Steps[m.SentStep].Proc != sim.ProcID(m.From):
			return nil, fail(field("sentStep"), "is %d: not a step of process %d", m.SentStep, m.From)
		case m.RecvStep < -1 || m.RecvStep >= n || m.RecvStep >= 0 && (m.RecvStep <= m.SentStep || x.Steps[m.RecvStep].Msg != sim.MsgID(i+1)):
			return nil, fail(field("recvStep"), "is %d: not the step that receives message %d after its send", m.RecvStep, i+1)
		case !ok:
			return nil, fail(field("dropReason"), "unknown reason %q", m.DropReason)
		}
		x.Messages = append(x.Messages, sim.Message{ID: sim.MsgID(i + 1), From: sim.ProcID(m.From), To: sim.ProcID(m.To),
			SentStep: m.SentStep, RecvStep: m.RecvStep, SentAt: sim.FromMillis(m.SentAt), DeliverAt: sim.FromMillis(m.DeliverAt),
			Label: b.intern(m.Label), Dropped: m.Dropped, DropReason: reason})
	}
	for i, s := range x.Steps {
		if s.Msg > 0 && x.Messages[s.Msg-1].RecvStep != int32(i) {
			return nil, fail(fmt.Sprintf("steps[%d].msg", i), "message %d is received at step %d, not here", s.Msg, x.Messages[s.Msg-1].RecvStep)
		}
	}
	for i, v := range r.Violations {
		if v.Step < 0 || v.Step >= len(x.Steps) {
			return nil, fail(fmt.Sprintf("violations[%d].step", i), "step %d does not exist", v.Step)
		}
		x.Violations = append(x.Violations, sim.Violation{Property: v.Property, Step: v.Step, Time: sim.FromMillis(v.Time), Message: v.Message})
	}
	return &Log{Format: FormatJSON, Executions: []*Execution{x}}, nil
}

// freeCond returns an unnamed condition variable's number, adding one if
// every number is taken.
func freeCond(x *Execution) int32 {
	for i := range x.Conds {
		if x.Conds[i].Name == "" {
			return int32(i)
		}
	}
	x.Conds = append(x.Conds, sim.Cond{ID: sim.CondID(len(x.Conds)), L: sim.None})
	return int32(len(x.Conds) - 1)
}
