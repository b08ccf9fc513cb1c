package cli

import (
	"context"
	"fmt"
	"strings"

	"github.com/racetrack-sim/racetrack/core/session"
	"github.com/racetrack-sim/racetrack/core/timeline"
)

func exportCmd(_ context.Context, e *Env, args []string) int {
	var names []string
	for _, f := range session.Formats() {
		names = append(names, f.ID)
	}
	fs := e.Flags("export", "-format "+strings.Join(names, "|")+" [-o FILE] [-spec JSON|@FILE] [-scenario S -preset P -variant V -seed N -param k=v] [-trace LOG]",
		"Writes a run for other tools: chrome (Trace Event JSON for ui.perfetto.dev and chrome://tracing),\n"+
			"shiviz (a ShiViz log), json (the whole run), svg (the space-time diagram, at most 5000 steps).\n"+
			"With -trace it writes a logged execution instead (a ShiViz log, an NDJSON trace or a JSON\n"+
			"export, read as the import command reads it), so a ShiViz log can become a Perfetto trace.\n"+
			"The exit status is the run's, as for racetrack run.")
	sf := addSpecFlags(fs, "spec", true)
	trace := fs.String("trace", "", "export the logged execution LOG instead of a run")
	lf := addLogFlags(fs, "trace-format")
	format := fs.String("format", "", "the format: "+strings.Join(names, ", "))
	out := fs.String("o", "", "write to FILE (default: standard output)")
	if code := e.Parse(fs, args); code >= 0 {
		return code
	}
	_, write, err := session.ExportWriter(*format, nil)
	if err != nil {
		return e.Fail("export", ExitUsage, fmt.Errorf("-format %q: one of %s", *format, strings.Join(names, ", ")))
	}
	var tl *timeline.Timeline
	var code int
	// order-independent: any flag of the wrong kind is refused.
	for name := range setFlags(fs) {
		switch {
		case name == "trace" || name == "format" || name == "o":
		case *trace != "" && !isLogFlag(name):
			return e.Fail("export", ExitUsage, fmt.Errorf("-%s: -trace exports a log, not a run", name))
		case *trace == "" && isLogFlag(name):
			return e.Fail("export", ExitUsage, fmt.Errorf("-%s reads a log: it needs -trace", name))
		}
	}
	if *trace != "" {
		tl, code = importLog(e, "export", *trace, lf)
	} else {
		spec, err := sf.spec(fs)
		if err != nil {
			return e.Fail("export", ExitUsage, err)
		}
		tl, code = record(e, "export", spec)
	}
	if tl == nil {
		return code
	}
	if *out == "" {
		err = write(e.Stdout, tl)
	} else {
		err = writeFile(*out, tl, write)
	}
	if err != nil {
		return e.Fail("export", ExitFailure, err)
	}
	code = ExitHolds
	if v, ok := firstViolation(tl.Summary().Violations, ""); ok {
		code = violationCode(tl.Scenario(), v.Property)
	}
	return code
}
