package vitess

import (
	"os"
	"testing"

	"github.com/racetrack-sim/racetrack/core/internal/quoted"
	"github.com/racetrack-sim/racetrack/core/sim"
)

// TestMessagerLogIsDeclared: the mapping passes the capabilities'
// check, is the model's default, and binds the program's lanes: clients
// by number within the model's, the left-out lanes to None, and no
// other.
func TestMessagerLogIsDeclared(t *testing.T) {
	if err := capabilities.Check(); err != nil {
		t.Fatal(err)
	}
	lm, ok := capabilities.Log("")
	if !ok || lm.Name != MessagerLog {
		t.Fatalf("default mapping %v, want %q", lm, MessagerLog)
	}
	m := New(Config{Clients: 2, Delivery: false})
	w := sim.NewWorld(m, 1, sim.FirstChooser{}, sim.Options{Capabilities: capabilities.Erase()})
	for name, want := range map[string]sim.ProcID{"client1": m.clients[0], "client2": m.clients[1], "poller": m.poller,
		"vstream": m.vstream, "close": m.closer, "runSend": sim.None, "watchdog": sim.None} {
		if p, ok := lm.Lane(m, w, "tablet", name); !ok || p != want {
			t.Errorf("lane %s: %d %v, want %d", name, p, ok, want)
		}
	}
	for _, name := range []string{"client0", "client3", "clientx", "janitor"} {
		if _, ok := lm.Lane(m, w, "tablet", name); ok {
			t.Errorf("lane %s is bound", name)
		}
	}
}

// TestValidateDocQuotesTheMapping holds docs/validate.md's Go blocks to
// this package's mapping, word for word.
func TestValidateDocQuotesTheMapping(t *testing.T) {
	doc, err := os.ReadFile("../../docs/validate.md")
	if err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile("logmap.go")
	if err != nil {
		t.Fatal(err)
	}
	blocks, missing, err := quoted.Missing(string(doc), string(src))
	if err != nil {
		t.Fatal(err)
	}
	if blocks < 4 {
		t.Fatalf("docs/validate.md has %d Go blocks, want the mapping's lanes, rules and fields", blocks)
	}
	for _, first := range missing {
		t.Errorf("docs/validate.md quotes code logmap.go does not have, from: %s", first)
	}
}
