package vitess

import (
	"testing"

	"github.com/racetrack-sim/racetrack/core/sim"
)

// ProcSignature is what belongs to one client alone: equal for clients
// in equal states, different as soon as one client's own state differs,
// 0 for the goroutines that are not clients.
func TestProcSignatureIsTheClientsOwnState(t *testing.T) {
	m := New(Config{Clients: 3, Cycles: 2, Ticks: 2, Events: 2, Fixed: true})
	w := sim.NewWorld(m, 1, &sim.ScriptChooser{}, sim.Options{})
	a, b, c := m.clients[0], m.clients[1], m.clients[2]
	if m.ProcSignature(w, a) != m.ProcSignature(w, b) {
		t.Fatal("two clients in their initial state have different signatures")
	}
	if m.ProcSignature(w, m.poller) != 0 {
		t.Error("the poller has a client's signature")
	}
	for name, change := range map[string]func(){
		"subscribed":             func() { m.subscribed[1] = true },
		"busy":                   func() { m.busy[1] = true },
		"batch":                  func() { m.batch[1] = 2 },
		"sending":                func() { m.sending[1] = 1 },
		"sendFailed":             func() { m.sendFailed[1] = true },
		"cyclesDone":             func() { m.cyclesDone[1] = 1 },
		"a counter past 16 bits": func() { m.cyclesDone[1] = 1 << 20 },
	} {
		before := m.ProcSignature(w, b)
		change()
		if m.ProcSignature(w, b) == before || m.ProcSignature(w, b) == m.ProcSignature(w, a) {
			t.Errorf("%s: client 1's signature did not change", name)
		}
		if m.ProcSignature(w, a) != m.ProcSignature(w, c) {
			t.Errorf("%s: changing client 1 changed another client's signature", name)
		}
		m.subscribed[1], m.busy[1], m.batch[1], m.sending[1], m.sendFailed[1], m.cyclesDone[1] = false, false, 0, 0, false, 0
	}
}
