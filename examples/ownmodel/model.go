// Package ownmodel is a Racetrack model that lives in its own module: a
// client that checks its lease, pauses, and writes after the lease has
// expired and passed to another client. Unfenced, the storage accepts the
// stale write and it overwrites the new holder's; with fencing tokens the
// storage refuses a token older than one it has seen. (Martin Kleppmann,
// "How to do distributed locking", 2016.)
//
// Replace the state, the steps and the properties with your own race:
// the shape stays. Like a model in Racetrack's core it performs no I/O
// and reads no clock.
package ownmodel

import (
	"fmt"
	"strconv"

	"github.com/racetrack-sim/racetrack/core/scenario"
	"github.com/racetrack-sim/racetrack/core/sim"
)

// Lease is the model's state: the lease service, the storage, and what
// each client believes. Clients are numbered 1 and 2; index 0 is unused.
type Lease struct {
	// Configuration, fixed by New.
	fencing bool
	pause   int

	// The lease service: who holds the lease (0: nobody), the last token
	// it granted.
	Holder, Granted int
	// What each client holds and believes: its token, and that it checked
	// the lease valid and has not written yet.
	Token    [3]int
	Believes [3]bool
	// Paused counts client1's steps of pause so far.
	Paused int
	// The storage: the token of the write it holds, whose it is, and the
	// highest token it has accepted.
	Stored, StoredBy, Highest int
	// Clobbered says how a stale write overwrote a newer one ("" if not).
	Clobbered string
}

// New builds the model: client1 pauses for pause steps between its check
// and its write; fencing selects the fixed variant.
func New(pause int, fencing bool) *Lease { return &Lease{pause: pause, fencing: fencing} }

// Processes, in the order Init adds them.
const (
	procClient1 = iota
	procClock
	procClient2
)

// Init creates one node and three threads: client1 starts holding the
// lease (token 1), the lease clock expires it at some point, and client2
// waits for it. Steps take no time: only the scheduler orders them.
func (l *Lease) Init(w *sim.World) {
	w.SetUntimed(true)
	node := w.AddNode("cluster")
	w.AddThread(node, -1, "client1", 0)
	w.AddThread(node, -1, "lease-clock", 0)
	w.AddThread(node, -1, "client2", 0)
	l.Holder, l.Granted, l.Token[1] = 1, 1, 1
}

// Program counters.
const (
	pcCheck = iota // client1: check the lease
	pcPause        // client1: paused (a GC pause, a slow disk)
	pcWrite        // client1: write with its token, and end
)

const (
	pcExpire = iota // lease clock: expire client1's lease, and end
)

const (
	pcAcquire = iota // client2: ask for the lease
	pcWrite2         // client2: write with its token, and end
)

var client1 = sim.Program[*Lease]{
	pcCheck: {In: "work", Says: "checks its lease", Do: func(l *Lease, w *sim.World, p *sim.Proc) sim.Action {
		if l.Holder != 1 {
			return sim.Exit("lease lost: gives up")
		}
		l.Believes[1] = true
		p.PC = pcPause
		if l.pause == 0 {
			p.PC = pcWrite
		}
		return sim.Local("lease valid (token 1)", 0)
	}},
	pcPause: {In: "work", Says: "is paused", Do: func(l *Lease, w *sim.World, p *sim.Proc) sim.Action {
		l.Paused++
		if l.Paused == l.pause {
			p.PC = pcWrite
		}
		return sim.Local("paused "+strconv.Itoa(l.Paused)+"/"+strconv.Itoa(l.pause), 0)
	}},
	pcWrite: {In: "work", Says: "writes with token 1", Do: func(l *Lease, w *sim.World, p *sim.Proc) sim.Action {
		return sim.Exit(l.write(1))
	}},
}

var clock = sim.Program[*Lease]{
	pcExpire: {In: "lease service", Says: "expires client1's lease", Do: func(l *Lease, w *sim.World, p *sim.Proc) sim.Action {
		if l.Holder == 1 {
			l.Holder = 0
		}
		return sim.Exit("lease of client1 expires")
	}},
}

var client2 = sim.Program[*Lease]{
	pcAcquire: {In: "acquire", Says: "asks for the lease", Do: func(l *Lease, w *sim.World, p *sim.Proc) sim.Action {
		if l.Holder != 0 {
			return sim.Local("lease held by client"+strconv.Itoa(l.Holder)+": retry", 0)
		}
		l.Granted++
		l.Holder, l.Token[2] = 2, l.Granted
		p.PC = pcWrite2
		return sim.Local("granted token "+strconv.Itoa(l.Granted), 0)
	}},
	pcWrite2: {In: "work", Says: "writes with its token", Do: func(l *Lease, w *sim.World, p *sim.Proc) sim.Action {
		return sim.Exit(l.write(2))
	}},
}

// write is client c's write as the storage takes it; it returns the
// step's label.
func (l *Lease) write(c int) string {
	token := l.Token[c]
	l.Believes[c] = false
	if l.fencing && token < l.Highest {
		return fmt.Sprintf("storage refuses token %d < %d", token, l.Highest)
	}
	if token < l.Highest && l.Clobbered == "" {
		l.Clobbered = fmt.Sprintf("client%d's write (token %d) overwrote client%d's (token %d) after its lease expired", c, token, l.StoredBy, l.Stored)
	}
	l.Stored, l.StoredBy, l.Highest = token, c, max(l.Highest, token)
	return fmt.Sprintf("storage takes token %d", token)
}

func (l *Lease) program(p *sim.Proc) sim.Program[*Lease] {
	switch p.ID {
	case procClient1:
		return client1
	case procClock:
		return clock
	}
	return client2
}

