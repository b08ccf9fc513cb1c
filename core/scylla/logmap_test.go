package scylla_test

import (
	"strings"
	"testing"

	"github.com/racetrack-sim/racetrack/core/conform"
	"github.com/racetrack-sim/racetrack/core/ingest"
	"github.com/racetrack-sim/racetrack/core/modeltest"
	"github.com/racetrack-sim/racetrack/core/scenario"
	"github.com/racetrack-sim/racetrack/core/scylla"
	"github.com/racetrack-sim/racetrack/core/timeline"
)

var logReg = scenario.NewRegistry(scylla.Scenario())

// logged records spec's run and imports its ShiViz export back.
func logged(t *testing.T, spec scenario.RunSpec) (*ingest.Execution, *timeline.Timeline) {
	return modeltest.ExportedLog(t, logReg, spec, ingest.FormatShiViz)
}

// against validates x against variant on spec's preset with the cluster
// mapping, the ring, latencies and offsets drawn from spec's seed.
func against(t *testing.T, spec scenario.RunSpec, variant string, x *ingest.Execution) *conform.Verdict {
	spec.Variant = variant
	return modeltest.ValidateLog(t, logReg, spec, x, conform.Options{Mapping: scylla.ClusterLog, Format: ingest.FormatShiViz, Seed: &spec.Seed})
}

// A run of every preset and variant, exported as a ShiViz log and
// imported back, is a behaviour of its variant under the cluster
// mapping, with its seed's draws (steady-hot-shard's first 1,500 steps:
// its run is two minutes of load).
func TestExportedRunsConform(t *testing.T) {
	for _, p := range scylla.Scenario().Presets {
		for _, v := range scylla.Scenario().Variants {
			spec := scenario.RunSpec{Scenario: scylla.ID, Preset: p.ID, Variant: v.ID, Seed: 1, MaxSteps: 1500}
			x, _ := logged(t, spec)
			verdict := against(t, spec, v.ID, x)
			if !verdict.Conforms || verdict.Matched != x.Len() {
				t.Fatalf("%s/%s: %s, %d of %d events matched; at %+v", p.ID, v.ID, verdict.Stop, verdict.Matched, x.Len(), verdict.At)
			}
		}
	}
}

// leaves checks that the log of variant from on spec's preset leaves
// variant to, at event want (-1: any), where the model could instead
// take a step that says instead.
func leaves(t *testing.T, spec scenario.RunSpec, from, to string, want func(*ingest.Execution) int, instead string) {
	t.Helper()
	spec.Variant = from
	x, tl := logged(t, spec)
	if len(tl.Violations()) == 0 {
		t.Fatalf("%s/%s seed %d: no violation to log", spec.Preset, from, spec.Seed)
	}
	v := against(t, spec, to, x)
	if v.Conforms || v.Stop != conform.StopLeaves || v.At == nil {
		t.Fatalf("%s's log against %s: %s, want it to leave the model", from, to, v.Stop)
	}
	if w := want(x); w >= 0 && v.At.Event != w {
		t.Errorf("%s's log against %s: leaves at event %d (%q), want %d (%q)", from, to, v.At.Event, x.StepLabel(v.At.Event), w, x.StepLabel(w))
	}
	for _, a := range v.At.Instead {
		if strings.Contains(a.Says, instead) {
			return
		}
	}
	t.Errorf("%s's log against %s: the model could instead %+v, want a step that %s", from, to, v.At.Instead, instead)
}

// first is the first logged event whose label starts with prefix.
func first(prefix string) func(*ingest.Execution) int {
	return func(x *ingest.Execution) int {
		for i := range x.Steps {
			if strings.HasPrefix(x.StepLabel(i), prefix) {
				return i
			}
		}
		return -1
	}
}

func anywhere(*ingest.Execution) int { return -1 }

// Seed 000: the buggy log of a remote or a local write is no behaviour
// of the fix. The fix records the applying shard's backlog, so the
// coordinator throttles the first write: the model's answer waits for
// the flow-control delay where the log answers the client at once.
func TestWrongShardLogLeavesTheFix(t *testing.T) {
	for _, preset := range []string{"wrong-shard-remote", "wrong-shard-local"} {
		spec := scenario.RunSpec{Scenario: scylla.ID, Preset: preset, Seed: 1}
		leaves(t, spec, "buggy", "fixed", first("client: "), "w1's flow-control delay ends")
	}
}

// Seed 001: the buggy stale-gossip log keeps the shard fix alone (it
// does not fix seed 001), and leaves the gossip fixes: always-gossip
// republishes where the log's broker stays silent; the merged fix
// publishes no first value at start (need_publishing is raised by add()
// only), where the log gossips one; and the wrong fix that raises the
// flag on responses only leaves the fix where the view update that
// outlives a broker tick ends and the fix gossips the drained backlog.
func TestStaleGossipLogLeavesTheGossipFixes(t *testing.T) {
	spec := scenario.RunSpec{Scenario: scylla.ID, Preset: "stale-gossip", Variant: "buggy", Seed: 1}
	x, _ := logged(t, spec)
	if v := against(t, spec, "fix-shard-only", x); !v.Conforms {
		t.Errorf("buggy's log against fix-shard-only leaves at %+v, want it to conform (the shard fix keeps seed 001)", v.At)
	}
	leaves(t, spec, "buggy", "always-gossip", anywhere, "gossip carries n1's backlog to n2")
	leaves(t, spec, "buggy", "fixed", first("gossip of"), "backlog broker reads the node backlog")
	slow := scenario.RunSpec{Scenario: scylla.ID, Preset: "stale-gossip-slow-view", Seed: 1}
	leaves(t, slow, "fix-gossip-responses-only", "fixed", anywhere, "gossip carries n2's backlog to n1")
}
