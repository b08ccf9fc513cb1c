package viz_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/racetrack-sim/racetrack/core/catalog"
	"github.com/racetrack-sim/racetrack/core/scenario"
	"github.com/racetrack-sim/racetrack/core/timeline"
	"github.com/racetrack-sim/racetrack/core/viz"
)

// TestWritePreviews writes the diagram and charts of every preset of every
// catalog scenario to $RACETRACK_PREVIEW_DIR, for a person to look at
// (render them with a browser). It is skipped when the variable is unset.
func TestWritePreviews(t *testing.T) {
	dir := os.Getenv("RACETRACK_PREVIEW_DIR")
	if dir == "" {
		t.Skip("RACETRACK_PREVIEW_DIR not set")
	}
	reg := catalog.New()
	for _, sc := range reg.List() {
		for _, pr := range sc.Presets {
			for _, v := range sc.Variants {
				tl, err := timeline.Record(reg, scenario.RunSpec{Scenario: sc.ID, Preset: pr.ID, Variant: v.ID, Seed: 1}, timeline.Options{})
				if err != nil {
					t.Fatalf("%s/%s/%s: %v", sc.ID, pr.ID, v.ID, err)
				}
				from, to := previewWindow(tl)
				t.Logf("%s/%s/%s: %d steps, %d procs, violations %d, window [%d, %d)", sc.ID, pr.ID, v.ID, tl.Len(), len(tl.Procs()), len(tl.Violations()), from, to)
				d, err := viz.Layout(tl, viz.Options{From: from, To: to})
				if err != nil {
					t.Fatal(err)
				}
				c, err := viz.Charts(tl, viz.ChartOptions{From: from, To: to, Cursor: (from + to) / 2})
				if err != nil {
					t.Fatal(err)
				}
				base := filepath.Join(dir, sc.ID+"-"+pr.ID+"-"+v.ID)
				if err := os.WriteFile(base+".svg", viz.SVG(d), 0o644); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(base+"-charts.svg", viz.SVG(c), 0o644); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
}

// previewWindow is at most 200 steps ending shortly after the first
// violation, or the first 200 steps.
func previewWindow(tl *timeline.Timeline) (int, int) {
	to := min(tl.Len(), 200)
	if vs := tl.Violations(); len(vs) > 0 {
		to = min(tl.Len(), vs[0].Step+20)
	}
	return max(0, to-200), to
}
