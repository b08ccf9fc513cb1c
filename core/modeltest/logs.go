package modeltest

import (
	"fmt"
	"testing"

	"github.com/racetrack-sim/racetrack/core/conform"
	"github.com/racetrack-sim/racetrack/core/export"
	"github.com/racetrack-sim/racetrack/core/ingest"
	"github.com/racetrack-sim/racetrack/core/scenario"
	"github.com/racetrack-sim/racetrack/core/timeline"
)

// ExportedLog records spec's run, writes it as a log in format (ShiViz or
// Racetrack's JSON export) and imports it back: the execution a real
// system would have logged had it run as the model did, for a test that a
// model's log mapping (sim.LogMap) takes its own runs. It fails t if any
// of the three fails.
func ExportedLog(t testing.TB, reg *scenario.Registry, spec scenario.RunSpec, format ingest.Format) (*ingest.Execution, *timeline.Timeline) {
	t.Helper()
	tl, err := timeline.Record(reg, spec, timeline.Options{})
	if err != nil {
		t.Fatal(err)
	}
	write, read := export.ShiViz, ingest.ShiViz
	switch format {
	case ingest.FormatShiViz:
	case ingest.FormatJSON:
		write, read = export.JSON, ingest.JSON
	default:
		t.Fatal(fmt.Sprintf("modeltest.ExportedLog: format %q; one of %s, %s", format, ingest.FormatShiViz, ingest.FormatJSON))
	}
	out, err := write(tl)
	if err != nil {
		t.Fatal(err)
	}
	l, err := read(out, ingest.Options{})
	if err != nil {
		t.Fatalf("%+v: its %s export does not import: %v", spec, format, err)
	}
	return l.Executions[0], tl
}

// ValidateLog checks x against spec's configuration with conform.Validate
// and opt, failing t on an error (a verdict either way is the answer).
func ValidateLog(t testing.TB, reg *scenario.Registry, spec scenario.RunSpec, x *ingest.Execution, opt conform.Options) *conform.Verdict {
	t.Helper()
	n, err := reg.Check(spec)
	if err != nil {
		t.Fatal(err)
	}
	v, err := conform.Validate(n, x, opt)
	if err != nil {
		t.Fatalf("%s/%s: %v", spec.Preset, spec.Variant, err)
	}
	return v
}