// Handle runs the next step of thread p.
func (l *Lease) Handle(w *sim.World, p *sim.Proc, ev *sim.Event) sim.Action {
	return l.program(p).Run(l, w, p)
}

// Describe says what a pending step would do (the what-if menu).
func (l *Lease) Describe(w *sim.World, ev *sim.Event) string {
	p := w.Proc(ev.Proc)
	return l.program(p).Describe(l, w, p, p.Name)
}

// Names of the properties.
const (
	NoStaleWrite = "no-stale-write"
	StaleHolder  = "stale-holder"
)

var properties = sim.Props[*Lease]{
	sim.NoDeadlockProp[*Lease]("no thread waits forever"),
	sim.Always(NoStaleWrite, "a write from an expired lease never overwrites the new holder's",
		func(_ *sim.World, l *Lease) bool { return l.Clobbered == "" },
		func(_ *sim.World, l *Lease) string { return l.Clobbered }),
	sim.Sometimes(StaleHolder, "client2 holds the lease while client1 still believes it does: the situation the stale write needs",
		func(_ *sim.World, l *Lease) bool { return l.Holder == 2 && l.Believes[1] },
		func(_ *sim.World, l *Lease) string {
			return "client1 checked token 1; client2 holds token " + strconv.Itoa(l.Token[2])
		}),
}

// Properties binds the properties for one world.
func (l *Lease) Properties() []sim.Property { return properties.Of(l) }

// Clone copies the state (it holds no slices or maps).
func (l *Lease) Clone() sim.Model {
	c := *l
	return &c
}

// Hash folds everything that decides what happens next.
func (l *Lease) Hash(h *sim.Hasher) {
	for _, v := range []int{l.Holder, l.Granted, l.Token[1], l.Token[2], l.Paused, l.Stored, l.StoredBy, l.Highest} {
		h.Int(v)
	}
	h.Bool(l.Believes[1])
	h.Bool(l.Believes[2])
	h.Bool(l.Clobbered != "")
}

// View is what the state inspector shows.
func (l *Lease) View(w *sim.World) sim.View {
	holder := "nobody"
	if l.Holder != 0 {
		holder = "client" + strconv.Itoa(l.Holder)
	}
	groups := []sim.Group{
		{ID: "lease", Title: "lease service", Fields: []sim.Field{
			{Name: "holder", Value: holder},
			{Name: "last token", Value: strconv.Itoa(l.Granted)},
		}},
		{ID: "storage", Title: "storage", Fields: []sim.Field{
			{Name: "holds token", Value: strconv.Itoa(l.Stored)},
			{Name: "highest token", Value: strconv.Itoa(l.Highest)},
		}},
	}
	for c := 1; c <= 2; c++ {
		groups = append(groups, sim.Group{ID: "client" + strconv.Itoa(c), Title: "client" + strconv.Itoa(c), Fields: []sim.Field{
			{Name: "token", Value: strconv.Itoa(l.Token[c])},
			{Name: "believes it holds the lease", Value: strconv.FormatBool(l.Believes[c])},
		}})
	}
	return sim.View{Groups: groups}
}

// Variant is a version of the storage.
type Variant string

// The variants.
const (
	Unfenced Variant = "unfenced"
	Fencing  Variant = "fencing"
)

// Params are the model's parameters; the tags are their schema.
type Params struct {
	Pause int `default:"3" min:"0" max:"50" unit:"steps" help:"how long client1 stays paused between its check and its write"`
}

// capabilities is what the model offers beyond sim.Model; the compiler
// checks every method named. SharesUnlockedState tells the checker that
// the threads share the lease and the storage without a kernel mutex:
// its sleep-set and partial-order reductions must then treat every pair
// of steps as dependent, or they would miss the race.
var capabilities = sim.Capabilities[*Lease]{
	Describe:            (*Lease).Describe,
	View:                (*Lease).View,
	SharesUnlockedState: func(*Lease) bool { return true },
}

// Scenario is the catalog entry.
func Scenario() *scenario.Scenario {
	return scenario.Model[*Lease, Params, Variant]{
		ID:      "ownmodel",
		Title:   "Stale lease holder overwrites (a model in its own module)",
		Summary: "A client checks its lease, pauses, and writes after the lease passed to another client: the storage takes the stale write.",
		Story: "client1 holds a lease, checks that it is still valid, and pauses (a GC pause, a slow disk) before writing. " +
			"Meanwhile the lease expires and client2 is granted it with token 2 and writes. When client1 resumes, its " +
			"write with token 1 overwrites client2's. A fencing token fixes it: the storage refuses a token older than " +
			"the highest it has accepted.",
		Links: []scenario.Link{{Title: "How to do distributed locking (fencing tokens)", URL: "https://martin.kleppmann.com/2016/02/08/how-to-do-distributed-locking.html"}},
		Variants: []scenario.VariantOf[Variant]{
			{ID: Unfenced, Title: "storage takes any write", Help: "the storage accepts a write from whoever believes it holds the lease"},
			{ID: Fencing, Title: "fencing tokens", Help: "the storage refuses a token lower than the highest it has accepted"},
		},
		Presets: []scenario.Preset{
			{ID: "two-clients", Title: "Two clients, one lease", Story: "Every step is a scheduling choice.",
				Params: scenario.Set(func(*Params) {}), MaxTime: 1000, MaxSteps: 1000, Property: NoStaleWrite, Reach: StaleHolder},
		},
		Props:        properties,
		Capabilities: capabilities,
		New: func(v Variant, p Params) (*Lease, error) {
			return New(p.Pause, v == Fencing), nil
		},
	}.Scenario()
}
