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

// BenchmarkStateChurn is the page's step on the run the browser test
// times (Vitess churn, 2,196 steps): the state request of the next step
// (forwards: the session's cursor steps its own world) or of the previous
// one (backwards: a replay from the nearest snapshot), encoded as the
// reply the socket sends.
func BenchmarkStateChurn(b *testing.B) {
	for _, dir := range []struct {
		name string
		d    int
	}{{"forwards", 1}, {"backwards", -1}} {
		b.Run(dir.name, func(b *testing.B) {
			s := newSession()
			out, err := s.Call("1", "open", json.RawMessage(`{"spec":{"scenario":"vitess-messager","preset":"churn","variant":"buggy","seed":1}}`))
			if err != nil {
				b.Fatal(err)
			}
			sum := out.(scenario.Summary)
			step := sum.Steps / 2
			b.ReportAllocs()
			for b.Loop() {
				step += dir.d
				if step < 0 || step >= sum.Steps {
					step = sum.Steps / 2
				}
				v, err := s.Call("2", "state", json.RawMessage(fmt.Sprintf(`{"run":%q,"step":%d}`, sum.ID, step)))
				if err != nil {
					b.Fatal(err)
				}
				if _, err := json.Marshal(session.Reply(json.RawMessage("2"), v, nil)); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
