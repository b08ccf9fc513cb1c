package sim

import (
	"fmt"
	"strconv"
	"strings"
)

// Msg is a delivered message whose payload has type T, as an actor's
// handler receives it.
type Msg[T any] struct {
	From ProcID
	ID   MsgID
	Body T
}

// Fired is a timer that fired: the tag it was set with and the id SetTimer
// returned (compare it with a stored id to ignore a timer made stale).
type Fired struct {
	Tag int
	ID  int64
}

type handlerKind uint8

const (
	onMessage handlerKind = iota + 1
	onTimer
	onStart
	onRestart
	onCrash
)

// Handler is one row of an actor's table: what the actor does with one
// type of message, one timer tag, or when it starts, restarts or crashes.
// Make rows with On, OnTimer, OnStart, OnRestart and OnCrash.
type Handler[M any] struct {
	kind handlerKind
	// key names what the row handles: the payload's Go type ("broker.fetch"),
	// "timer 2", "start", "restart", "crash".
	key   string
	tag   int
	says  string
	match func(payload any) bool
	step  func(m M, w *World, p *Proc, ev *Event) string
	hook  func(m M, w *World, p *Proc)
	// describe, when set, replaces "who says" for a row whose pending
	// description depends on the state (Describing).
	describe func(m M, w *World, ev *Event, who string) string
}

// Describing returns the row with a description that depends on the
// state: describe says what ev would do, who being the actor's name ("b1:
// the election timer times out"), in place of who and says. says still
// names the row in errors and labels a step whose function returns "".
func (h Handler[M]) Describing(describe func(m M, w *World, ev *Event, who string) string) Handler[M] {
	h.describe = describe
	return h
}

// On declares what an actor does when a message of type T arrives (the
// first row whose T the payload has: an interface T takes every payload
// implementing it that no earlier row took). says
// is what it does, pending, after the actor's name ("appends the
// records"); do runs the step and returns its label for the trace ("" to
// use says). The payload arrives typed: no type switch, no assertion.
func On[M, T any](says string, do func(m M, w *World, p *Proc, msg Msg[T]) string) Handler[M] {
	// The name of *T, not of a zero T: an interface T's zero value has no
	// type to print.
	key := strings.TrimPrefix(fmt.Sprintf("%T", (*T)(nil)), "*")
	return Handler[M]{kind: onMessage, key: key, says: says,
		match: func(payload any) bool { _, ok := payload.(T); return ok },
		step: func(m M, w *World, p *Proc, ev *Event) string {
			return do(m, w, p, Msg[T]{From: ev.From, ID: ev.Msg, Body: ev.Payload.(T)})
		}}
}

// OnTimer declares what an actor does when its timer with tag fires (set
// with World.SetTimer).
func OnTimer[M any](tag int, says string, do func(m M, w *World, p *Proc, t Fired) string) Handler[M] {
	return Handler[M]{kind: onTimer, key: "timer " + strconv.Itoa(tag), tag: tag, says: says,
		step: func(m M, w *World, p *Proc, ev *Event) string {
			return do(m, w, p, Fired{Tag: ev.Timer, ID: ev.TimerID})
		}}
}

// OnStart declares what an actor does when the model starts (Actors.Start,
// called at the end of Init) and, unless the table has an OnRestart row,
// when its node restarts. It runs inside Init, which is not a step: a
// message sent there is recorded as sent at step 0, whoever runs it. Set
// a timer instead and send from its row.
func OnStart[M any](says string, do func(m M, w *World, p *Proc)) Handler[M] {
	return Handler[M]{kind: onStart, key: "start", says: says, hook: do}
}

// OnRestart declares what an actor does when its node comes back after a
// crash: the model's Restart hook (Actors.Restart) runs it inside the step
// that restarted the node (another process's), after the kernel made the
// node's processes runnable again. It reloads what the node persisted and
// sets the actor's timers; a message sent from it is delivered but
// recorded as sent at that other process's step, so send from a timer's
// row instead.
func OnRestart[M any](says string, do func(m M, w *World, p *Proc)) Handler[M] {
	return Handler[M]{kind: onRestart, key: "restart", says: says, hook: do}
}

// OnCrash declares what an actor loses when its node crashes: Actors.Crash
// runs it, after World.Crash, to reset the actor's volatile state in the
// model (the kernel only forgets the node's pending events and its
// processes' scheduling state; the model's fields are the model's).
func OnCrash[M any](says string, do func(m M, w *World, p *Proc)) Handler[M] {
	return Handler[M]{kind: onCrash, key: "crash", says: says, hook: do}
}

// Handlers is the table of one kind of actor of model M: one Handler per
// message type, per timer tag, and at most one each for start, restart
// and crash. Declare it once, as a package-level variable, the way a
// thread declares its Program.
type Handlers[M any] []Handler[M]

// Check reports a malformed table: a row declared twice, a row with no
// function or no description.
func (a Handlers[M]) Check() error {
	seen := make(map[string]bool, len(a))
	for i := range a {
		h := &a[i]
		switch {
		case h.kind == 0:
			return fmt.Errorf("%w: actor table row %d is empty (make rows with On, OnTimer, OnStart, OnRestart, OnCrash)", ErrModel, i)
		case seen[h.key]:
			return fmt.Errorf("%w: actor table declares %s twice", ErrModel, h.key)
		case h.says == "":
			return fmt.Errorf("%w: actor table row for %s says nothing", ErrModel, h.key)
		case h.step == nil && h.hook == nil:
			return fmt.Errorf("%w: actor table row for %s has no function", ErrModel, h.key)
		}
		seen[h.key] = true
	}
	return nil
}

