package ingest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/racetrack-sim/racetrack/core/sim"
)

// NDJSON event kinds (docs/trace-format.md).
const (
	KindSend    = "send"
	KindReceive = "receive"
	KindLock    = "lock"
	KindBlock   = "block"
	KindUnlock  = "unlock"
	KindLocal   = "local"
	KindState   = "state"
	KindCrash   = "crash"
	KindRestart = "restart"
)

// MaxNameBytes bounds a node, thread, mutex or message name.
const MaxNameBytes = 256

// ndjsonLine is one line of the trace format.
type ndjsonLine struct {
	Node   string                     `json:"node"`
	Thread string                     `json:"thread"`
	Kind   string                     `json:"kind"`
	Msg    json.RawMessage            `json:"msg"`
	To     string                     `json:"to"`
	Obj    string                     `json:"obj"`
	Label  string                     `json:"label"`
	T      *int64                     `json:"t"`
	Fields map[string]json.RawMessage `json:"fields"`
}

type ndjsonEvent struct {
	proc   int32
	kind   string
	msg    string
	to     string
	obj    int32
	label  string
	t      int64
	line   int32
	fields []Field
}

// NDJSON reads Racetrack's trace format: one JSON object per line, in
// the order the events happened (docs/trace-format.md). Message ids link
// a send to its receive; a lock follows the unlock that released the
// mutex before it.
func NDJSON(data []byte, opt Options) (*Log, error) {
	if err := checkSize(FormatNDJSON, len(data), opt); err != nil {
		return nil, err
	}
	fail := func(line int, field, msg string, args ...any) error {
		return &Error{Format: FormatNDJSON, Line: line, Field: field, Msg: fmt.Sprintf(msg, args...)}
	}
	x := &Execution{}
	procIDs := map[[2]string]int32{}
	nodeIDs := map[string]int32{}
	mutexIDs := map[[2]string]int32{}
	var events []ndjsonEvent
	timed := -1 // 1: lines carry t, 0: they do not, -1: not known yet
	// One decoder reads the whole input (a decoder per line costs more
	// than the events); the offsets it reports check that each event is
	// one line and give the line numbers.
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	lineNo, end := 1, 0
	for {
		start, newline := end, false
		for start < len(data) && (data[start] == ' ' || data[start] == '\t' || data[start] == '\r' || data[start] == '\n') {
			if data[start] == '\n' {
				lineNo++
				newline = true
			}
			start++
		}
		if start == len(data) {
			break
		}
		if end > 0 && !newline {
			return nil, fail(lineNo, "", "more than one JSON value on the line")
		}
		if err := checkEvents(FormatNDJSON, len(data), len(events)+1, start, opt); err != nil {
			return nil, err
		}
		var l ndjsonLine
		if err := dec.Decode(&l); err != nil {
			return nil, fail(lineNo, jsonErrorField(err), "not a trace event: %v", err)
		}
		end = int(dec.InputOffset())
		if bytes.IndexByte(data[start:end], '\n') >= 0 {
			return nil, fail(lineNo, "", "an event spans several lines: write one JSON object per line")
		}
		for _, f := range []struct{ name, v string }{{"node", l.Node}, {"thread", l.Thread}, {"to", l.To}, {"obj", l.Obj}} {
			if len(f.v) > MaxNameBytes {
				return nil, fail(lineNo, f.name, "is %d bytes, more than %d", len(f.v), MaxNameBytes)
			}
		}
		if l.Node == "" {
			return nil, fail(lineNo, "node", "missing: every event names its node")
		}
		ev := ndjsonEvent{kind: l.Kind, to: l.To, obj: -1, label: l.Label, line: int32(lineNo)}
		switch l.Kind {
		case KindSend, KindReceive:
			id, err := messageID(l.Msg)
			if err != nil {
				return nil, fail(lineNo, "msg", "%v", err)
			}
			ev.msg = id
		case KindLock, KindBlock, KindUnlock:
			if l.Obj == "" {
				return nil, fail(lineNo, "obj", "missing: a %s names its mutex", l.Kind)
			}
		case KindLocal, KindState, KindCrash, KindRestart:
		case "":
			return nil, fail(lineNo, "kind", "missing")
		default:
			return nil, fail(lineNo, "kind", "unknown kind %q; one of send, receive, lock, block, unlock, local, state, crash, restart", l.Kind)
		}
		if l.Kind != KindSend && l.Kind != KindReceive && len(l.Msg) > 0 {
			return nil, fail(lineNo, "msg", "only a send or a receive carries a message id")
		}
		if l.Kind != KindSend && l.To != "" {
			return nil, fail(lineNo, "to", "only a send names a receiver")
		}
		if (l.T != nil) != (timed == 1) && timed >= 0 {
			return nil, fail(lineNo, "t", "present on some lines and missing on others: give every line a time or none")
		}
		if l.T != nil {
			timed = 1
			ev.t = *l.T
			if n := len(events); n > 0 && ev.t < events[n-1].t {
				return nil, fail(lineNo, "t", "the time goes backwards: %d after %d (line %d)", ev.t, events[n-1].t, events[n-1].line)
			}
		} else {
			timed = 0
		}
		node, ok := nodeIDs[l.Node]
		if !ok {
			node = int32(len(x.Nodes))
			nodeIDs[l.Node] = node
			x.Nodes = append(x.Nodes, sim.Node{ID: sim.NodeID(node), Name: l.Node})
		}
		key := [2]string{l.Node, l.Thread}
		p, ok := procIDs[key]
		if !ok {
			p = int32(len(x.Procs))
			procIDs[key] = p
			name := l.Thread
			if name == "" {
				name = l.Node
			}
			x.Procs = append(x.Procs, sim.Proc{ID: sim.ProcID(p), Node: sim.NodeID(node), Shard: -1, Name: name, Kind: sim.Thread})
		}
		ev.proc = p
		if l.Obj != "" {
			if l.Kind != KindLock && l.Kind != KindBlock && l.Kind != KindUnlock {
				return nil, fail(lineNo, "obj", "only a lock, block or unlock names a mutex")
			}
			mk := [2]string{l.Node, l.Obj}
			m, ok := mutexIDs[mk]
			if !ok {
				m = int32(len(x.Mutexes))
				mutexIDs[mk] = m
				x.Mutexes = append(x.Mutexes, sim.Mutex{ID: sim.MutexID(m), Name: l.Obj, Node: sim.NodeID(node), Holder: sim.None})
			}
			ev.obj = m
		}
		// order-independent: the fields are sorted by name below.
		for name, v := range l.Fields {
			if len(name) > MaxNameBytes {
				return nil, fail(lineNo, "fields", "a field name is %d bytes, more than %d", len(name), MaxNameBytes)
			}
			ev.fields = append(ev.fields, Field{Name: name, Value: fieldValue(v)})
		}
		slices.SortFunc(ev.fields, func(a, b Field) int {
			if a.Name < b.Name {
				return -1
			}
			if a.Name > b.Name {
				return 1
			}
			return 0
		})
		events = append(events, ev)
	}
	if len(events) == 0 {
		return nil, fail(0, "log", "the trace holds no events")
	}
	if err := checkClocks(FormatNDJSON, len(data), len(events), len(x.Procs), opt); err != nil {
		return nil, err
	}
	disambiguateMutexes(x)
	x.Untimed = timed != 1
	if err := buildNDJSON(x, events, procIDs); err != nil {
		return nil, err
	}
	return &Log{Format: FormatNDJSON, Executions: []*Execution{x}}, nil
}

