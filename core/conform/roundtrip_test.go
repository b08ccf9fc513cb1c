package conform_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/racetrack-sim/racetrack/core/conform"
	"github.com/racetrack-sim/racetrack/core/ingest"
	"github.com/racetrack-sim/racetrack/core/modeltest"
	"github.com/racetrack-sim/racetrack/core/scenario"
	"github.com/racetrack-sim/racetrack/core/sim"
	"github.com/racetrack-sim/racetrack/core/timeline"
	"github.com/racetrack-sim/racetrack/core/vitess"
)

var registry = scenario.NewRegistry(vitess.Scenario())

// untimed is the spec of a vitess preset and variant in its untimed
// form (validation enumerates no durations): the preset's clients,
// delivery and the rest, with every step's order left to the chooser.
func untimed(preset, variant string, seed uint64, steps int) scenario.RunSpec {
	return scenario.RunSpec{Scenario: vitess.ID, Preset: preset, Variant: variant, Seed: seed, MaxSteps: steps,
		Params: map[string]any{"timed": false, "iterations": 2}}
}

// exported records spec's run and imports its JSON export back.
func exported(t *testing.T, spec scenario.RunSpec) (*timeline.Timeline, *ingest.Execution) {
	x, tl := modeltest.ExportedLog(t, registry, spec, ingest.FormatJSON)
	return tl, x
}

func check(t *testing.T, spec scenario.RunSpec) scenario.Normal {
	t.Helper()
	n, err := registry.Check(spec)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// TestOwnRunConforms: a run of every vitess preset and variant, exported
// and imported back, conforms to the model it came from under the
// identity mapping, and the aligned run replays: its schedule gives a
// model run whose step k is the matched event's (same process, kind and
// mutex), and every event is matched by one step.
func TestOwnRunConforms(t *testing.T) {
	sc := vitess.Scenario()
	for _, p := range sc.Presets {
		for _, v := range sc.Variants {
			for seed := uint64(1); seed <= 3; seed++ {
				spec := untimed(p.ID, v.ID, seed, 400)
				name := fmt.Sprintf("%s/%s seed %d", p.ID, v.ID, seed)
				_, x := exported(t, spec)
				verdict, err := conform.Validate(check(t, spec), x, conform.Options{Mapping: conform.Identity, Format: ingest.FormatJSON})
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				if !verdict.Conforms || verdict.Matched != x.Len() {
					t.Fatalf("%s: its own run leaves the model at %+v", name, verdict.At)
				}
				sameRun(t, name, spec, verdict, x)
			}
		}
	}
}

// TestOwnTimedRunConforms: a run of every vitess preset as it is
// (timed: Init and the steps draw think times, gaps and costs from
// hundreds of options), validated with the run's seed, conforms: the
// large draws take the seed's values, the schedule is searched.
// Without the seed the model is refused, the draw named.
func TestOwnTimedRunConforms(t *testing.T) {
	sc := vitess.Scenario()
	for _, p := range sc.Presets {
		for _, v := range sc.Variants {
			for seed := uint64(1); seed <= 2; seed++ {
				spec := scenario.RunSpec{Scenario: vitess.ID, Preset: p.ID, Variant: v.ID, Seed: seed, MaxSteps: 400}
				name := fmt.Sprintf("%s/%s seed %d (timed)", p.ID, v.ID, seed)
				_, x := exported(t, spec)
				n := check(t, spec)
				verdict, err := conform.Validate(n, x, conform.Options{Mapping: conform.Identity, Format: ingest.FormatJSON, Seed: &seed})
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				if !verdict.Conforms || verdict.Matched != x.Len() {
					t.Fatalf("%s: its own run leaves the model at %+v", name, verdict.At)
				}
				sameRun(t, name, spec, verdict, x)
				if p.ID == vitess.PresetLockLevel {
					continue // untimed: nothing drawn
				}
				if _, err := conform.Validate(n, x, conform.Options{Mapping: conform.Identity}); !errors.Is(err, conform.ErrUnsupported) || !strings.Contains(err.Error(), "-seed") {
					t.Fatalf("%s without the seed: %v", name, err)
				}
			}
		}
	}
}

// sameRun replays the verdict's schedule and checks each model step
// against the logged event it matched.
func sameRun(t *testing.T, name string, spec scenario.RunSpec, verdict *conform.Verdict, x *ingest.Execution) {
	t.Helper()
	spec.Schedule, spec.MaxSteps = verdict.Schedule, len(verdict.StepEvents)
	tl, err := timeline.Record(registry, spec, timeline.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if tl.Len() != len(verdict.StepEvents) {
		t.Fatalf("%s: the schedule replays %d steps, the verdict aligns %d", name, tl.Len(), len(verdict.StepEvents))
	}
	seen := make([]bool, x.Len())
	for k, i := range verdict.StepEvents {
		if i < 0 {
			t.Fatalf("%s: model step %d matched no event, but the identity mapping observes every step", name, k)
		}
		s, e := tl.Trace().Step(k), x.Steps[i]
		if tl.Procs()[s.Proc].Name != x.Procs[e.Proc].Name || s.Kind != e.Kind || (s.Kind == sim.StepLock && tl.Mutexes()[s.Obj].Name != x.Mutexes[e.Obj].Name) {
			t.Fatalf("%s: model step %d (%s %v) matched event %d (%s %v)", name, k, tl.Procs()[s.Proc].Name, s.Kind, i, x.Procs[e.Proc].Name, e.Kind)
		}
		if seen[i] || verdict.Reached[i] != int32(k+1) {
			t.Fatalf("%s: event %d matched twice, or reached after %d steps instead of %d", name, i, verdict.Reached[i], k+1)
		}
		seen[i] = true
	}
}
