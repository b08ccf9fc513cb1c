package conform

import (
	"fmt"
	"strings"

	"github.com/racetrack-sim/racetrack/core/ingest"
	"github.com/racetrack-sim/racetrack/core/sim"
)

// act is what a logged event is in the model.
type act uint8

const (
	actSkip  act = iota // passed over (a lane the model leaves out, or a Skip rule)
	actStep             // matched by one model step
	actHolds            // a condition on the model's state
)

// event is one logged event bound to the mapping.
type event struct {
	lane   int32
	inLane int32
	act    act
	rule   int32       // index in the mapping's Events, -1 for a left-out lane
	mutex  sim.MutexID // the model mutex of a lock, block or unlock step, else None
	// fields are the logged fields the mapping names, checked after the
	// lane's next step when after is set.
	fields []fieldCheck
	after  bool
	// optional: a step event the search may also pass over.
	optional bool
}

type fieldCheck struct {
	field int // index in the mapping's Fields
	value string
}

// binding is a log bound to a model's mapping: what the search reads.
type binding struct {
	x      *ingest.Execution
	lm     *sim.LogMap[sim.Model]
	events []event
	// laneProc[l] is the model process of lane l (None: left out);
	// procLane[p] the lane of model process p (-1: none).
	laneProc  []sim.ProcID
	procLane  []int32
	laneLen   []int32
	laneEvent [][]int32 // laneEvent[l][k]: the k-th event of lane l
	// ruleMutexes[r] lists the model mutexes a Step rule r without its
	// own Mutex covers: those its logged events name.
	ruleMutexes [][]sim.MutexID
}

func isLockKind(k sim.StepKind) bool {
	return k == sim.StepLock || k == sim.StepBlock || k == sim.StepUnlock
}

// bind binds x to lm in world w (just built). A lane or an event the
// mapping does not know is an *ingest.Error naming the line and field.
func bind(x *ingest.Execution, format ingest.Format, lm *sim.LogMap[sim.Model], w *sim.World) (*binding, error) {
	b := &binding{x: x, lm: lm, events: make([]event, x.Len()), ruleMutexes: make([][]sim.MutexID, len(lm.Events))}
	fail := func(i int, field, msg string, args ...any) error {
		line := 0
		if i >= 0 && i < len(x.Lines) {
			line = int(x.Lines[i])
		}
		return &ingest.Error{Format: format, Line: line, Field: field, Msg: fmt.Sprintf(msg, args...)}
	}
	b.procLane = make([]int32, len(w.Procs()))
	for i := range b.procLane {
		b.procLane[i] = -1
	}
	firstOf := make([]int, x.Width())
	for i := range firstOf {
		firstOf[i] = -1
	}
	for i := x.Len() - 1; i >= 0; i-- {
		firstOf[x.Steps[i].Proc] = i
	}
	for l, p := range x.Procs {
		node := ""
		if int(p.Node) < len(x.Nodes) {
			node = x.Nodes[p.Node].Name
		}
		q, ok := lm.Lane(w.Model(), w, node, p.Name)
		if !ok {
			return nil, fail(firstOf[l], "lane", "the log's lane %q (node %q) is no process of the model in mapping %q", p.Name, node, lm.Name)
		}
		if q != sim.None {
			if q < 0 || int(q) >= len(b.procLane) {
				return nil, fmt.Errorf("conform: mapping %q binds lane %q to process %d, which the model does not have", lm.Name, p.Name, q)
			}
			if o := b.procLane[q]; o >= 0 {
				return nil, fail(firstOf[l], "lane", "lanes %q and %q are both the model's %s in mapping %q", x.Procs[o].Name, p.Name, w.ProcName(q), lm.Name)
			}
			b.procLane[q] = int32(l)
		}
		b.laneProc = append(b.laneProc, q)
	}
	b.laneLen = make([]int32, x.Width())
	b.laneEvent = make([][]int32, x.Width())
	// sends[i] is the label of the first message event i sends, +1 (0:
	// none).
	sends := make([]int32, x.Len())
	for _, m := range x.Messages {
		if m.SentStep >= 0 && int(m.SentStep) < len(sends) && sends[m.SentStep] == 0 {
			sends[m.SentStep] = int32(m.Label) + 1
		}
	}
	mutexByName := map[string]sim.MutexID{}
	for _, m := range w.Mutexes() {
		if _, dup := mutexByName[m.Name]; !dup {
			mutexByName[m.Name] = m.ID
		}
	}
	fieldIdx := map[string]int{}
	for k, f := range lm.Fields {
		fieldIdx[f.Name] = k
	}
	for i, s := range x.Steps {
		l := int32(s.Proc)
		e := event{lane: l, inLane: b.laneLen[l], rule: -1, mutex: sim.None}
		b.laneLen[l]++
		b.laneEvent[l] = append(b.laneEvent[l], int32(i))
		if b.laneProc[l] == sim.None {
			b.events[i] = e
			continue
		}
		lg := logged(x, i, sends[i])
		e.rule = -1
		for k := range lm.Events {
			if lm.Events[k].Matches(lg) {
				e.rule = int32(k)
				break
			}
		}
		if e.rule < 0 {
			return nil, fail(i, "label", "no rule of mapping %q says what %s %q of lane %q is in the model", lm.Name, kindName(lg), lg.Label, x.Procs[l].Name)
		}
		r := &lm.Events[e.rule]
		switch {
		case r.Step != nil:
			e.act = actStep
			if isLockKind(s.Kind) && (r.Step.Kind == 0 || isLockKind(r.Step.Kind)) {
				name := r.Step.Mutex
				if name == "" {
					name = lg.Object
				}
				id, ok := mutexByName[name]
				if !ok {
					return nil, fail(i, "obj", "mutex %q is no mutex of the model (mapping %q)", name, lm.Name)
				}
				e.mutex = id
				if r.Step.Mutex == "" && !containsMutex(b.ruleMutexes[e.rule], id) {
					b.ruleMutexes[e.rule] = append(b.ruleMutexes[e.rule], id)
				}
			}
		case r.Holds != nil:
			e.act = actHolds
		default:
			e.act = actSkip
		}
		e.after = r.FieldsAfterNext
		e.optional = r.Optional && e.act == actStep
		for _, f := range x.Fields[i] {
			if k, ok := fieldIdx[f.Name]; ok {
				e.fields = append(e.fields, fieldCheck{field: k, value: f.Value})
			}
		}
		b.events[i] = e
	}
	return b, nil
}