// buildNDJSON checks the events form an execution and appends them.
func buildNDJSON(x *Execution, events []ndjsonEvent, procIDs map[[2]string]int32) error {
	fail := func(ev *ndjsonEvent, field, msg string, args ...any) error {
		return &Error{Format: FormatNDJSON, Line: int(ev.line), Field: field, Msg: fmt.Sprintf(msg, args...)}
	}
	sentAt := map[string]int{} // message id -> index into events of its send
	for i := range events {
		if ev := &events[i]; ev.kind == KindSend {
			if j, dup := sentAt[ev.msg]; dup {
				return fail(ev, "msg", "message id %q is sent twice (first at line %d)", ev.msg, events[j].line)
			}
			sentAt[ev.msg] = i
		}
	}
	b := newBuilder(x, len(events))
	t0 := events[0].t
	firstProc := map[string]sim.ProcID{} // each node's first lane, for a send's "to"
	for _, p := range x.Procs {
		if _, ok := firstProc[x.Nodes[p.Node].Name]; !ok {
			firstProc[x.Nodes[p.Node].Name] = p.ID
		}
	}
	msgOf := map[string]sim.MsgID{}
	received := map[string]int32{}
	holder := make([]int32, len(x.Mutexes))    // the holding process +1
	heldSince := make([]int32, len(x.Mutexes)) // the line it was taken
	released := make([]int32, len(x.Mutexes))  // the step that last released it +1
	down := make([]int32, len(x.Nodes))        // the line the node crashed at, or 0
	waitingOn := make([]int32, len(x.Procs))   // the mutex a lane blocked on, or -1
	for p := range waitingOn {
		waitingOn[p] = -1
	}
	var after []int32
	for i := range events {
		ev := &events[i]
		node := x.Procs[ev.proc].Node
		if down[node] > 0 && ev.kind != KindRestart {
			return fail(ev, "node", "node %q crashed at line %d and has not restarted", x.Nodes[node].Name, down[node])
		}
		step := int32(len(x.Steps))
		s := sim.Step{Time: sim.Time(ev.t - t0), Proc: sim.ProcID(ev.proc), Kind: sim.StepLocal, Parent: -1, Obj: ev.obj}
		after = after[:0]
		label := ev.label
		switch ev.kind {
		case KindSend:
			id := sim.MsgID(len(x.Messages) + 1)
			msgOf[ev.msg] = id
			to := s.Proc // a message to a node that logs nothing stays on the sender's lane
			if ev.to != "" {
				if p, ok := procIDs[[2]string{ev.to, ""}]; ok {
					to = sim.ProcID(p)
				} else if p, ok := firstProc[ev.to]; ok {
					to = p
				}
			}
			if label == "" {
				label = "send " + ev.msg
			}
			x.Messages = append(x.Messages, sim.Message{ID: id, From: s.Proc, To: to, SentStep: step, RecvStep: -1,
				SentAt: s.Time, DeliverAt: s.Time, Label: b.intern(label)})
		case KindReceive:
			id, ok := msgOf[ev.msg]
			if !ok {
				if j, later := sentAt[ev.msg]; later {
					return fail(ev, "msg", "message %q is received before its send (line %d)", ev.msg, events[j].line)
				}
				return fail(ev, "msg", "unknown message id %q: no line sends it", ev.msg)
			}
			if at, dup := received[ev.msg]; dup {
				return fail(ev, "msg", "message %q is received twice (first at line %d)", ev.msg, at)
			}
			received[ev.msg] = ev.line
			m := &x.Messages[id-1]
			m.To, m.RecvStep, m.DeliverAt = s.Proc, step, s.Time
			s.Kind, s.Msg, s.Parent = sim.StepReceive, id, m.SentStep
			if label == "" {
				label = "receive " + ev.msg
			}
			after = append(after, m.SentStep)
		case KindLock:
			if h := holder[ev.obj]; h > 0 {
				return fail(ev, "obj", "%s locks mutex %q, which %s holds since line %d", x.Procs[ev.proc].Name, x.Mutexes[ev.obj].Name,
					x.Procs[h-1].Name, heldSince[ev.obj])
			}
			holder[ev.obj], heldSince[ev.obj] = ev.proc+1, ev.line
			waitingOn[ev.proc] = -1
			s.Kind = sim.StepLock
			if r := released[ev.obj] - 1; r >= 0 && x.Steps[r].Proc != s.Proc {
				s.Parent = r
				after = append(after, r)
			}
		case KindBlock:
			s.Kind = sim.StepBlock
			waitingOn[ev.proc] = ev.obj
		case KindUnlock:
			if holder[ev.obj] != ev.proc+1 {
				who := "nobody"
				if h := holder[ev.obj]; h > 0 {
					who = x.Procs[h-1].Name
				}
				return fail(ev, "obj", "%s unlocks mutex %q, which %s holds", x.Procs[ev.proc].Name, x.Mutexes[ev.obj].Name, who)
			}
			holder[ev.obj], released[ev.obj] = 0, step+1
			s.Kind = sim.StepUnlock
		case KindCrash:
			down[node] = ev.line
			s.Kind = sim.StepFault
		case KindRestart:
			if down[node] == 0 {
				return fail(ev, "kind", "node %q restarts without having crashed", x.Nodes[node].Name)
			}
			down[node] = 0
			s.Kind = sim.StepFault
		}
		if label == "" {
			label = ev.kind
			if ev.obj >= 0 {
				label += " " + x.Mutexes[ev.obj].Name
			}
		}
		b.add(s, label, after, ev.line, ev.fields)
		if ev.kind == KindBlock {
			if cycle := waitCycle(x, ev.proc, holder, waitingOn); cycle != "" {
				x.Violations = append(x.Violations, sim.Violation{Property: sim.NoDeadlockName, Step: int(step), Time: s.Time, Message: cycle})
			}
		}
	}
	return nil
}