// row finds the row for ev, or nil.
func (a Handlers[M]) row(ev *Event) *Handler[M] {
	for i := range a {
		h := &a[i]
		switch {
		case ev.Kind == EvDeliver && h.kind == onMessage && h.match(ev.Payload):
			return h
		case ev.Kind == EvTimer && h.kind == onTimer && h.tag == ev.Timer:
			return h
		}
	}
	return nil
}

func (a Handlers[M]) hook(kind handlerKind) *Handler[M] {
	for i := range a {
		if a[i].kind == kind {
			return &a[i]
		}
	}
	return nil
}

// Handle runs the row for ev. An event the table has no row for is a model
// error (the run stops and says which).
func (a Handlers[M]) Handle(m M, w *World, p *Proc, ev *Event) Action {
	h := a.row(ev)
	if h == nil {
		what := "timer " + strconv.Itoa(ev.Timer)
		if ev.Kind == EvDeliver {
			what = fmt.Sprintf("message %T", ev.Payload)
		}
		w.Failf("actor %s has no handler for %s", p.Name, what)
		return Local("no handler", 0)
	}
	did := h.step(m, w, p, ev)
	if did == "" {
		did = h.says
	}
	if ev.Kind == EvDeliver && w.Tracing() {
		did = payloadLabel(ev.Payload) + ": " + did
	}
	return Local(did, 0)
}

// Describe says what ev would do if it ran next: who, then the row's says
// (or what its Describing function says).
func (a Handlers[M]) Describe(m M, w *World, who string, ev *Event) string {
	if h := a.row(ev); h != nil {
		if h.describe != nil {
			return h.describe(m, w, ev, who)
		}
		return who + " " + h.says
	}
	return who + " has no handler for this event"
}

// Actors says which table each actor of a model runs. A model keeps one
// in its state (filled in Init, never changed after, so clones may share
// it) and forwards the kernel's calls to it:
//
//	func (m *M) Handle(w, p, ev) sim.Action { return m.actors.Handle(m, w, p, ev) }
//	func (m *M) Describe(w, ev) string     { return m.actors.Describe(m, w, ev) }
//	func (m *M) Restart(w, n)              { m.actors.Restart(m, w, n) }
type Actors[M any] struct {
	tables []Handlers[M] // by process id; nil for a process with no table
}

// Add creates an actor on node n running table a. A malformed table stops
// the run with a model error (Handlers.Check).
func (as *Actors[M]) Add(w *World, n NodeID, shard int, name string, a Handlers[M]) ProcID {
	if err := a.Check(); err != nil {
		w.fail(fmt.Errorf("actor %s: %w", name, err))
	}
	p := w.AddActor(n, shard, name)
	for int(p) >= len(as.tables) {
		as.tables = append(as.tables, nil)
	}
	as.tables[p] = a
	return p
}

// Table is the table process p runs (nil for a process Add did not make).
func (as *Actors[M]) Table(p ProcID) Handlers[M] {
	if int(p) < len(as.tables) {
		return as.tables[p]
	}
	return nil
}

// Handle runs the row of p's table for ev.
func (as *Actors[M]) Handle(m M, w *World, p *Proc, ev *Event) Action {
	t := as.Table(p.ID)
	if t == nil {
		w.Failf("process %s has no actor table", p.Name)
		return Local("no actor table", 0)
	}
	return t.Handle(m, w, p, ev)
}

// Describe says what ev would do, in the words of its actor's table.
func (as *Actors[M]) Describe(m M, w *World, ev *Event) string {
	return as.Table(ev.Proc).Describe(m, w, w.ProcName(ev.Proc), ev)
}

// Start runs every actor's OnStart row, in process order. Call it at the
// end of Init.
func (as *Actors[M]) Start(m M, w *World) {
	for p := range as.tables {
		if h := as.tables[p].hook(onStart); h != nil {
			h.hook(m, w, &w.procs[p])
		}
	}
}

// Restart is the model's Restart hook: it runs, for every actor of node n,
// its OnRestart row, or its OnStart row when it has none. It returns what
// they did, for the label of the step that restarted the node.
func (as *Actors[M]) Restart(m M, w *World, n NodeID) string {
	return as.onNode(m, w, n, onRestart, onStart)
}

// Crash crashes node n (World.Crash) and runs the OnCrash row of each of
// its actors. It returns what they lost, for the step's label. A node
// crashed by World.Crash directly runs no OnCrash row.
func (as *Actors[M]) Crash(m M, w *World, n NodeID) string {
	if w.nodes[n].Down {
		return w.nodes[n].Name + " is already down"
	}
	w.Crash(n)
	return as.onNode(m, w, n, onCrash, onCrash)
}

func (as *Actors[M]) onNode(m M, w *World, n NodeID, kind, fallback handlerKind) string {
	did := ""
	for p := range as.tables {
		if w.procs[p].Node != n {
			continue
		}
		h := as.tables[p].hook(kind)
		if h == nil {
			h = as.tables[p].hook(fallback)
		}
		if h == nil {
			continue
		}
		h.hook(m, w, &w.procs[p])
		if did != "" {
			did += "; "
		}
		did += w.procs[p].Name + " " + h.says
	}
	return did
}
