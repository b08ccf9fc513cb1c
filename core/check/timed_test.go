package check_test

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/racetrack-sim/racetrack/core/catalog"
	"github.com/racetrack-sim/racetrack/core/check"
	"github.com/racetrack-sim/racetrack/core/scenario"
)

func timed(strategy, sc, preset, variant string, samples int, horizonMs int64) check.Config {
	return check.Config{Scenario: sc, Preset: preset, Variant: variant, Strategy: strategy, ValueSamples: samples,
		Budget: check.Budget{States: 300_000, HorizonMs: horizonMs}, Reductions: check.DefaultReductions(strategy), NoShrink: true}
}

// A timed preset draws durations from more options than bfs enumerates:
// the search says which value and how to go on; bad sampling and horizon
// settings are refused naming the field.
func TestTimedPresetsNeedValueSamples(t *testing.T) {
	reg := catalog.New()
	x, err := check.New(reg, timed(check.BFS, "dining-philosophers", "table", "buggy", 0, 0))
	if err != nil {
		t.Fatal(err)
	}
	x.Run()
	if err := x.Err(); !errors.Is(err, check.ErrUnsupported) || !strings.Contains(err.Error(), `"think time" with 21 options`) || !strings.Contains(err.Error(), "valueSamples") {
		t.Fatalf("bfs on a timed preset without valueSamples: %v", err)
	}
	for _, c := range []struct {
		field string
		cfg   check.Config
	}{
		{"valueSamples", timed(check.BFS, "dining-philosophers", "table", "buggy", 1, 0)},
		{"valueSamples", timed(check.BFS, "dining-philosophers", "table", "buggy", check.MaxValueSamples+1, 0)},
		{"valueSamples", timed(check.Random, "dining-philosophers", "table", "buggy", 3, 0)},
		{"budget.horizonMs", timed(check.BFS, "dining-philosophers", "table", "buggy", 3, -1)},
		{"budget.horizonMs", timed(check.BFS, "dining-philosophers", "table", "buggy", 3, check.MaxHorizonMs+1)},
		{"budget.horizonMs", timed(check.PCT, "dining-philosophers", "table", "buggy", 0, 100)},
		// 7 values drawn in Init, 4 samples each: 16,384 initial states.
		{"preset", timed(check.BFS, "tarantool-raft-relay", "random-elections", "drop", 4, 0)},
	} {
		_, err := check.New(reg, c.cfg)
		var fe *scenario.FieldError
		if !errors.As(err, &fe) || fe.Field != c.field {
			t.Errorf("%s %d samples horizon %d: %v, want an error naming %s", c.cfg.Strategy, c.cfg.ValueSamples, c.cfg.Budget.HorizonMs, err, c.field)
		}
	}
}

// With sampled values, bfs and dfs search timed presets: they find the
// seed bugs (a real counterexample that replays, including the values
// drawn while the preset is set up), report that the values were
// sampled, and never call a sampled search a proof.
func TestTimedSearchFindsTheSeedBugs(t *testing.T) {
	reg := catalog.New()
	for _, cfg := range []check.Config{
		timed(check.BFS, "vitess-messager", "unsubscribe-vs-poller", "buggy", 3, 0),
		timed(check.DFS, "vitess-messager", "unsubscribe-vs-poller", "buggy", 3, 0),
		timed(check.BFS, "scylla-mv-backlog", "wrong-shard-local", "buggy", 3, 0),
		timed(check.BFS, "scylla-mv-backlog", "stale-gossip", "fix-shard-only", 3, 0),
		timed(check.BFS, "dining-philosophers", "table", "buggy", 3, 0),
	} {
		r := search(t, reg, cfg)
		t.Logf("%s %s/%s/%s: %s, %d states, %d choices", cfg.Strategy, cfg.Scenario, cfg.Preset, cfg.Variant, r.Verdict, r.States, r.Length)
		if !r.Found || !r.Sampled || r.Exhaustive {
			t.Fatalf("%s %s/%s/%s: %+v", cfg.Strategy, cfg.Scenario, cfg.Preset, cfg.Variant, r)
		}
		replays(t, reg, r)
	}
	// The vitess preset draws each client's first Subscribe in Init: the
	// search starts from every combination, so the counterexample's
	// schedule opens with those values.
	x, err := check.New(reg, timed(check.BFS, "vitess-messager", "unsubscribe-vs-poller", "buggy", 3, 0))
	if err != nil {
		t.Fatal(err)
	}
	if p := x.Progress(); p.States < 2 {
		t.Fatalf("%d initial states; Init draws values", p.States)
	}
}

