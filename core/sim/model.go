package sim

// Model is a system under simulation. The kernel owns time, the queue,
// processes, locks and the network; the model owns everything else and
// reacts to events one step at a time.
type Model interface {
	// Init creates the nodes, processes, mutexes and series, configures
	// the network, and schedules the first events. It runs once, before
	// the first step; processes cannot be added later.
	Init(w *World)
	// Handle runs one step of process p. For an actor, ev is a delivered
	// message or a fired timer and the returned Action only names the step
	// (Label) ; for a thread, ev is its next atomic step and the Action says
	// what the step does (lock, unlock, wait, work, sleep, exit). The model
	// advances p.PC itself.
	Handle(w *World, p *Proc, ev *Event) Action
	// Properties lists what must hold, checked after every step: a
	// model declares them once as a package-level Props[M] (their checks
	// receive the state, typed, so none can read a stale model) and
	// returns props.Of(m); its catalog entry lists props.Info().
	Properties() []Property
	// Clone returns an independent deep copy of the model's state.
	Clone() Model
	// Hash folds the model's state into h canonically: two states that
	// behave the same must hash the same, however they were reached.
	Hash(h *Hasher)
}

// Labeler is implemented by message payloads that name themselves in the
// trace; other payloads are named by their type.
type Labeler interface {
	Label() string
}

// ActionKind is what a thread's step does after its local effects.
type ActionKind uint8

// Action kinds.
const (
	ActLocal     ActionKind = iota // local work taking Cost; actors always use it
	ActLock                        // acquire Mutex, blocking if held
	ActUnlock                      // release Mutex, handing it to the first waiter
	ActWait                        // release Cond's mutex and wait for a signal, then reacquire
	ActSignal                      // wake the first waiter of Cond
	ActBroadcast                   // wake every waiter of Cond
	ActSleep                       // next step after Cost, shown as a wait for time
	ActExit                        // the thread ends
)

// Action is the result of one step.
type Action struct {
	Kind  ActionKind
	Mutex MutexID
	Cond  CondID
	Cost  Time
	Label string
}

// Local is a step of local work that takes cost.
func Local(label string, cost Time) Action { return Action{Kind: ActLocal, Cost: cost, Label: label} }

// Lock acquires m.
func Lock(m MutexID, label string) Action { return Action{Kind: ActLock, Mutex: m, Label: label} }

// Unlock releases m.
func Unlock(m MutexID, label string) Action { return Action{Kind: ActUnlock, Mutex: m, Label: label} }

// Wait waits on c (releasing and later reacquiring its mutex).
func Wait(c CondID, label string) Action { return Action{Kind: ActWait, Cond: c, Label: label} }

// Signal wakes one waiter of c.
func Signal(c CondID, label string) Action { return Action{Kind: ActSignal, Cond: c, Label: label} }

// Broadcast wakes all waiters of c.
func Broadcast(c CondID, label string) Action {
	return Action{Kind: ActBroadcast, Cond: c, Label: label}
}

// Sleep resumes the thread after d.
func Sleep(d Time, label string) Action { return Action{Kind: ActSleep, Cost: d, Label: label} }

// Exit ends the thread.
func Exit(label string) Action { return Action{Kind: ActExit, Label: label} }
