package catalog_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/racetrack-sim/racetrack/core/internal/golden"

	"github.com/racetrack-sim/racetrack/core/catalog"
	"github.com/racetrack-sim/racetrack/core/scenario"
)

// goldenSteps bounds each golden run so that the wasm pass stays quick.
const goldenSteps = 3000

// TestDigestsAreGolden runs every preset and variant of every scenario at
// fixed seeds and compares each run's digest with the golden file. The
// same test runs natively and under GOOS=js GOARCH=wasm: passing both
// means the browser and the server produce bit-identical runs.
func TestDigestsAreGolden(t *testing.T) {
	reg := catalog.New()
	var lines []string
	for _, sc := range reg.List() {
		for _, p := range sc.Presets {
			for _, v := range sc.Variants {
				for _, seed := range []uint64{1, 2} {
					spec := scenario.RunSpec{Scenario: sc.ID, Preset: p.ID, Variant: v.ID, Seed: seed, MaxSteps: goldenSteps}
					run, err := reg.Execute(spec, scenario.Options{Trace: true})
					if err != nil {
						t.Fatalf("%s/%s/%s seed %d: %v", sc.ID, p.ID, v.ID, seed, err)
					}
					w := run.World
					lines = append(lines, fmt.Sprintf("%s %s %s seed=%d steps=%d end=%s violations=%d digest=%016x",
						sc.ID, p.ID, v.ID, seed, w.Steps(), w.Now(), len(w.Violations()), w.Digest()))
				}
			}
		}
	}
	golden.Check(t, "testdata/digests.golden", []byte(strings.Join(lines, "\n")+"\n"))
}

// TestSameSpecSameRun runs each preset twice in one process: map order or
// any other ambient nondeterminism would make the digests differ.
func TestSameSpecSameRun(t *testing.T) {
	reg := catalog.New()
	for _, sc := range reg.List() {
		for _, p := range sc.Presets {
			spec := scenario.RunSpec{Scenario: sc.ID, Preset: p.ID, Seed: 9, MaxSteps: goldenSteps}
			a, err := reg.Execute(spec, scenario.Options{Trace: true})
			if err != nil {
				t.Fatal(err)
			}
			b, err := reg.Execute(spec, scenario.Options{Trace: true})
			if err != nil {
				t.Fatal(err)
			}
			if a.World.Digest() != b.World.Digest() {
				t.Errorf("%s/%s: two runs of one spec differ", sc.ID, p.ID)
			}
		}
	}
}
