package api

import (
	"encoding/json"
	"testing"

	"github.com/racetrack-sim/racetrack/core/scenario"
	"github.com/racetrack-sim/racetrack/core/timeline"
)

// BenchmarkStreamFrame is the server's cost of one frame of a playing
// stream: step the stream's world, diff its view, collect edges, encode.
func BenchmarkStreamFrame(b *testing.B) {
	tl, err := timeline.Record(testRegistry(), scenario.RunSpec{Scenario: "dining-philosophers", Seed: 1,
		Params: map[string]any{"philosophers": 12, "meals": 100}}, timeline.Options{SnapshotEvery: snapshotEvery})
	if err != nil {
		b.Fatal(err)
	}
	rec := &recording{id: tl.ID(), tl: tl, summary: tl.Summary()}
	p := &player{rec: rec, world: newCursor(tl), fields: &fieldState{}, speed: defaultSpeed}
	b.ReportAllocs()
	for b.Loop() {
		target := p.cur + 1
		if target >= tl.Len() {
			target = 0
		}
		f, err := p.frame(target)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := json.Marshal(f); err != nil {
			b.Fatal(err)
		}
	}
}
