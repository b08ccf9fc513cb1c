package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/racetrack-sim/racetrack/core/scenario"
	"github.com/racetrack-sim/racetrack/core/sim"
	"github.com/racetrack-sim/racetrack/core/timeline"
)

func runCmd(_ context.Context, e *Env, args []string) int {
	fs := e.Flags("run", "[-spec JSON|@FILE] [-scenario S -preset P -variant V -seed N -param k=v] [-store DIR] [-json]",
		"Runs one spec and prints its summary; the exit status says whether a property was violated.")
	sf := addSpecFlags(fs, "spec", true)
	store := fs.String("store", "", "write a run folder under DIR: DIR/<scenario>/<preset>-<variant>/<time>/ (summary, spec, schedule, diagram, exports)")
	asJSON := fs.Bool("json", false, "print the summary as JSON")
	if code := e.Parse(fs, args); code >= 0 {
		return code
	}
	spec, err := sf.spec(fs)
	if err != nil {
		return e.Fail("run", ExitUsage, err)
	}
	tl, code := record(e, "run", spec)
	if tl == nil {
		return code
	}
	sum := tl.Summary()
	code = ExitHolds
	if v, ok := firstViolation(sum.Violations, ""); ok {
		code = violationCode(tl.Scenario(), v.Property)
	}
	if *asJSON {
		enc := json.NewEncoder(e.Stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(sum); err != nil {
			return e.Fail("run", ExitFailure, err)
		}
	} else {
		printRun(e, sum)
	}
	if *store != "" {
		if err := storeRun(e, *store, tl, map[string]any{"run": sum}, code, args); err != nil {
			return e.Fail("run", ExitFailure, err)
		}
	}
	return code
}

// record runs spec with its trace. A spec the catalog rejects is bad
// input (exit 2); a nil timeline comes with the exit code.
func record(e *Env, cmd string, spec scenario.RunSpec) (*timeline.Timeline, int) {
	tl, err := timeline.Record(e.reg, spec, timeline.Options{})
	if err != nil {
		if errors.Is(err, scenario.ErrInvalid) || errors.Is(err, sim.ErrModel) {
			return nil, e.Fail(cmd, ExitUsage, err)
		}
		return nil, e.Fail(cmd, ExitFailure, err)
	}
	return tl, ExitHolds
}

func printRun(e *Env, sum scenario.Summary) {
	s := sum.Spec
	fmt.Fprintf(e.Stdout, "run %s  %s/%s/%s seed %d: %d steps, %.3f ms virtual, stopped: %s\n",
		sum.ID, s.Scenario, s.Preset, s.Variant, s.Seed, sum.Steps, sum.EndTime, sum.Stop)
	if len(sum.Violations) == 0 {
		fmt.Fprintln(e.Stdout, "no property violated")
	}
	for _, v := range sum.Violations {
		fmt.Fprintf(e.Stdout, "VIOLATED %s at step %d (%.3f ms): %s\n", v.Property, v.Step+1, v.Time, v.Message)
	}
}

// storeRun writes the run folder of tl with its summary.
func storeRun(e *Env, dir string, tl *timeline.Timeline, payload map[string]any, code int, args []string) error {
	path, err := runFolder(e, dir, tl.Spec())
	if err != nil {
		return err
	}
	if err := writeRun(path, tl); err != nil {
		return err
	}
	if err := writeSummary(e, path, payload, code, args); err != nil {
		return err
	}
	fmt.Fprintf(e.Stderr, "stored in %s\n", path)
	return nil
}

// writeSummary writes summary.json: the command line, the verdict, the
// exit code and the command's own result.
func writeSummary(e *Env, path string, payload map[string]any, code int, args []string) error {
	sum := map[string]any{"racetrack": version(e.Name), "args": args, "exitCode": code, "verdict": verdicts[code]}
	for k, v := range payload {
		sum[k] = v
	}
	return writeJSONFile(path, "summary.json", sum)
}
