package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/racetrack-sim/racetrack/core/export"
	"github.com/racetrack-sim/racetrack/core/scenario"
	"github.com/racetrack-sim/racetrack/core/session"
	"github.com/racetrack-sim/racetrack/core/timeline"
)

// storeTime names a run folder: UTC to the millisecond, sortable, like
// Jepsen's store/<test>/<time>/.
func storeTime() (string, error) {
	return time.Now().UTC().Format("20060102T150405.000Z"), nil
}

// runFolder creates <dir>/<scenario>/<preset>-<variant>/<time>/ and points
// the folder's sibling "latest" at it.
func runFolder(e *Env, dir string, spec scenario.RunSpec) (string, error) {
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

// storedFiles are the files of a run in its folder, by export format
// (core/session owns the formats and their writers).
var storedFiles = []struct{ name, format string }{
	{"trace.json", "chrome"},
	{"run.shiviz.log", "shiviz"},
	{"run.json", "json"},
	{"diagram.svg", "svg"},
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
		if f.format == "svg" && tl.Len() == 0 {
			continue // nothing to draw
		}
		_, write, err := session.ExportWriter(f.format, nil)
		if err != nil {
			return err
		}
		if err := writeFile(filepath.Join(dir, f.name), tl, write); err != nil {
			return fmt.Errorf("%s: %w", f.name, err)
		}
	}
	return nil
}

// writeFile streams a run into a new file in one format.
func writeFile(name string, tl *timeline.Timeline, write export.Writer) error {
	f, err := os.Create(name)
	if err != nil {
		return err
	}
	if err := write(f, tl); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
