package sim

import (
	"errors"
	"fmt"
)

// Identifiers of kernel objects: indexes into the world's tables.
type (
	ProcID  int32
	NodeID  int32
	MutexID int32
	CondID  int32
	MsgID   int32
)

// None is the id meaning "no object".
const None = -1

// ProcKind separates message-handling actors from program-counter threads.
type ProcKind uint8

// Process kinds.
const (
	Actor ProcKind = iota + 1
	Thread
)

// ProcStatus is a process's scheduling state.
type ProcStatus uint8

// Process statuses.
const (
	Running ProcStatus = iota // runnable, or an actor waiting for events
	Blocked                   // a thread waiting for a mutex
	Waiting                   // a thread waiting on a condition variable
	Done                      // a thread that exited
	Crashed                   // its node is down
)

var procStatusNames = [...]string{"running", "blocked", "waiting", "done", "crashed"}

func (s ProcStatus) String() string { return procStatusNames[s] }

// Proc is a process: an actor or a thread, on a node and optionally a shard.
type Proc struct {
	ID     ProcID
	Node   NodeID
	Shard  int // -1 when the node is not sharded
	Name   string
	Kind   ProcKind
	Status ProcStatus
	// PC is the thread's program counter, owned by the model.
	PC int
	// BlockedOn is the mutex a Blocked thread waits for.
	BlockedOn MutexID
	// WaitingOn is the condition variable a Waiting thread waits on.
	WaitingOn CondID
}

// Node is a machine; crashing it stops all its processes.
type Node struct {
	ID          NodeID
	Name        string
	Down        bool
	Incarnation int32
}

// Sentinel errors.
var (
	ErrScheduleMismatch = errors.New("sim: schedule does not fit the run")
	ErrModel            = errors.New("sim: model error")
)

// Options configure a world.
type Options struct {
	// Trace records steps, messages, choices, vector clocks and series.
	Trace bool
	// StopOnViolation ends Run at the first violation.
	StopOnViolation bool
	// Capabilities is what the model declares it offers (nil: found
	// from its methods, see MethodCapabilities).
	Capabilities *Capabilities[Model]
}

// World is one simulated system: the kernel state plus the model.
type World struct {
	model   Model
	caps    *Capabilities[Model]
	chooser Chooser
	opts    Options
	seed    uint64

	now     Time
	untimed bool
	seq     uint64
	queue   eventQueue
	started bool

	nodes   []Node
	procs   []Proc
	mutexes []Mutex
	conds   []Cond
	net     network

	timerSeq  int64
	cancelled map[int64]struct{}
	msgSeq    MsgID
	// crashes counts node crashes so far: while it is 0 no event is
	// stale for its node's incarnation (see stale).
	crashes int32

	steps    int
	schedule []int
	// ownsSchedule: schedule's memory is w's alone (SnapshotInto made
	// it), to be overwritten when w is recycled.
	ownsSchedule bool
	props        []Property
	violated     []bool
	violations   []Violation
	reached      []Violation
	err          error
	stop         StopReason
	finished     bool

	series []SeriesDef
	last   []float64 // last sampled value of each series
	trace  *Trace

	cur      stepCtx
	event    Event // the event being executed
	ties     []Event
	tieProcs []ProcID
	tieIdx   []int32
	choice   Choice
}

// stepCtx collects what the step being executed did.
type stepCtx struct {
	proc   ProcID
	kind   StepKind
	obj    int32
	parent int32
	msg    MsgID
	fault  bool
	label  string
}

// NewWorld builds a world for m, driven by chooser, and runs m.Init. It
// panics when opts declares capabilities for another type of model.
func NewWorld(m Model, seed uint64, chooser Chooser, opts Options) *World {
	caps := opts.Capabilities
	if caps == nil {
		caps = MethodCapabilities(m)
	}
	caps.fits(m)
	w := &World{
		model:     m,
		caps:      caps,
		chooser:   chooser,
		opts:      opts,
		seed:      seed,
		cancelled: map[int64]struct{}{},
		net:       newNetwork(),
	}
	if opts.Trace {
		w.trace = &Trace{}
	}
	m.Init(w)
	w.started = true
	w.props = m.Properties()
	w.violated = make([]bool, len(w.props))
	if w.trace != nil {
		w.trace.Width = len(w.procs)
		w.trace.lastStep = make([]int32, len(w.procs))
		for i := range w.trace.lastStep {
			w.trace.lastStep[i] = -1
		}
		w.trace.SeriesDefs = w.series
		w.trace.Series = make([][]Point, len(w.series))
	}
	return w
}

