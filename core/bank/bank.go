// Package bank is the model that docs/writing-a-model.md builds, step by
// step: two clerks withdraw from one account. The check-then-act variant
// checks the balance under the account's lock, lets go, and takes the
// lock again to debit: both clerks can approve before either debits, and
// the balance goes negative. The fixed variant checks and debits under
// one hold of the lock.
//
// Like all of core it performs no I/O and reads no clock.
package bank

import (
	"fmt"
	"strconv"

	"github.com/racetrack-sim/racetrack/core/scenario"
	"github.com/racetrack-sim/racetrack/core/sim"
)

// Account is the model's state: the balance, each clerk's approval, and
// the kernel ids made in Init.
type Account struct {
	// Configuration, fixed by New.
	clerks, amount int
	atomic         bool

	// State.
	Balance  int
	Approved []bool

	// Kernel ids.
	lock sim.MutexID
}

// New builds an account holding balance, with clerks clerks who each
// withdraw amount; atomic selects the fixed variant.
func New(balance, clerks, amount int, atomic bool) *Account {
	return &Account{Balance: balance, clerks: clerks, amount: amount, atomic: atomic}
}

// Init creates the bank's node, the account's lock and one thread per
// clerk. Steps take no time: only the scheduler orders them, which is
// what the exhaustive checker needs.
func (a *Account) Init(w *sim.World) {
	w.SetUntimed(true)
	node := w.AddNode("bank")
	a.lock = w.AddMutex(node, "account")
	for i := range a.clerks {
		w.AddThread(node, -1, "clerk"+strconv.Itoa(i+1), 0)
	}
	a.Approved = make([]bool, a.clerks)
}

// Program counters of a clerk: each is the next step the clerk runs.
const (
	pcLock   = iota // take the account's lock
	pcCheck         // check the balance (fixed: and debit)
	pcRelock        // check-then-act: take the lock again
	pcDebit         // check-then-act: debit what was approved
	pcDone
)

// clerk is a clerk's program: each step with what it does and how it
// reads, keyed by its program counter.
var clerk = sim.Program[*Account]{
	pcLock: {In: "withdraw", Says: "takes the account lock", Do: func(a *Account, w *sim.World, p *sim.Proc) sim.Action {
		p.PC = pcCheck
		return sim.Lock(a.lock, "lock account")
	}},
	pcCheck: {In: "withdraw", Says: "checks the balance", Do: func(a *Account, w *sim.World, p *sim.Proc) sim.Action {
		ok := a.Balance >= a.amount
		if a.atomic {
			p.PC = pcDone
			if ok {
				a.Balance -= a.amount
				return sim.Unlock(a.lock, "balance ok: debit "+strconv.Itoa(a.amount)+"; unlock")
			}
			return sim.Unlock(a.lock, "insufficient funds; unlock")
		}
		a.Approved[p.ID] = ok
		p.PC = pcRelock
		if !ok {
			p.PC = pcDone
		}
		return sim.Unlock(a.lock, "balance ok="+strconv.FormatBool(ok)+"; unlock")
	}},
	pcRelock: {In: "withdraw", Says: "takes the lock again to debit", Do: func(a *Account, w *sim.World, p *sim.Proc) sim.Action {
		p.PC = pcDebit
		return sim.Lock(a.lock, "lock account again")
	}},
	pcDebit: {In: "withdraw", Says: "debits and lets go", Do: func(a *Account, w *sim.World, p *sim.Proc) sim.Action {
		a.Balance -= a.amount
		a.Approved[p.ID] = false
		p.PC = pcDone
		return sim.Unlock(a.lock, "debit "+strconv.Itoa(a.amount)+"; unlock")
	}},
	pcDone: {In: "done", Says: "leaves", Do: func(*Account, *sim.World, *sim.Proc) sim.Action {
		return sim.Exit("done")
	}},
}

// Handle runs the next step of clerk p.
func (a *Account) Handle(w *sim.World, p *sim.Proc, ev *sim.Event) sim.Action {
	return clerk.Run(a, w, p)
}

// Describe says what a pending step would do (the what-if menu).
func (a *Account) Describe(w *sim.World, ev *sim.Event) string {
	p := w.Proc(ev.Proc)
	if ev.Kind == sim.EvAcquire {
		return p.Name + " gets " + w.Mutex(ev.Mutex).Name
	}
	return clerk.Describe(a, w, p, p.Name)
}

// Names of the properties.
const (
	NoOverdraft = "no-overdraft"
	Contended   = "lock-contended"
)

