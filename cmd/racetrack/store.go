package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/racetrack-sim/racetrack/core/export"
	"github.com/racetrack-sim/racetrack/core/scenario"
	"github.com/racetrack-sim/racetrack/core/timeline"
	"github.com/racetrack-sim/racetrack/core/viz"
)

// storeTime names a run folder: UTC to the millisecond, sortable, like
// Jepsen's store/<test>/<time>/.
func storeTime() (string, error) {
	return time.Now().UTC().Format("20060102T150405.000Z"), nil
}

// maxDiagramSteps bounds the window of the stored diagram.
const maxDiagramSteps = 5000

// runFolder creates <dir>/<scenario>/<preset>-<variant>/<time>/ and points
// the folder's sibling "latest" at it.
func runFolder(e *env, dir string, spec scenario.RunSpec) (string, error) {
	stamp, err := e.now()
	if err != nil {
		return "", err
	}
	parent := filepath.Join(dir, spec.Scenario, spec.Preset+"-"+spec.Variant)
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return "", err
	}
	path := filepath.Join(parent, stamp)
	for k := 2; ; k++ {
		err := os.Mkdir(path, 0o755)
		if err == nil {
			break
		}
		if !errors.Is(err, os.ErrExist) || k > 100 {
			return "", err
		}
		path = filepath.Join(parent, fmt.Sprintf("%s-%d", stamp, k))
	}
	latest := filepath.Join(parent, "latest")
	_ = os.Remove(latest)
	_ = os.Symlink(filepath.Base(path), latest) // a convenience: not every file system has links
	return path, nil
}

func writeJSONFile(dir, name string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, name), append(b, '\n'), 0o644)
}

// storedFiles are the files of a run in its folder, by what they hold.
var storedFiles = []struct {
	name  string
	write func(*timeline.Timeline) ([]byte, error)
}{
	{"trace.json", export.Chrome},
	{"run.shiviz.log", export.ShiViz},
	{"run.json", export.JSON},
	{"diagram.svg", diagramSVG},
}

// writeRun writes a recorded run into dir: spec.json (its normalised
// spec: racetrack run -spec @spec.json runs it again), schedule.json (the
// choices it made; the spec with this schedule replays it anywhere), the
// diagram and every export.
func writeRun(dir string, tl *timeline.Timeline) error {
	if err := writeJSONFile(dir, "spec.json", tl.Spec()); err != nil {
		return err
	}
	sched := tl.Schedule()
	if sched == nil {
		sched = []int{}
	}
	if err := writeJSONFile(dir, "schedule.json", sched); err != nil {
		return err
	}
	for _, f := range storedFiles {
		b, err := f.write(tl)
		if err != nil {
			return fmt.Errorf("%s: %w", f.name, err)
		}
		if err := os.WriteFile(filepath.Join(dir, f.name), b, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// diagramSVG draws at most maxDiagramSteps steps, ending a little after
// the first violation when there is one.
func diagramSVG(tl *timeline.Timeline) ([]byte, error) {
	n := tl.Len()
	if n == 0 {
		return []byte(`<svg xmlns="http://www.w3.org/2000/svg" width="0" height="0"></svg>` + "\n"), nil
	}
	from, to := 0, n
	if n > maxDiagramSteps {
		to = maxDiagramSteps
		if vs := tl.Violations(); len(vs) > 0 {
			to = min(n, max(maxDiagramSteps, vs[0].Step+maxDiagramSteps/10))
		}
		from = to - maxDiagramSteps
	}
	d, err := viz.Layout(tl, viz.Options{From: from, To: to})
	if err != nil {
		return nil, err
	}
	return viz.SVG(d), nil
}
