package api

import (
	"encoding/json"
	"testing"

	"github.com/racetrack-sim/racetrack/core/scenario"
	"github.com/racetrack-sim/racetrack/core/session"
)

// BenchmarkPlayFrame is the cost of one frame of a playback: step the
// player's world, diff its view, collect edges, encode.
func BenchmarkPlayFrame(b *testing.B) {
	s := session.New(session.Config{Registry: testRegistry()})
	out, err := s.Call("1", "open", json.RawMessage(`{"spec":{"scenario":"dining-philosophers","seed":1,"params":{"philosophers":12,"meals":100}}}`))
	if err != nil {
		b.Fatal(err)
	}
	sum := out.(scenario.Summary)
	play := func() *session.Player {
		p, err := s.Call("2", "play", json.RawMessage(`{"run":"`+sum.ID+`"}`))
		if err != nil {
			b.Fatal(err)
		}
		return p.(*session.Player)
	}
	p := play()
	b.ReportAllocs()
	for b.Loop() {
		if p.Stopped() {
			p = play()
		}
		f, err := p.Advance(1)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := json.Marshal(session.Message{ID: json.RawMessage("2"), Frame: f}); err != nil {
			b.Fatal(err)
		}
	}
}
