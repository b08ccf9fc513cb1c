package conform_test

import (
	"fmt"
	"testing"

	"github.com/racetrack-sim/racetrack/core/broker"
	"github.com/racetrack-sim/racetrack/core/conform"
	"github.com/racetrack-sim/racetrack/core/ingest"
	"github.com/racetrack-sim/racetrack/core/modeltest"
	"github.com/racetrack-sim/racetrack/core/scenario"
	"github.com/racetrack-sim/racetrack/core/sim"
	"github.com/racetrack-sim/racetrack/core/timeline"
)

// TestDrawsInsideStepsAreEnumerated: the broker's lossy preset draws,
// inside its steps, whether the network loses a replication message (2
// options); validation enumerates them, as bfs does, with no seed, and
// a run of every variant, exported and imported back, conforms under the
// identity mapping and replays aligned.
func TestDrawsInsideStepsAreEnumerated(t *testing.T) {
	reg := scenario.NewRegistry(broker.Scenario())
	sc := broker.Scenario()
	draws := 0
	for _, v := range sc.Variants {
		for seed := uint64(1); seed <= 5; seed++ {
			spec := scenario.RunSpec{Scenario: sc.ID, Preset: "lossy", Variant: v.ID, Seed: seed}
			name := fmt.Sprintf("lossy/%s seed %d", v.ID, seed)
			x, tl := modeltest.ExportedLog(t, reg, spec, ingest.FormatJSON)
			for _, c := range tl.Trace().Choices {
				if c.Kind == sim.ChooseValue {
					draws++
				}
			}
			n, err := reg.Check(spec)
			if err != nil {
				t.Fatal(err)
			}
			verdict, err := conform.Validate(n, x, conform.Options{Mapping: conform.Identity, Format: ingest.FormatJSON})
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if !verdict.Conforms || verdict.Matched != x.Len() {
				t.Fatalf("%s: its own run leaves the model at %+v", name, verdict.At)
			}
			// With the run's seed, each draw tries the seed's pick first:
			// the run is followed in one path, a state a step.
			seeded, err := conform.Validate(n, x, conform.Options{Mapping: conform.Identity, Format: ingest.FormatJSON, Seed: &seed})
			if err != nil || !seeded.Conforms || seeded.States != x.Len()+1 {
				t.Fatalf("%s with its seed: %v; %d states for %d events", name, err, seeded.States, x.Len())
			}
			replayed, err := timeline.Record(reg, scenario.RunSpec{Scenario: sc.ID, Preset: "lossy", Variant: v.ID, Seed: seed + 1000,
				Schedule: verdict.Schedule, MaxSteps: len(verdict.StepEvents)}, timeline.Options{})
			if err != nil {
				t.Fatal(err)
			}
			for k, i := range verdict.StepEvents {
				s, e := replayed.Trace().Step(k), x.Steps[i]
				if replayed.Procs()[s.Proc].Name != x.Procs[e.Proc].Name || s.Kind != e.Kind {
					t.Fatalf("%s: replayed step %d is not the event %d it matched", name, k, i)
				}
			}
		}
	}
	if draws == 0 {
		t.Fatal("no run drew a value: the test shows nothing")
	}
}
