package sim_test

import (
	"errors"
	"testing"

	"github.com/racetrack-sim/racetrack/core/sim"
)

// twoSteps is a model whose one thread runs a program with a hole at pc 1.
type twoSteps struct{ ran int }

var holed = sim.Program[*twoSteps]{
	0: {Says: "works", In: "main", Do: func(m *twoSteps, _ *sim.World, p *sim.Proc) sim.Action {
		m.ran++
		p.PC = 2
		return sim.Local("work", 0)
	}},
	2: {Describe: func(m *twoSteps, _ *sim.World, _ *sim.Proc, who string) string { return who + " jumps into the hole" },
		Do: func(m *twoSteps, _ *sim.World, p *sim.Proc) sim.Action {
			p.PC = 1
			return sim.Local("jump", 0)
		}},
}

func (m *twoSteps) Init(w *sim.World) {
	w.AddThread(w.AddNode("n"), -1, "t", 0)
}
func (m *twoSteps) Handle(w *sim.World, p *sim.Proc, _ *sim.Event) sim.Action {
	return holed.Run(m, w, p)
}
func (m *twoSteps) Properties() []sim.Property { return nil }
func (m *twoSteps) Clone() sim.Model           { c := *m; return &c }
func (m *twoSteps) Hash(h *sim.Hasher)         { h.Int(m.ran) }

func TestProgramRunsDescribesAndFindsHoles(t *testing.T) {
	if miss := holed.Missing(); len(miss) != 1 || miss[0] != 1 {
		t.Errorf("Missing() = %v, want [1]", miss)
	}
	m := &twoSteps{}
	w := sim.NewWorld(m, 1, sim.NewRandomChooser(1), sim.Options{})
	p := w.Proc(0)
	if got := holed.Describe(m, w, p, "t"); got != "t works" || holed.In(p.PC) != "main" {
		t.Errorf("pc 0 reads %q in %q", got, holed.In(p.PC))
	}
	err := w.Run(sim.Limits{MaxSteps: 10})
	if m.ran != 1 || !errors.Is(err, sim.ErrModel) {
		t.Fatalf("ran %d, error %v; want a model error at the hole", m.ran, err)
	}
	if got := holed.Describe(m, w, p, "t"); got != "t " {
		t.Errorf("the hole reads %q", got)
	}
}
