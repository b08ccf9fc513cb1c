package sim_test

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/racetrack-sim/racetrack/core/sim"
)

// crashAndRestart is a ticker whose receiver crashes at 2.6 ms and
// restarts at 4.6 ms.
func crashAndRestart() *ticker {
	return &ticker{link: sim.Link{Min: 1500 * sim.Microsecond, Max: 1500 * sim.Microsecond, FIFO: true},
		faults: []fault{{at: 2600 * sim.Microsecond, kind: "crash"}, {at: 4600 * sim.Microsecond, kind: "restart"}}}
}

// A model without a declaration has the deprecated interfaces it
// implements translated: the ticker's Restart method is its Restart.
func TestMethodCapabilitiesFindTheDeprecatedInterfaces(t *testing.T) {
	if got := sim.MethodCapabilities(&ticker{}).Offered(); !slices.Equal(got, []string{"Restart"}) {
		t.Fatalf("ticker offers %v, want [Restart]", got)
	}
	if got := sim.MethodCapabilities(&pingPong{}).Offered(); len(got) != 0 {
		t.Fatalf("pingPong offers %v, want nothing", got)
	}
}

// A declaration is what the kernel reads, not the model's methods: the
// declared Restart runs instead of the ticker's method.
func TestDeclaredRestartRuns(t *testing.T) {
	declared := 0
	caps := sim.Capabilities[*ticker]{Restart: func(m *ticker, w *sim.World, n sim.NodeID) { declared++ }}.Erase()
	w := sim.NewWorld(crashAndRestart(), 1, sim.NewRandomChooser(1), sim.Options{Capabilities: caps})
	if err := w.Run(sim.Limits{}); err != nil {
		t.Fatal(err)
	}
	if m := w.Model().(*ticker); declared != 1 || m.restarts != 0 {
		t.Fatalf("declared Restart ran %d times and the method %d, want 1 and 0", declared, m.restarts)
	}
}

// A declaration that leaves a capability out turns it off even when the
// model has the method: a restart then fails the run, naming the hook.
func TestDeclarationWithoutRestartHasNone(t *testing.T) {
	caps := sim.Capabilities[*ticker]{}.Erase()
	w := sim.NewWorld(crashAndRestart(), 1, sim.NewRandomChooser(1), sim.Options{Capabilities: caps})
	err := w.Run(sim.Limits{})
	if !errors.Is(err, sim.ErrModel) || !strings.Contains(err.Error(), "no Restart hook") {
		t.Fatalf("run = %v, want a model error naming the missing Restart hook", err)
	}
}

// A declaration made for one model type refuses a model of another when
// the world is built, not at the first call.
func TestDeclarationForAnotherModelPanics(t *testing.T) {
	caps := sim.Capabilities[*ticker]{}.Erase()
	defer func() {
		r := recover()
		if s, _ := r.(string); !strings.Contains(s, "*sim_test.ticker") || !strings.Contains(s, "*sim_test.pingPong") {
			t.Fatalf("recovered %v, want a panic naming both types", r)
		}
	}()
	sim.NewWorld(&pingPong{}, 1, sim.NewRandomChooser(1), sim.Options{Capabilities: caps})
}

// Parts that only work together are checked together.
func TestCapabilitiesCheck(t *testing.T) {
	sym := func(*ticker, *sim.World) []sim.Permutation { return nil }
	hp := func(*ticker, *sim.Hasher, *sim.Permutation) {}
	sig := func(*ticker, *sim.World, sim.ProcID) uint64 { return 0 }
	for _, c := range []struct {
		caps sim.Capabilities[*ticker]
		want string
	}{
		{sim.Capabilities[*ticker]{Symmetries: sym}, "Symmetries and HashPermuted"},
		{sim.Capabilities[*ticker]{HashPermuted: hp}, "Symmetries and HashPermuted"},
		{sim.Capabilities[*ticker]{ProcSignature: sig}, "ProcSignature needs Symmetries"},
		{sim.Capabilities[*ticker]{Symmetries: sym, HashPermuted: hp, ProcSignature: sig}, ""},
	} {
		err := c.caps.Erase().Check()
		if (err == nil) != (c.want == "") || err != nil && !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: Check = %v, want %q", c.caps.Erase(), err, c.want)
		}
	}
}
