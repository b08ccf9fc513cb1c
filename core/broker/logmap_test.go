package broker_test

import (
	"strings"
	"testing"

	"github.com/racetrack-sim/racetrack/core/broker"
	"github.com/racetrack-sim/racetrack/core/conform"
	"github.com/racetrack-sim/racetrack/core/ingest"
	"github.com/racetrack-sim/racetrack/core/modeltest"
	"github.com/racetrack-sim/racetrack/core/scenario"
	"github.com/racetrack-sim/racetrack/core/timeline"
)

const id = "broker-hw-truncation"

// exported records spec's run and imports its ShiViz export back.
func exported(t *testing.T, reg *scenario.Registry, spec scenario.RunSpec) (*ingest.Execution, *timeline.Timeline) {
	return modeltest.ExportedLog(t, reg, spec, ingest.FormatShiViz)
}

// validate checks x against variant on preset with the broker mapping.
func validate(t *testing.T, reg *scenario.Registry, preset, variant string, x *ingest.Execution) *conform.Verdict {
	spec := scenario.RunSpec{Scenario: id, Preset: preset, Variant: variant}
	return modeltest.ValidateLog(t, reg, spec, x, conform.Options{Mapping: broker.BrokerLog, Format: ingest.FormatShiViz})
}

// A run of either variant on either preset, exported as a ShiViz log and
// imported back, is a behaviour of that variant under the broker
// mapping: every logged event is matched by the model step its rule
// names (on lossy, with the losses the search enumerates).
func TestExportedRunsConform(t *testing.T) {
	reg := scenario.NewRegistry(broker.Scenario())
	lost := 0
	for _, preset := range []string{"restart-then-failover", "lossy"} {
		for _, variant := range []string{"truncate-to-hw", "leader-epoch"} {
			for seed := uint64(1); seed <= 30; seed++ {
				x, tl := exported(t, reg, scenario.RunSpec{Scenario: id, Preset: preset, Variant: variant, Seed: seed})
				v := validate(t, reg, preset, variant, x)
				if !v.Conforms || v.Matched != x.Len() {
					t.Fatalf("%s/%s seed %d: %s, %d of %d events matched; at %+v", preset, variant, seed, v.Stop, v.Matched, x.Len(), v.At)
				}
				for _, c := range tl.Trace().Choices {
					if strings.HasPrefix(c.Label, "lose ") && c.Picked == 1 {
						lost++
					}
				}
			}
		}
	}
	if lost == 0 {
		t.Fatal("no lossy run lost a message: the losses were not validated")
	}
}

// The buggy variant's violation, logged, is no behaviour of the fixed
// variant: it leaves the model at b1's first event after its restart,
// the fetch that truncate-to-hw sends where KIP-101 asks the leader
// where its last epoch ends.
func TestBuggyViolationLeavesTheFixedModel(t *testing.T) {
	reg := scenario.NewRegistry(broker.Scenario())
	found := 0
	for seed := uint64(1); seed <= 60 && found < 3; seed++ {
		x, tl := exported(t, reg, scenario.RunSpec{Scenario: id, Preset: "restart-then-failover", Variant: "truncate-to-hw", Seed: seed})
		if len(tl.Violations()) == 0 {
			continue
		}
		found++
		if v := validate(t, reg, "restart-then-failover", "truncate-to-hw", x); !v.Conforms {
			t.Fatalf("seed %d: the violating run does not conform to its own variant: %+v", seed, v.At)
		}
		v := validate(t, reg, "restart-then-failover", "leader-epoch", x)
		if v.Conforms || v.Stop != conform.StopLeaves || v.At == nil {
			t.Fatalf("seed %d: against leader-epoch %s, want it to leave the model", seed, v.Stop)
		}
		want := firstAfterRestart(t, x)
		if v.At.Event != want {
			t.Errorf("seed %d: leaves at event %d (%q), want %d (%q)", seed, v.At.Event, x.StepLabel(v.At.Event), want, x.StepLabel(want))
		}
		instead := ""
		for _, a := range v.At.Instead {
			instead += a.Says + "; "
		}
		if !strings.Contains(instead, "b1 asks the leader where its last epoch ends") {
			t.Errorf("seed %d: the model could instead %q, want b1's OffsetsForLeaderEpoch among them", seed, instead)
		}
	}
	if found == 0 {
		t.Fatal("no seed of 60 violates acked-writes-kept on truncate-to-hw")
	}
}

// firstAfterRestart is b1's first logged event after the controller
// restarts it.
func firstAfterRestart(t *testing.T, x *ingest.Execution) int {
	t.Helper()
	restarted := false
	for i := range x.Steps {
		lane := x.Procs[x.Steps[i].Proc].Name
		switch {
		case lane == "controller" && strings.HasPrefix(x.StepLabel(i), "b1 crashes and restarts"):
			restarted = true
		case restarted && lane == "b1":
			return i
		}
	}
	t.Fatal("the log has no b1 event after its restart")
	return -1
}