func containsMutex(s []sim.MutexID, id sim.MutexID) bool {
	for _, m := range s {
		if m == id {
			return true
		}
	}
	return false
}

// logged is what a rule sees of event i, which sends a message of label
// sent-1 (sent 0: none).
func logged(x *ingest.Execution, i int, sent int32) sim.Logged {
	s := x.Steps[i]
	lg := sim.Logged{Kind: s.Kind, Sends: sent > 0, Label: x.StepLabel(i)}
	switch {
	case sent > 0:
		lg.Message = x.Labels[sent-1]
	case s.Kind == sim.StepReceive && s.Msg > 0 && int(s.Msg) <= len(x.Messages):
		lg.Message = x.Labels[x.Messages[s.Msg-1].Label]
	}
	if isLockKind(s.Kind) && s.Obj >= 0 && int(s.Obj) < len(x.Mutexes) {
		lg.Object = x.Mutexes[s.Obj].Name
	}
	return lg
}

func kindName(lg sim.Logged) string {
	if lg.Sends {
		return "send"
	}
	return lg.Kind.String()
}

// describes reports whether rule r's Step describes the model step info
// that pending event ev of world w (before it) led to.
func (b *binding) describes(r int, w *sim.World, ev *sim.Event, info sim.StepInfo, mutex sim.MutexID) bool {
	st := b.lm.Events[r].Step
	if st == nil || (st.Kind != 0 && st.Kind != info.Kind) {
		return false
	}
	if isLockKind(info.Kind) {
		switch {
		case mutex != sim.None:
			if sim.MutexID(info.Obj) != mutex {
				return false
			}
		case st.Mutex != "":
			if w.Mutex(sim.MutexID(info.Obj)).Name != st.Mutex {
				return false
			}
		default:
			if !containsMutex(b.ruleMutexes[r], sim.MutexID(info.Obj)) {
				return false
			}
		}
	}
	return st.When == nil || st.When(w.Model(), w, ev)
}

// observable reports whether a model step is one the log must show: a
// step of a process some lane is, that some Step rule describes.
func (b *binding) observable(w *sim.World, ev *sim.Event, info sim.StepInfo) bool {
	if info.Proc < 0 || int(info.Proc) >= len(b.procLane) || b.procLane[info.Proc] < 0 {
		return false
	}
	for r := range b.lm.Events {
		if b.lm.Events[r].Step != nil && b.describes(r, w, ev, info, sim.None) {
			return true
		}
	}
	return false
}

// describeEvent names logged event i for a verdict.
func (b *binding) describeEvent(i int) (lane, kind, label string) {
	x := b.x
	s := x.Steps[i]
	lane = x.Procs[s.Proc].Name
	kind = s.Kind.String()
	label = x.StepLabel(i)
	if isLockKind(s.Kind) && s.Obj >= 0 && int(s.Obj) < len(x.Mutexes) {
		kind += " " + x.Mutexes[s.Obj].Name
	}
	return lane, kind, strings.TrimSpace(label)
}
