package tarantool

import (
	"fmt"
	"strings"
	"testing"

	"github.com/racetrack-sim/racetrack/core/internal/golden"

	"github.com/racetrack-sim/racetrack/core/scenario"
	"github.com/racetrack-sim/racetrack/core/sim"
)

// housekeeping reports the periodic steps left out of the golden trace so
// that a reader can follow the story: heartbeats, acks, connection ticks.
func housekeeping(label string) bool {
	switch label {
	case "heartbeat: heartbeat", "send heartbeat", "ack", "waiting for the subscribe response",
		"raft worker: nothing to do", "wal event: recover_remaining_wals: 0 row(s) sent":
		return true
	}
	return strings.HasPrefix(label, "ack vclock")
}

// goldenTrace renders a traced run up to and including its last
// violation (or to the end), one step a line.
func goldenTrace(w *sim.World) string {
	tr := w.Trace()
	last := tr.Len() - 1
	if vs := w.Violations(); len(vs) > 0 {
		last = vs[len(vs)-1].Step
	}
	var b strings.Builder
	b.WriteString("# step time lane kind label (heartbeats, acks and connection ticks left out)\n")
	for i := 0; i <= last; i++ {
		s := tr.Step(i)
		label := tr.StepLabel(i)
		if housekeeping(label) {
			continue
		}
		fmt.Fprintf(&b, "%d %s %s %s %s\n", i, s.Time, w.ProcName(s.Proc), s.Kind, label)
	}
	for _, v := range w.Violations() {
		fmt.Fprintf(&b, "# violation %s at step %d (%s): %s\n", v.Property, v.Step, v.Time, v.Message)
	}
	return b.String()
}

// TestGoldenSubscribeDuringElection pins the seed's scenario with drop,
// seed 1: i1 wins with i2's vote while its relay to i2 is enabling Raft,
// the leader message is lost, i2 ignores the rows.
func TestGoldenSubscribeDuringElection(t *testing.T) {
	run, err := registry().Execute(scenario.RunSpec{Scenario: ScenarioID, Preset: "subscribe-during-election", Variant: "drop", Seed: 1},
		scenario.Options{Trace: true})
	if err != nil {
		t.Fatal(err)
	}
	got := goldenTrace(run.World)
	for _, want := range []string{
		"i1 tx receive SUBSCRIBE vclock {0 0 0}: subscribe response, raft {term 2, vote i1, candidate, vclock {0 0 0}} straight to the socket",
		"i2 applier←i1 receive raft {term 2, vote i1, candidate, vclock {0 0 0}} (subscribe-time): raft_process_msg: vote for i1",
		"i1 applier←i2 receive raft {term 2, vote i1, follower}: raft_process_msg: become leader (3/3 votes)",
		"i1 tx timer raft worker: broadcast {term 2, vote i1, leader}; dropped for i2: relay Raft not enabled",
		"i1 relay→i2 timer relay_send_is_raft_enabled(true)",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("the trace lacks %q", want)
		}
	}
	golden.Check(t, "testdata/subscribe-during-election.golden", []byte(got))
}
