package sim

import (
	"errors"
	"fmt"
	"strings"
)

// LogMap declares how the logged executions of a real program map to
// model M: which model process each logged lane is, what each logged
// event is in the model, and which model state each logged field names.
// A model declares it next to its step tables, in its Capabilities
// (Logs), with typed functions the compiler checks:
//
//	var messagerLog = sim.LogMap[*Manager]{
//		Name: "messager",
//		Lane: (*Manager).messagerLane,
//		Events: []sim.LogRule[*Manager]{
//			{Kind: sim.StepLock, Step: &sim.ModelStep[*Manager]{Kind: sim.StepLock}},
//			{Kind: sim.StepLocal, Label: "readPending", Holds: holdsStream, Says: "..."},
//			{Kind: sim.StepBlock, Skip: true},
//		},
//		Fields: []sim.LogField[*Manager]{{Name: "receivers", Value: (*Manager).receiverCount}},
//	}
//
// Validation (core/conform) then searches the model for a run the log
// is a prefix of: every logged event a Step rule maps must be matched by
// one model step of its lane's process that the rule describes, in an
// order that respects the log's happens-before; model steps no Step rule
// describes (the model's own bookkeeping, or what the program does not
// log) may happen in between; Holds events must find their condition
// true in the model's state; Skip events are passed over.
type LogMap[M Model] struct {
	// Name identifies the mapping among the model's ("messager": the
	// traces of examples/messager).
	Name string
	// Help says what logs it is for and which configuration of the
	// model they are checked against.
	Help string
	// Lane is the model process that the logged lane (node, name: the
	// thread, or the node when it has none) is, in world w just after
	// Init. It returns None with ok true for a lane the model leaves
	// out (its events are passed over), and ok false for a lane it does
	// not know (the log is refused, naming the lane).
	Lane func(m M, w *World, node, name string) (p ProcID, ok bool)
	// Events says what each logged event is; the first rule that
	// matches an event decides. A logged event of a modelled lane that
	// no rule matches refuses the log, naming its line.
	Events []LogRule[M]
	// Fields names the model state that logged fields stand for. A
	// logged field of another name is not checked.
	Fields []LogField[M]
}

// Logged is what a rule sees of one logged event.
type Logged struct {
	// Kind is the event's kind as the importer reads it: lock, block,
	// unlock, receive, fault, or local (local work, a state record and
	// a send).
	Kind StepKind
	// Sends is set when the event sends a message.
	Sends bool
	// Object names the mutex of a lock, block or unlock.
	Object string
	// Label is what the program logged the event as.
	Label string
	// Message is the label of the message the event receives, or of
	// the first it sends ("" for none).
	Message string
}

// LogRule says what the logged events it matches are in the model. The
// match fields that are set must all hold; exactly one of Skip, Step
// and Holds says what a matched event is.
type LogRule[M Model] struct {
	// Kind matches events of this kind (0: any).
	Kind StepKind
	// Sends matches only events that send a message.
	Sends bool
	// Object matches events on the mutex of this name ("": any).
	Object string
	// Label matches events whose label starts with it ("": any).
	Label string
	// Message matches events that send or receive a message whose label
	// starts with it ("": any event).
	Message string

	// Skip: the event is not in the model; it is passed over.
	Skip bool
	// Step: the event is one model step of its lane's process, which
	// Step describes.
	Step *ModelStep[M]
	// Holds: the event is no step of the model, but its condition holds
	// in the model's state when the event is reached (its lane's
	// earlier events and its happens-before past matched); p is the
	// lane's process.
	Holds func(m M, w *World, p ProcID) bool

	// Optional, with Step: the event may also be passed over, when the
	// model takes no such step there. A logged block is one: the model
	// blocks where its own order makes it, and a real mutex (Go's is no
	// queue) need not hand itself to the thread that waited first; with
	// blocks optional, the model blocks only where the log shows a block.
	Optional bool

	// FieldsAfterNext: the event's logged fields describe the state
	// after its lane's next Step event (a program that records a value
	// just before the step that makes it so); otherwise they are checked
	// where the event is matched (after its step, for a Step event).
	FieldsAfterNext bool
	// Says what the rule requires, in words, for the verdict ("runPoller
	// wakes runSend while it holds mu").
	Says string
}

