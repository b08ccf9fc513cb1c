package scylla

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/racetrack-sim/racetrack/core/internal/golden"

	"github.com/racetrack-sim/racetrack/core/scenario"
	"github.com/racetrack-sim/racetrack/core/sim"
)

// seed001Step says which of seed 001's five steps a trace line is, if any.
// The stale-gossip preset has n1 coordinate one write to n2 (one shard).
func seed001Step(lane, label string, seen int) int {
	switch {
	case seen == 0 && lane == "n2/s0" && strings.HasPrefix(label, "broker: gossip backlog 0.00"):
		return 1
	case seen == 1 && lane == "n2/s0" && strings.HasSuffix(label, "not gossiped"):
		return 2
	case seen == 2 && strings.HasPrefix(lane, "n1/") && strings.HasSuffix(label, "n2's backlog := 0.62 (response)"):
		return 3
	case seen == 3 && lane == "n2/s0" && strings.HasPrefix(label, "remote view update done"):
		return 4
	case seen >= 4 && lane == "n2/s0" && strings.HasSuffix(label, "not gossiped"):
		return 5
	}
	return 0
}

// renderTrace prints one line per step (step, time, lane, kind, label),
// marks the steps of seed 001, then the violations.
func renderTrace(w *sim.World) (string, int) {
	var b strings.Builder
	tr := w.Trace()
	seen := 0
	for i := 0; i < tr.Len(); i++ {
		st, label := tr.Step(i), tr.StepLabel(i)
		lane := w.ProcName(st.Proc)
		line := fmt.Sprintf("%3d %9s  %-6s %-8s %s", i, secText(st.Time), lane, st.Kind, label)
		if k := seed001Step(lane, label, seen); k > 0 {
			seen = max(seen, k)
			line += fmt.Sprintf("   <- seed 001 step %d", k)
		}
		b.WriteString(strings.TrimRight(line, " ") + "\n")
	}
	for _, v := range w.Violations() {
		fmt.Fprintf(&b, "violation %s at step %d (%s): %s\n", v.Property, v.Step, secText(v.Time), v.Message)
	}
	return b.String(), seen
}

// TestStaleGossipGolden replays seed 001 in the buggy variant: the five
// steps appear in order and the coordinator is left believing 0.62.
func TestStaleGossipGolden(t *testing.T) {
	reg := scenario.NewRegistry(Scenario())
	run, err := reg.Execute(scenario.RunSpec{Scenario: ID, Preset: "stale-gossip", Seed: 1}, scenario.Options{Trace: true})
	if err != nil {
		t.Fatal(err)
	}
	got, seen := renderTrace(run.World)
	if seen != 5 {
		t.Errorf("the trace shows seed 001 up to step %d, want all 5", seen)
	}
	vs := run.World.Violations()
	if len(vs) != 1 || vs[0].Property != PropConverges || !strings.Contains(vs[0].Message, "believes n2's backlog is 0.62") {
		t.Errorf("violations %+v, want only %s about n2 at 0.62", vs, PropConverges)
	}
	golden.Check(t, filepath.Join("testdata", "stale-gossip.golden"), []byte(got))
}
