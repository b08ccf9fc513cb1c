package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/racetrack-sim/racetrack/core/check"
	"github.com/racetrack-sim/racetrack/core/conform"
	"github.com/racetrack-sim/racetrack/core/ingest"
	"github.com/racetrack-sim/racetrack/core/scenario"
)

func validateCmd(_ context.Context, e *Env, args []string) int {
	fs := e.Flags("validate", "-scenario S [-preset P] -variant V [-param k=v] [-seed N] -trace LOG [-format shiviz|ndjson|json] [-mapping M] [-max-states N] [-json]",
		"Checks whether a logged execution of a real system is a behaviour of a model: a search of the model\n"+
			"constrained by the log, through the log mapping the model declares (-mapping; \"identity\" for the\n"+
			"model's own exported runs). Draws of up to "+strconv.Itoa(check.MaxValueOptions)+" options are searched; -seed takes larger ones (a timed\n"+
			"model's durations) from that seed's run. Exit 0 when the log conforms, 15 when it leaves the model (the output\n"+
			"names the event, why, and what the model could have done there), 14 when the state budget ran out.")
	sf := addSpecFlags(fs, "", false)
	trace := fs.String("trace", "", "the log to validate")
	lf := addLogFlags(fs, "format")
	mapping := fs.String("mapping", "", "the model's log mapping (default: its first; \"identity\" maps the model's own exported runs)")
	maxStates := fs.Int("max-states", conform.DefaultMaxStates, "the most distinct states the search stores")
	asJSON := fs.Bool("json", false, "print the verdict as JSON")
	if code := e.Parse(fs, args); code >= 0 {
		return code
	}
	if *trace == "" {
		return e.Fail("validate", ExitUsage, errors.New("-trace LOG is required"))
	}
	spec, err := sf.spec(fs)
	if err != nil {
		return e.Fail("validate", ExitUsage, err)
	}
	n, err := e.reg.Check(spec)
	if err != nil {
		return e.Fail("validate", ExitUsage, err)
	}
	data, opt, code := readLog(e, "validate", *trace, lf)
	if data == nil {
		return code
	}
	format := ingest.Format(*lf.format)
	if format == "" {
		format = ingest.Detect(data)
	}
	l, err := ingest.Import(format, data, opt)
	if err != nil {
		return logError(e, "validate", *trace, err)
	}
	k, code := pickExecution(e, "validate", lf, len(l.Executions), func(k int) string { return l.Executions[k].Label })
	if code != ExitHolds {
		return code
	}
	x := l.Executions[k]
	vopt := conform.Options{Mapping: *mapping, Format: format, MaxStates: *maxStates}
	if setFlags(fs)["seed"] {
		// The run's timing: draws too large to enumerate take its values.
		seed := n.Spec().Seed
		vopt.Seed = &seed
	}
	v, err := conform.Validate(n, x, vopt)
	if err != nil {
		if errors.Is(err, conform.ErrUnsupported) || errors.Is(err, scenario.ErrInvalid) || isBadInput(err) {
			return e.Fail("validate", ExitUsage, fmt.Errorf("%s: %w", *trace, err))
		}
		return e.Fail("validate", ExitFailure, err)
	}
	code = validateCode(v)
	if *asJSON {
		enc := json.NewEncoder(e.Stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(v); err != nil {
			return e.Fail("validate", ExitFailure, err)
		}
		return code
	}
	ns := n.Spec()
	fmt.Fprintf(e.Stdout, "validate %s against %s/%s/%s (mapping %s): ", *trace, ns.Scenario, ns.Preset, ns.Variant, v.Mapping)
	printVerdict(e.Stdout, e.Name, v)
	return code
}

// isBadInput reports an error about the input: a line of the log, or a
// field of the request.
func isBadInput(err error) bool {
	var ie *ingest.Error
	var fe *scenario.FieldError
	return errors.As(err, &ie) || errors.As(err, &fe)
}

// validateCode is a verdict's exit status.
func validateCode(v *conform.Verdict) int {
	switch v.Stop {
	case conform.StopConforms:
		return ExitHolds
	case conform.StopBudget:
		return ExitBudget
	}
	return ExitDiverges
}

// printVerdict writes a verdict the way verify writes one: the answer
// on the first line, the detail indented below.
func printVerdict(w io.Writer, name string, v *conform.Verdict) {
	switch v.Stop {
	case conform.StopConforms:
		fmt.Fprintf(w, "conforms (%d events matched by a model run of %d steps; %d states, %d transitions)\n",
			v.Events, len(v.StepEvents), v.States, v.Transitions)
		return
	case conform.StopBudget:
		fmt.Fprintf(w, "%s at %d states (%d of %d events matched; -max-states lets it search further)\n", verdicts[ExitBudget], v.States, v.Matched, v.Events)
	default:
		fmt.Fprintf(w, "LEAVES THE MODEL at event %d (%s%d of %d events matched; %d states)\n", v.At.Event, lineOf(v.At.Line, "; "), v.Matched, v.Events, v.States)
	}
	d := v.At
	for _, wt := range d.Waiting {
		fmt.Fprintf(w, "  event %d, %s%s: %s %q\n    %s\n", wt.Event, lineOf(wt.Line, ", "), wt.Lane, wt.Kind, wt.Label, wt.Why)
	}
	if len(d.Instead) > 0 {
		fmt.Fprintf(w, "  the model could instead, after %d steps:\n", d.Steps)
		for _, a := range d.Instead {
			fmt.Fprintf(w, "    %s: %s%s\n", a.Proc, strings.TrimSpace(a.Kind+" "+a.Object), describeAlt(a))
		}
	}
	if d.State != nil {
		fmt.Fprintf(w, "  the model's state there:\n")
		for _, g := range d.State.Groups {
			var fields []string
			for _, f := range g.Fields {
				fields = append(fields, f.Name+"="+f.Value)
			}
			fmt.Fprintf(w, "    %s: %s\n", g.Title, strings.Join(fields, " "))
		}
	}
}

// lineOf names an input line followed by sep, or nothing for a log
// without lines (a JSON export's steps).
func lineOf(line int, sep string) string {
	if line <= 0 {
		return ""
	}
	return "line " + strconv.Itoa(line) + sep
}

func describeAlt(a conform.Alternative) string {
	if a.Says == "" {
		return ""
	}
	return " (" + a.Says + ")"
}