// ModelStep describes the model steps a logged event may be matched by.
// Every model step some Step rule describes is observable: it happens
// only as the match of a logged event.
type ModelStep[M Model] struct {
	// Kind is the model step's kind (0: any).
	Kind StepKind
	// Mutex names the model mutex of a lock, block or unlock step; ""
	// means the mutex of the name the logged event's Object gives.
	Mutex string
	// When, if set, must hold of the model's pending event ev (its
	// process's PC says which step of its table it runs) before the
	// step runs.
	When func(m M, w *World, ev *Event) bool
}

// LogField names the model value a logged field stands for.
type LogField[M Model] struct {
	// Name is the logged field's name.
	Name string
	// Value is the model's value, written as the log writes it; p is
	// the process of the event's lane.
	Value func(m M, w *World, p ProcID) string
}

// Matches reports whether r matches the logged event e.
func (r *LogRule[M]) Matches(e Logged) bool {
	return (r.Kind == 0 || r.Kind == e.Kind) && (!r.Sends || e.Sends) &&
		(r.Object == "" || r.Object == e.Object) && strings.HasPrefix(e.Label, r.Label) &&
		(r.Message == "" || (e.Message != "" && strings.HasPrefix(e.Message, r.Message)))
}

// Rule is the first rule that matches e, or nil.
func (l *LogMap[M]) Rule(e Logged) *LogRule[M] {
	for i := range l.Events {
		if l.Events[i].Matches(e) {
			return &l.Events[i]
		}
	}
	return nil
}

// Check reports a mapping that cannot be used: no name or lane binding,
// a rule that is not exactly one of Skip, Step and Holds, a field
// without a name or value, or a field named twice.
func (l *LogMap[M]) Check() error {
	var errs []error
	if l.Name == "" {
		errs = append(errs, errors.New("sim: a log mapping has no Name"))
	}
	if l.Lane == nil {
		errs = append(errs, fmt.Errorf("sim: log mapping %q has no Lane", l.Name))
	}
	for i := range l.Events {
		r := &l.Events[i]
		n := 0
		for _, set := range []bool{r.Skip, r.Step != nil, r.Holds != nil} {
			if set {
				n++
			}
		}
		if n != 1 {
			errs = append(errs, fmt.Errorf("sim: log mapping %q: Events[%d] must be exactly one of Skip, Step and Holds", l.Name, i))
		}
		if r.Optional && r.Step == nil {
			errs = append(errs, fmt.Errorf("sim: log mapping %q: Events[%d] is Optional without a Step", l.Name, i))
		}
	}
	seen := map[string]bool{}
	for i, f := range l.Fields {
		switch {
		case f.Name == "" || f.Value == nil:
			errs = append(errs, fmt.Errorf("sim: log mapping %q: Fields[%d] needs a Name and a Value", l.Name, i))
		case seen[f.Name]:
			errs = append(errs, fmt.Errorf("sim: log mapping %q: field %q named twice", l.Name, f.Name))
		}
		seen[f.Name] = true
	}
	return errors.Join(errs...)
}

// Erase is l for any model, as Capabilities.Erase makes it: each function
// asserts its model to M, which the world the validation builds is.
func (l LogMap[M]) Erase() LogMap[Model] {
	e := LogMap[Model]{Name: l.Name, Help: l.Help}
	if f := l.Lane; f != nil {
		e.Lane = func(m Model, w *World, node, name string) (ProcID, bool) { return f(m.(M), w, node, name) }
	}
	for _, r := range l.Events {
		er := LogRule[Model]{Kind: r.Kind, Sends: r.Sends, Object: r.Object, Label: r.Label, Message: r.Message, Skip: r.Skip,
			Optional: r.Optional, FieldsAfterNext: r.FieldsAfterNext, Says: r.Says}
		if s := r.Step; s != nil {
			er.Step = &ModelStep[Model]{Kind: s.Kind, Mutex: s.Mutex}
			if f := s.When; f != nil {
				er.Step.When = func(m Model, w *World, ev *Event) bool { return f(m.(M), w, ev) }
			}
		}
		if f := r.Holds; f != nil {
			er.Holds = func(m Model, w *World, p ProcID) bool { return f(m.(M), w, p) }
		}
		e.Events = append(e.Events, er)
	}
	for _, fd := range l.Fields {
		ef := LogField[Model]{Name: fd.Name}
		if f := fd.Value; f != nil {
			ef.Value = func(m Model, w *World, p ProcID) string { return f(m.(M), w, p) }
		}
		e.Fields = append(e.Fields, ef)
	}
	return e
}
