package check_test

import (
	"strconv"
	"testing"

	"github.com/racetrack-sim/racetrack/core/check"
	"github.com/racetrack-sim/racetrack/core/scenario"
	"github.com/racetrack-sim/racetrack/core/sim"
)

// counter is a lost update with no mutex at all: each of two threads
// reads X into its own register, then writes the register plus one. Its
// steps touch no kernel mutex, so an explorer that took "no mutex" for
// "no shared state" would let them commute and prune the interleaving
// that loses an update. The model implements neither
// check.UnlockedSharing nor check.SharedAccess: the safe default must
// treat its steps as dependent.
type counter struct {
	X   int
	Reg []int
}

const (
	pcRead = iota
	pcWrite
	pcDone
)

var counterProps = sim.Props[*counter]{
	sim.Always("no-lost-update", "when both threads are done, X counts both increments",
		func(w *sim.World, c *counter) bool {
			for _, p := range w.Procs() {
				if p.PC != pcDone+1 {
					return true
				}
			}
			return c.X == len(c.Reg)
		},
		func(_ *sim.World, c *counter) string { return "X is " + strconv.Itoa(c.X) }),
}

func (c *counter) Init(w *sim.World) {
	w.SetUntimed(true)
	n := w.AddNode("n")
	for i := range c.Reg {
		w.AddThread(n, -1, "t"+strconv.Itoa(i), 0)
	}
}

func (c *counter) Handle(w *sim.World, p *sim.Proc, _ *sim.Event) sim.Action {
	switch p.PC {
	case pcRead:
		c.Reg[p.ID] = c.X
		p.PC = pcWrite
		return sim.Local("read X", 0)
	case pcWrite:
		c.X = c.Reg[p.ID] + 1
		p.PC = pcDone
		return sim.Local("write X", 0)
	default:
		p.PC = pcDone + 1
		return sim.Exit("done")
	}
}

func (c *counter) Describe(w *sim.World, ev *sim.Event) string { return w.Proc(ev.Proc).Name }
func (c *counter) Properties() []sim.Property                  { return counterProps.Of(c) }
func (c *counter) Clone() sim.Model {
	d := *c
	d.Reg = append([]int(nil), c.Reg...)
	return &d
}
func (c *counter) Hash(h *sim.Hasher) {
	h.Int(c.X)
	for _, r := range c.Reg {
		h.Int(r)
	}
}
func (c *counter) View(*sim.World) sim.View { return sim.View{} }

func counterRegistry() *scenario.Registry {
	return scenario.NewRegistry(&scenario.Scenario{
		ID: "counter", Title: "lost update",
		Variants:   []scenario.Variant{{ID: "racy", Title: "racy"}},
		Presets:    []scenario.Preset{{ID: "two", Title: "two threads", Params: map[string]any{}, MaxTime: 100, MaxSteps: 100}},
		Properties: counterProps.Info(),
		New: func(string, scenario.Values) (sim.Model, error) {
			return &counter{Reg: make([]int, 2)}, nil
		},
	})
}

// A model that declares nothing about how its threads share state is
// searched without sleep sets or persistent sets, and every strategy
// finds its lost update.
func TestUndeclaredSharingIsNeverReduced(t *testing.T) {
	reg := counterRegistry()
	for _, strategy := range []string{check.BFS, check.DFS} {
		t.Run(strategy, func(t *testing.T) {
			cfg := check.Config{Scenario: "counter", Preset: "two", Variant: "racy", Strategy: strategy,
				Reductions: check.DefaultReductions(strategy), Budget: check.Budget{States: 10_000}}
			r := search(t, reg, cfg)
			if !r.Found || r.Property != "no-lost-update" {
				t.Fatalf("%s with default reductions: found %v (%q), want the lost update", strategy, r.Found, r.Property)
			}
			if r.Reductions.Sleep || r.Reductions.POR || r.Reductions.DPOR {
				t.Fatalf("%s applied %+v to a model that declared no sharing", strategy, r.Reductions)
			}
		})
	}
}
