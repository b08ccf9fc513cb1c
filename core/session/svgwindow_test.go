package session_test

import (
	"testing"

	"github.com/racetrack-sim/racetrack/core/scenario"
	"github.com/racetrack-sim/racetrack/core/session"
	"github.com/racetrack-sim/racetrack/core/timeline"
)

// The svg export draws a short run whole, and a long one as a window of
// MaxSVGSteps steps that holds its first violation.
func TestSVGWindowHoldsTheFirstViolation(t *testing.T) {
	record := func(spec scenario.RunSpec) *timeline.Timeline {
		t.Helper()
		ns, _, err := reg.Normalize(spec)
		if err != nil {
			t.Fatal(err)
		}
		tl, err := timeline.Record(reg, ns, timeline.Options{})
		if err != nil {
			t.Fatal(err)
		}
		return tl
	}
	short := record(scenario.RunSpec{Scenario: "vitess-messager", Preset: "unsubscribe-vs-poller", Variant: "buggy", Seed: 1})
	if from, to := session.SVGWindow(short); from != 0 || to != short.Len() {
		t.Fatalf("a %d-step run is drawn over [%d, %d), want all of it", short.Len(), from, to)
	}
	if testing.Short() {
		return
	}
	long := record(scenario.RunSpec{Scenario: "scylla-mv-backlog", Preset: "steady-hot-shard", Variant: "buggy", Seed: 1})
	vs := long.Violations()
	if long.Len() <= session.MaxSVGSteps || len(vs) == 0 {
		t.Fatalf("steady-hot-shard: %d steps, %d violations; the test needs a long violating run", long.Len(), len(vs))
	}
	from, to := session.SVGWindow(long)
	if to-from != session.MaxSVGSteps || from < 0 || to > long.Len() {
		t.Fatalf("window [%d, %d) of a %d-step run, want %d steps inside it", from, to, long.Len(), session.MaxSVGSteps)
	}
	if v := vs[0].Step; v < from || v >= to {
		t.Fatalf("window [%d, %d) misses the first violation at step %d", from, to, v)
	}
}