// Model returns the model (type-assert it to reach the model's state).
func (w *World) Model() Model { return w.model }

// Capabilities is what the model offers beyond Model: the one place the
// kernel, the explorers and the views read it from. Callers must not
// change it.
func (w *World) Capabilities() *Capabilities[Model] { return w.caps }

// Describe says what ev would do if it ran next, in the model's words,
// or "" when the model does not describe its events.
func (w *World) Describe(ev *Event) string {
	if w.caps.Describe == nil {
		return ""
	}
	return w.caps.Describe(w.model, w, ev)
}

// View is the model's display-ready view of its state, and whether it
// offers one.
func (w *World) View() (View, bool) {
	if w.caps.View == nil {
		return View{}, false
	}
	return w.caps.View(w.model, w), true
}

// Now is the current virtual time.
func (w *World) Now() Time { return w.now }

// Seed is the run's seed.
func (w *World) Seed() uint64 { return w.seed }

// Steps is the number of steps executed.
func (w *World) Steps() int { return w.steps }

// Untimed reports whether every cost and latency is zero.
func (w *World) Untimed() bool { return w.untimed }

// SetUntimed turns every step cost, latency and timer delay into zero, so
// that the order of steps is decided by the chooser alone.
func (w *World) SetUntimed(v bool) { w.untimed = v }

// SetChooser replaces the chooser (the explorers drive clones this way).
func (w *World) SetChooser(c Chooser) { w.chooser = c }

// Schedule is the list of choices made so far (only those with more than
// one option).
func (w *World) Schedule() []int { return w.schedule }

// Trace is the recording, or nil when tracing is off.
func (w *World) Trace() *Trace { return w.trace }

// Tracing reports whether w records a trace. Step labels reach nothing
// else, so a model may leave a label empty when it is false rather than
// build its text at every step of a search.
func (w *World) Tracing() bool { return w.trace != nil }

// Err is the error that stopped the run, if any.
func (w *World) Err() error { return w.err }

// Violations lists the first violation of each violated property, in the
// order they happened.
func (w *World) Violations() []Violation { return w.violations }

// PropertyList returns the properties checked in this world.
func (w *World) PropertyList() []Property { return w.props }

// Nodes lists the nodes.
func (w *World) Nodes() []Node { return w.nodes }

// Node returns node n.
func (w *World) Node(n NodeID) *Node { return &w.nodes[n] }

// Procs lists the processes.
func (w *World) Procs() []Proc { return w.procs }

// Proc returns process p.
func (w *World) Proc(p ProcID) *Proc { return &w.procs[p] }

// Mutexes lists the mutexes.
func (w *World) Mutexes() []Mutex { return w.mutexes }

// Mutex returns mutex m.
func (w *World) Mutex(m MutexID) *Mutex { return &w.mutexes[m] }

// Conds lists the condition variables.
func (w *World) Conds() []Cond { return w.conds }

// Pending lists the events in the queue in (time, seq) order, skipping
// those that can no longer fire.
func (w *World) Pending() []Event {
	out := make([]Event, 0, len(w.queue))
	for _, e := range w.queue {
		if !w.stale(&e) {
			out = append(out, e)
		}
	}
	sortEvents(out)
	return out
}

func (w *World) mustSetUp(what string) {
	if w.started {
		panic(fmt.Sprintf("sim: %s after Init", what))
	}
}

// AddNode creates a node.
func (w *World) AddNode(name string) NodeID {
	w.mustSetUp("AddNode")
	id := NodeID(len(w.nodes))
	w.nodes = append(w.nodes, Node{ID: id, Name: name})
	w.net.grow(len(w.nodes))
	return id
}

// AddActor creates a message-handling process on node n (shard -1 if the
// node is not sharded).
func (w *World) AddActor(n NodeID, shard int, name string) ProcID {
	return w.addProc(n, shard, name, Actor)
}

// AddThread creates a thread whose first step runs at start.
func (w *World) AddThread(n NodeID, shard int, name string, start Time) ProcID {
	id := w.addProc(n, shard, name, Thread)
	w.schedule1(Event{At: w.delay(start), Proc: id, Kind: EvStep, Cause: -1})
	return id
}

func (w *World) addProc(n NodeID, shard int, name string, kind ProcKind) ProcID {
	w.mustSetUp("AddProc")
	id := ProcID(len(w.procs))
	w.procs = append(w.procs, Proc{ID: id, Node: n, Shard: shard, Name: name, Kind: kind, BlockedOn: None, WaitingOn: None})
	return id
}