// waitCycle follows the waits from p (each lane waits for a mutex whose
// holder waits in turn) and describes the cycle back to p, or returns "".
// The log proves the deadlock: a holder logs its unlock before releasing
// and a waiter its lock after acquiring, so while the log says a lane
// holds a mutex and another waits for it, both are so.
func waitCycle(x *Execution, p int32, holder, waitingOn []int32) string {
	var chain []int32
	for q := p; len(chain) < len(x.Procs); {
		m := waitingOn[q]
		if m < 0 || holder[m] == 0 {
			return ""
		}
		chain = append(chain, q)
		if q = holder[m] - 1; q == p {
			break
		}
	}
	if len(chain) == len(x.Procs) && holder[waitingOn[chain[len(chain)-1]]]-1 != p {
		return ""
	}
	var b strings.Builder
	for i, q := range chain {
		prev := chain[(i+len(chain)-1)%len(chain)]
		if i > 0 {
			b.WriteString("; ")
		}
		b.WriteString(x.Procs[q].Name + " holds " + x.Mutexes[waitingOn[prev]].Name + ", waits for " + x.Mutexes[waitingOn[q]].Name)
	}
	return b.String()
}

// messageID reads a message id: a non-empty JSON string or an integer.
func messageID(raw json.RawMessage) (string, error) {
	if len(raw) == 0 {
		return "", fmt.Errorf("missing: a send or receive carries the message id")
	}
	var s string
	if err := json.Unmarshal(raw, &s); err == nil {
		if s == "" || len(s) > MaxNameBytes {
			return "", fmt.Errorf("a message id is 1 to %d bytes, got %d", MaxNameBytes, len(s))
		}
		return s, nil
	}
	var n int64
	if err := json.Unmarshal(raw, &n); err != nil {
		return "", fmt.Errorf("a message id is a string or an integer, got %s", raw)
	}
	return strconv.FormatInt(n, 10), nil
}

// fieldValue is a string field's text, or any other value's JSON.
func fieldValue(v json.RawMessage) string {
	var s string
	if json.Unmarshal(v, &s) == nil {
		return s
	}
	return string(v)
}

// jsonErrorField names the field a decoding error is about, if it says.
func jsonErrorField(err error) string {
	if te, ok := err.(*json.UnmarshalTypeError); ok {
		return te.Field
	}
	return ""
}

// disambiguateMutexes names mutexes of one name on several nodes
// "name@node".
func disambiguateMutexes(x *Execution) {
	count := map[string]int{}
	for _, m := range x.Mutexes {
		count[m.Name]++
	}
	for i := range x.Mutexes {
		if m := &x.Mutexes[i]; count[m.Name] > 1 {
			m.Name += "@" + x.Nodes[m.Node].Name
		}
	}
}
