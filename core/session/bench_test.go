package session_test

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/racetrack-sim/racetrack/core/scenario"
	"github.com/racetrack-sim/racetrack/core/session"
)

// BenchmarkStateNextStep is one step of the page through the session:
// the state request for the next step of a long run, encoded.
func BenchmarkStateNextStep(b *testing.B) {
	s := newSession()
	out, err := s.Call("1", "open", json.RawMessage(`{"spec":{"scenario":"dining-philosophers","seed":1,"params":{"philosophers":12,"meals":100}}}`))
	if err != nil {
		b.Fatal(err)
	}
	sum := out.(scenario.Summary)
	step := 0
	b.ReportAllocs()
	for b.Loop() {
		step = (step + 1) % sum.Steps
		v, err := s.Call("2", "state", json.RawMessage(fmt.Sprintf(`{"run":%q,"step":%d}`, sum.ID, step)))
		if err != nil {
			b.Fatal(err)
		}
		if _, err := json.Marshal(session.Reply(json.RawMessage("2"), v, nil)); err != nil {
			b.Fatal(err)
		}
	}
}