// A horizon makes a timed search finite: every schedule of the sampled
// values up to it is covered, and the verdict says it is no proof.
func TestTimedSearchWithAHorizonEnds(t *testing.T) {
	reg := catalog.New()
	for _, cfg := range []check.Config{
		timed(check.BFS, "dining-philosophers", "table", "fixed", 2, 8),
		timed(check.BFS, "scylla-mv-backlog", "wrong-shard-local", "fixed", 2, 100),
	} {
		r := search(t, reg, cfg)
		t.Logf("%s/%s/%s horizon %d ms: %s, %d states, depth %d", cfg.Scenario, cfg.Preset, cfg.Variant, cfg.Budget.HorizonMs, r.Verdict, r.States, r.Depth)
		if r.Found || r.Verdict != check.VerdictSampled || !r.Sampled || r.Exhaustive || r.States >= cfg.Budget.States {
			t.Fatalf("%s/%s/%s: %+v", cfg.Scenario, cfg.Preset, cfg.Variant, r)
		}
		// Twice the horizon covers more.
		cfg.Budget.HorizonMs *= 2
		if r2 := search(t, reg, cfg); r2.States <= r.States {
			t.Fatalf("horizon %d ms: %d states, no more than %d at half of it", cfg.Budget.HorizonMs, r2.States, r.States)
		}
	}
}

// bfs steps an expanded state's world into its last successor instead of
// copying it; when that step draws values, the state is rebuilt for the
// others. Either way the search is the same as with every successor
// stepped on a copy: states, transitions, verdict, counterexample length.
func TestInPlaceLastStepGivesTheSameSearch(t *testing.T) {
	reg := catalog.New()
	cfgs := []check.Config{
		timed(check.BFS, "dining-philosophers", "table", "fixed", 3, 400),
		timed(check.BFS, "dining-philosophers", "table", "buggy", 3, 0),
		timed(check.BFS, "vitess-messager", "unsubscribe-vs-poller", "fixed", 3, 300),
		vitessLock(check.BFS, "fixed", 3, 1, check.DefaultReductions(check.BFS)),
		vitessLock(check.BFS, "buggy", 3, 2, check.Reductions{Sleep: true, POR: true, Symmetry: true}),
		philo(check.BFS, "fixed", 4, check.Reductions{}),
	}
	for _, cfg := range slices.Clone(cfgs) {
		cfg.Strategy = check.DFS
		cfgs = append(cfgs, cfg)
	}
	rebuilt := map[string]int{}
	for _, cfg := range cfgs {
		cfg.Budget.States = min(cfg.Budget.States, 30_000)
		x, err := check.New(reg, cfg)
		if err != nil {
			t.Fatal(err)
		}
		got := x.Run()
		if err := x.Err(); err != nil {
			t.Fatal(err)
		}
		rebuilt[cfg.Strategy] += check.Rebuilds(x)
		restore := check.SetInPlaceSteps(false)
		want := search(t, reg, cfg)
		restore()
		t.Logf("%s/%s/%s: %d states, %d transitions, %d rebuilt, %s", cfg.Scenario, cfg.Preset, cfg.Variant, got.States, got.Transitions, check.Rebuilds(x), got.Verdict)
		if got.States != want.States || got.Transitions != want.Transitions || got.Verdict != want.Verdict || got.Length != want.Length {
			t.Errorf("%s %s/%s/%s: in place %d states, %d transitions, %q, length %d; copies %d, %d, %q, %d", cfg.Strategy, cfg.Scenario, cfg.Preset, cfg.Variant,
				got.States, got.Transitions, got.Verdict, got.Length, want.States, want.Transitions, want.Verdict, want.Length)
		}
		if got.Found && !slices.Equal(got.Counterexample.Schedule, want.Counterexample.Schedule) {
			t.Errorf("%s %s/%s/%s: in place counterexample %v; copies %v", cfg.Strategy, cfg.Scenario, cfg.Preset, cfg.Variant, got.Counterexample.Schedule, want.Counterexample.Schedule)
		}
	}
	for _, s := range []string{check.BFS, check.DFS} {
		if rebuilt[s] == 0 {
			t.Errorf("%s rebuilt no state: the test no longer reaches a last step that draws values", s)
		}
	}
}