// properties are declared once: the kernel checks them, the catalog
// lists them. Each check receives the state being checked.
var properties = sim.Props[*Account]{
	sim.NoDeadlockProp[*Account]("no clerk waits for the account lock forever"),
	sim.Always(NoOverdraft, "the balance never goes below zero",
		func(_ *sim.World, a *Account) bool { return a.Balance >= 0 },
		func(_ *sim.World, a *Account) string { return fmt.Sprintf("the balance is %d", a.Balance) }),
	sim.Sometimes(Contended, "a clerk waits for the account lock while another holds it: the interleaving the overdraft needs",
		func(w *sim.World, a *Account) bool { return len(w.Mutex(a.lock).Waiters) > 0 },
		func(w *sim.World, a *Account) string { return w.DescribeMutex(a.lock) }),
}

// Properties binds the properties for one world.
func (a *Account) Properties() []sim.Property { return properties.Of(a) }

func (a *Account) approved() int {
	n := 0
	for _, ok := range a.Approved {
		if ok {
			n++
		}
	}
	return n
}

// Clone copies the state; slices are copied, never shared.
func (a *Account) Clone() sim.Model {
	c := *a
	c.Approved = append([]bool(nil), a.Approved...)
	return &c
}

// Hash folds everything that decides what happens next; the kernel
// hashes the threads, locks and events itself.
func (a *Account) Hash(h *sim.Hasher) {
	h.Int(a.Balance)
	for _, ok := range a.Approved {
		h.Bool(ok)
	}
}

// View is what the state inspector shows.
func (a *Account) View(w *sim.World) sim.View {
	g := sim.Group{ID: "account", Title: "account", Fields: []sim.Field{
		{Name: "balance", Value: strconv.Itoa(a.Balance)},
		{Name: "approved, not debited", Value: strconv.Itoa(a.approved())},
		{Name: "lock", Value: w.DescribeMutex(a.lock)},
	}}
	return sim.View{Groups: []sim.Group{g}}
}

// Variant is a version of the withdrawal.
type Variant string

// The variants.
const (
	CheckThenAct Variant = "check-then-act"
	Atomic       Variant = "atomic"
)

// Params are the model's parameters; the tags are their schema.
type Params struct {
	Balance int `default:"100" min:"0" max:"1000000" help:"the account's opening balance"`
	Clerks  int `default:"2" min:"1" max:"8" help:"clerks, each withdrawing once"`
	Amount  int `default:"80" min:"1" max:"1000000" help:"what each clerk withdraws"`
}

// capabilities is what the model offers beyond sim.Model; the compiler
// checks every method named.
var capabilities = sim.Capabilities[*Account]{
	Describe:            (*Account).Describe,
	View:                (*Account).View,
	SharesUnlockedState: (*Account).SharesUnlockedState,
}

// Scenario is the catalog entry.
func Scenario() *scenario.Scenario {
	return scenario.Model[*Account, Params, Variant]{
		ID:      "bank-overdraft",
		Title:   "Bank overdraft (the tutorial model)",
		Summary: "Two clerks check a balance under a lock, let go, and debit later: both approve, the account goes negative.",
		Story: "The model docs/writing-a-model.md builds. A withdrawal checks the balance and debits it; done under two " +
			"separate holds of the account's lock (check-then-act), two clerks can both see enough money before either " +
			"debits. Holding the lock across the check and the debit fixes it.",
		Links: []scenario.Link{{Title: "docs/writing-a-model.md", URL: "https://github.com/racetrack-sim/racetrack/blob/main/docs/writing-a-model.md"}},
		Variants: []scenario.VariantOf[Variant]{
			{ID: CheckThenAct, Title: "check, unlock, debit", Help: "the balance is checked under the lock and debited under a second hold of it"},
			{ID: Atomic, Title: "check and debit under one lock", Help: "the check and the debit happen under one hold of the lock"},
		},
		Presets: []scenario.Preset{
			{ID: "two-clerks", Title: "Two clerks, 100 in the account, 80 each", Story: "Every step is a scheduling choice.",
				Params: scenario.Set(func(*Params) {}), MaxTime: 1000, MaxSteps: 1000, Property: NoOverdraft, Reach: Contended},
		},
		Props:        properties,
		Capabilities: capabilities,
		New: func(v Variant, p Params) (*Account, error) {
			return New(p.Balance, p.Clerks, p.Amount, v == Atomic), nil
		},
	}.Scenario()
}
