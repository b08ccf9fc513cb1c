package messager

import (
	"testing"

	"github.com/racetrack-sim/racetrack/core/conform"
	"github.com/racetrack-sim/racetrack/core/ingest"
	"github.com/racetrack-sim/racetrack/core/scenario"
	"github.com/racetrack-sim/racetrack/core/vitess"
)

// modelFor is the configuration of the Vitess model a run of cfg is
// validated against: the untimed preset without delivery, as many
// clients, and iterations enough for every goroutine's loop.
func modelFor(t testing.TB, cfg Config) scenario.Normal {
	t.Helper()
	variant := "fixed"
	if cfg.Version == V13 {
		variant = "buggy"
	}
	n, err := scenario.NewRegistry(vitess.Scenario()).Check(scenario.RunSpec{Scenario: vitess.ID, Preset: vitess.PresetLockLevel,
		Variant: variant, Params: map[string]any{"clients": cfg.Clients, "iterations": max(cfg.Cycles, cfg.Ticks, cfg.RowEvents)}})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func validate(t testing.TB, cfg Config, trace []byte) *conform.Verdict {
	t.Helper()
	l, err := ingest.NDJSON(trace, ingest.Options{})
	if err != nil {
		t.Fatalf("the trace does not import: %v", err)
	}
	v, err := conform.Validate(modelFor(t, cfg), l.Executions[0], conform.Options{Format: ingest.FormatNDJSON})
	if err != nil {
		t.Fatalf("validate: %v", err)
	}
	return v
}