// DefineSeries declares a time series sampled with Sample.
func (w *World) DefineSeries(name, unit, group string) SeriesID {
	w.mustSetUp("DefineSeries")
	w.series = append(w.series, SeriesDef{Name: name, Unit: unit, Group: group})
	w.last = append(w.last, 0)
	return SeriesID(len(w.series) - 1)
}

// SeriesDefs lists the declared series.
func (w *World) SeriesDefs() []SeriesDef { return w.series }

// Sample records value v of series s at the current step when it changed.
func (w *World) Sample(s SeriesID, v float64) {
	if w.trace == nil {
		w.last[s] = v
		return
	}
	pts := w.trace.Series[s]
	if len(pts) > 0 && w.last[s] == v {
		return
	}
	w.last[s] = v
	w.trace.Series[s] = append(pts, Point{Step: int32(w.steps), Time: w.now, Value: v})
}

// delay maps a duration to zero in untimed mode.
func (w *World) delay(d Time) Time {
	if w.untimed {
		return 0
	}
	if d < 0 {
		panic("sim: negative delay")
	}
	return d
}

func (w *World) schedule1(e Event) {
	e.At += w.now
	e.seq = w.seq
	w.seq++
	e.inc = w.nodes[w.procs[e.Proc].Node].Incarnation
	w.queue.push(e)
}

// SetTimer fires a timer for process p after d with the model's tag; the
// returned id cancels it.
func (w *World) SetTimer(p ProcID, d Time, tag int) int64 {
	w.timerSeq++
	w.schedule1(Event{At: w.delay(d), Proc: p, Kind: EvTimer, Timer: tag, TimerID: w.timerSeq, Cause: w.causeHere()})
	return w.timerSeq
}

// CancelTimer cancels a timer that has not fired yet.
func (w *World) CancelTimer(id int64) {
	if w.cancelled == nil {
		w.cancelled = map[int64]struct{}{}
	}
	w.cancelled[id] = struct{}{}
}

func (w *World) causeHere() int32 {
	if !w.started {
		return -1
	}
	return int32(w.steps)
}

// Choose asks the chooser for a value in [0, n). With n <= 1 it returns 0
// and records nothing.
func (w *World) Choose(n int, label string) int {
	if n <= 1 {
		return 0
	}
	return w.choose(ChooseValue, n, label, nil)
}

// Chance returns true with probability p (a choice over 2^16 outcomes).
func (w *World) Chance(p float64, label string) bool {
	switch {
	case p <= 0:
		return false
	case p >= 1:
		return true
	}
	return w.Choose(1<<16, label) < int(p*(1<<16))
}

// Between draws a duration uniformly in [lo, hi] at the given resolution
// (hi-lo is divided into steps of res; res <= 0 means 1 ns).
func (w *World) Between(lo, hi, res Time, label string) Time {
	if w.untimed || hi <= lo {
		return lo
	}
	if res <= 0 {
		res = 1
	}
	n := int((hi-lo)/res) + 1
	k := w.Choose(n, label)
	if n > 1 && w.trace != nil && w.err == nil {
		// The what-if view offers the duration itself, not option k.
		c := &w.trace.Choices[len(w.trace.Choices)-1]
		c.Lo, c.Res = lo, res
	}
	return lo + Time(k)*res
}

func (w *World) choose(kind ChoiceKind, n int, label string, procs []ProcID) int {
	if w.err != nil {
		return 0
	}
	c := &w.choice
	*c = Choice{N: n, Kind: kind, Label: label, Procs: procs, Step: w.steps}
	v := w.chooser.Choose(c)
	if v < 0 || v >= n {
		w.fail(fmt.Errorf("%w: choice %d (%s at step %d) is %d, but only %d options exist",
			ErrScheduleMismatch, len(w.schedule), label, w.steps, v, n))
		return 0
	}
	w.schedule = append(w.schedule, v)
	if w.trace != nil {
		w.trace.Choices = append(w.trace.Choices, ChoiceRecord{Step: int32(w.steps), N: int32(n), Picked: int32(v), Kind: kind, Label: label})
	}
	return v
}

func (w *World) fail(err error) {
	if w.err == nil {
		w.err = err
		w.stop = StopError
	}
}

// Failf stops the run with a model error (a model broke its own rules).
func (w *World) Failf(format string, args ...any) {
	w.fail(fmt.Errorf("%w: %s", ErrModel, fmt.Sprintf(format, args...)))
}

// ProcName names a process for messages: "name" or "name@node".
func (w *World) ProcName(p ProcID) string {
	if p < 0 || int(p) >= len(w.procs) {
		return "none"
	}
	return w.procs[p].Name
}

// ChooserOf returns the world's chooser.
func (w *World) ChooserOf() Chooser { return w.chooser }
