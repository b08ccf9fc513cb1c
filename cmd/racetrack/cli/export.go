package cli

import (
	"context"
	"fmt"
	"strings"

	"github.com/racetrack-sim/racetrack/core/session"
)

func exportCmd(_ context.Context, e *Env, args []string) int {
	var names []string
	for _, f := range session.Formats() {
		names = append(names, f.ID)
	}
	fs := e.Flags("export", "-format "+strings.Join(names, "|")+" [-o FILE] [-spec JSON|@FILE] [-scenario S -preset P -variant V -seed N -param k=v]",
		"Writes a run for other tools: chrome (Trace Event JSON for ui.perfetto.dev and chrome://tracing),\n"+
			"shiviz (a ShiViz log), json (the whole run), svg (the space-time diagram, at most 5000 steps).\n"+
			"The exit status is the run's, as for racetrack run.")
	sf := addSpecFlags(fs, "spec", true)
	format := fs.String("format", "", "the format: "+strings.Join(names, ", "))
	out := fs.String("o", "", "write to FILE (default: standard output)")
	if code := e.Parse(fs, args); code >= 0 {
		return code
	}
	_, write, err := session.ExportWriter(*format, nil)
	if err != nil {
		return e.Fail("export", ExitUsage, fmt.Errorf("-format %q: one of %s", *format, strings.Join(names, ", ")))
	}
	spec, err := sf.spec(fs)
	if err != nil {
		return e.Fail("export", ExitUsage, err)
	}
	tl, code := record(e, "export", spec)
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
