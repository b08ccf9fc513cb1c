package check_test

import (
	"testing"

	"github.com/racetrack-sim/racetrack/core/check"
	"github.com/racetrack-sim/racetrack/core/scenario"
	"github.com/racetrack-sim/racetrack/core/sim"
)

// barge: t0 holds a mutex while t1 comes to lock it; t2 arrives after
// t1 asked and locks it too. A FIFO mutex goes to t1 before t2; a Go
// mutex (sim.MutexGo) may go to t2 first, between t0's unlock and the
// woken t1's try. The partial-order reduction must not take the woken t1's try
// alone, as it may take a FIFO hand-off.
type barge struct {
	Kind    sim.MutexKind
	Asked   int // the order in which t1 asked and t2 arrived: 1 t1 first
	Arrived int
	n       int
	Got     []sim.ProcID
}

// barged reports whether t2, arriving after t1 asked for the mutex, got
// it before t1 (the last to get it before either is t0).
func (b *barge) barged() bool {
	if b.Asked == 0 || b.Arrived < b.Asked {
		return false
	}
	for _, p := range b.Got {
		if p != 0 {
			return p == 2
		}
	}
	return false
}

// waiter-first is checked as an end state (an Eventually whose
// obligation, once raised, is never met), so that partial-order
// reduction stays on: an invariant (Always) would turn it off.
var bargeProps = sim.Props[*barge]{
	sim.Eventually("waiter-first", "t2, arriving after t1 asked for the mutex, does not get it first",
		func(*barge) sim.Time { return 1 << 40 },
		func(_ *sim.World, b *barge) (bool, sim.Time) { return b.barged(), 0 },
		func(_ *sim.World, b *barge) string { return "t2 got the mutex before t1" }),
}

func (b *barge) Init(w *sim.World) {
	w.SetUntimed(true)
	n := w.AddNode("n")
	w.AddMutexKind(n, "mu", b.Kind)
	for _, name := range []string{"t0", "t1", "t2"} {
		w.AddThread(n, -1, name, 0)
	}
}

func (b *barge) Handle(w *sim.World, p *sim.Proc, _ *sim.Event) sim.Action {
	pc := p.PC
	p.PC++
	if p.ID == 2 {
		if pc == 0 {
			b.n++
			b.Arrived = b.n
			return sim.Local("arrive", 0)
		}
		pc--
	}
	switch pc {
	case 0:
		if p.ID == 1 {
			b.n++
			b.Asked = b.n
		}
		return sim.Lock(0, "lock")
	case 1:
		b.Got = append(b.Got, p.ID)
		return sim.Local("holds", 0)
	case 2:
		return sim.Unlock(0, "unlock")
	default:
		p.PC = 100
		return sim.Exit("done")
	}
}

func (b *barge) Describe(w *sim.World, ev *sim.Event) string { return w.Proc(ev.Proc).Name }
func (b *barge) Properties() []sim.Property                  { return bargeProps.Of(b) }

// Accesses: asking and arriving both number themselves in n (bit 0),
// and every thread that gets the mutex appends to Got (bit 1); a
// waiter's try at the mutex touches no model state, so the reduction
// would take it alone if it took a Go mutex's try for a hand-off.
func (b *barge) Accesses(w *sim.World, p sim.ProcID) (reads, writes uint64, ok bool) {
	switch pc := w.Proc(p).PC; {
	case pc == 1 && p != 2 && w.Mutex(0).Holder != p, pc == 2 && p == 2 && w.Mutex(0).Holder != p:
		return 0, 0, true // the kernel's try at the mutex: no model state
	case pc == 0 && p != 0:
		return 1, 1, true
	case pc == 1 && p != 2, pc == 2 && p == 2:
		return 2, 2, true
	}
	return 0, 0, true
}
func (b *barge) Clone() sim.Model {
	d := *b
	d.Got = append([]sim.ProcID(nil), b.Got...)
	return &d
}
func (b *barge) Hash(h *sim.Hasher) {
	h.Int(b.Asked)
	h.Int(b.Arrived)
	h.Int(b.n)
	for _, p := range b.Got {
		h.Int(int(p))
	}
}
func (b *barge) View(*sim.World) sim.View { return sim.View{} }

func bargeRegistry() *scenario.Registry {
	return scenario.NewRegistry(&scenario.Scenario{
		ID: "barge", Title: "a newcomer and a woken waiter",
		Variants:   []scenario.Variant{{ID: "fifo", Title: "FIFO mutex"}, {ID: "go", Title: "Go mutex"}},
		Presets:    []scenario.Preset{{ID: "three", Title: "three threads", Params: map[string]any{}, MaxTime: 100, MaxSteps: 100}},
		Properties: bargeProps.Info(),
		New: func(variant string, _ scenario.Values) (sim.Model, error) {
			if variant == "go" {
				return &barge{Kind: sim.MutexGo}, nil
			}
			return &barge{Kind: sim.MutexFIFO}, nil
		},
	})
}

// TestReductionsKeepABargingNewcomer: with every reduction on, bfs and
// dfs find the schedule in which a newcomer takes a Go mutex ahead of
// the waiter it woke, and verify that none exists with a FIFO mutex.
func TestReductionsKeepABargingNewcomer(t *testing.T) {
	reg := bargeRegistry()
	for _, strategy := range []string{check.BFS, check.DFS} {
		for _, variant := range []string{"fifo", "go"} {
			cfg := check.Config{Scenario: "barge", Preset: "three", Variant: variant, Strategy: strategy,
				Reductions: check.Reductions{Sleep: true, POR: true}, Budget: check.Budget{States: 100_000}}
			r := search(t, reg, cfg)
			if !r.Reductions.POR {
				t.Fatalf("%s/%s: reductions %+v, want a partial-order reduction on", strategy, variant, r.Reductions)
			}
			if want := variant == "go"; r.Found != want || !r.Exhaustive && !r.Found {
				t.Fatalf("%s/%s: found %v (exhaustive %v), want %v", strategy, variant, r.Found, r.Exhaustive, want)
			}
		}
	}
}
