package check_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/racetrack-sim/racetrack/core/catalog"
	"github.com/racetrack-sim/racetrack/core/check"
	"github.com/racetrack-sim/racetrack/core/scenario"
	"github.com/racetrack-sim/racetrack/core/sim"
)

func philo(strategy, variant string, n int, red check.Reductions) check.Config {
	return check.Config{Scenario: "dining-philosophers", Preset: "lock-level", Variant: variant, Strategy: strategy,
		Params: map[string]any{"philosophers": n}, Property: sim.NoDeadlockName, Reductions: red, NoShrink: true}
}

func maxPhilosophers() int {
	if testing.Short() {
		return 3
	}
	return 4
}

// The shortest deadlock of n philosophers who each take the left fork
// first: each thinks and takes the left fork (2n steps), then all but the
// last ask for the right fork and block (n-1 steps); the last one's
// request closes the cycle. Every step but the final ones (when a single
// thread is left to run) is a scheduling choice: 3n-1 of them.
func TestBFSFindsTheShortestPhilosophersDeadlock(t *testing.T) {
	reg := catalog.New()
	for n := 2; n <= maxPhilosophers(); n++ {
		r := search(t, reg, philo(check.BFS, "buggy", n, check.Reductions{}))
		if !r.Found || r.Property != sim.NoDeadlockName {
			t.Fatalf("n=%d: bfs found no deadlock: %+v", n, r)
		}
		if r.Length != 3*n-1 {
			t.Errorf("n=%d: shortest deadlock schedule has %d choices, want %d", n, r.Length, 3*n-1)
		}
		t.Logf("n=%d: bfs deadlock after %d states, schedule %v: %s", n, r.States, r.Counterexample.Schedule, r.Violation)
		replays(t, reg, r)
		d := search(t, reg, philo(check.DFS, "buggy", n, check.Reductions{}))
		if !d.Found || d.Length < r.Length {
			t.Errorf("n=%d: dfs found=%v length %d, bfs length %d", n, d.Found, d.Length, r.Length)
		}
		replays(t, reg, d)
	}
}

func TestExhaustiveSearchProvesFixedPhilosophersDeadlockFree(t *testing.T) {
	reg := catalog.New()
	for n := 2; n <= maxPhilosophers()+1; n++ {
		for _, s := range []string{check.BFS, check.DFS} {
			red := check.Reductions{}
			if n > maxPhilosophers() {
				red = check.Reductions{Sleep: true, POR: true}
			}
			r := search(t, reg, philo(s, "fixed", n, red))
			if r.Found || !r.Exhaustive || r.Verdict != check.VerdictVerified {
				t.Fatalf("n=%d %s: %+v", n, s, r)
			}
			t.Logf("n=%d %s: %s (%d states, %d transitions, depth %d)", n, s, r.Verdict, r.States, r.Transitions, r.Depth)
		}
	}
}

// Each reduction keeps the verdict and does less work: sleep sets take
// fewer transitions (every state is still visited), the persistent-set
// reduction and DPOR store or visit fewer states, symmetry stores one
// state per orbit of identical clients.
func TestReductionsKeepVerdictsWithLessWork(t *testing.T) {
	reg := catalog.New()
	n := maxPhilosophers()
	for _, variant := range []string{"buggy", "fixed"} {
		for _, s := range []string{check.BFS, check.DFS} {
			base := search(t, reg, philo(s, variant, n, check.Reductions{}))
			cases := []struct {
				red    check.Reductions
				states bool // fewer states, not only fewer transitions
			}{
				{check.Reductions{Sleep: true}, false},
				{check.Reductions{POR: true}, true},
				{check.Reductions{Sleep: true, POR: true}, true},
			}
			if s == check.DFS {
				cases = append(cases, struct {
					red    check.Reductions
					states bool
				}{check.Reductions{Sleep: true, DPOR: true}, false})
			}
			for _, c := range cases {
				r := search(t, reg, philo(s, variant, n, c.red))
				t.Logf("%s n=%d %s %+v: %s, %d states (none: %d), %d transitions (none: %d)", variant, n, s, c.red, r.Verdict, r.States, base.States, r.Transitions, base.Transitions)
				if r.Verdict != base.Verdict || r.Exhaustive != base.Exhaustive {
					t.Errorf("%s %s %+v: verdict %q, without reductions %q", variant, s, c.red, r.Verdict, base.Verdict)
				}
				if r.Found {
					replays(t, reg, r)
				}
				if variant == "fixed" && c.states && r.States >= base.States {
					t.Errorf("%s %s %+v: %d states, no fewer than %d without", variant, s, c.red, r.States, base.States)
				}
				if variant == "fixed" && !c.red.DPOR && r.Transitions >= base.Transitions {
					t.Errorf("%s %s %+v: %d transitions, no fewer than %d without", variant, s, c.red, r.Transitions, base.Transitions)
				}
			}
		}
	}
}

func TestSymmetryReductionKeepsVerdictsWithFewerStates(t *testing.T) {
	reg := catalog.New()
	n := maxPhilosophers()
	plain := search(t, reg, philo(check.BFS, "buggy", n, check.Reductions{}))
	rot := search(t, reg, philo(check.BFS, "buggy", n, check.Reductions{Symmetry: true}))
	t.Logf("philosophers n=%d (rotations): %s; %d states without symmetry, %d with", n, rot.Verdict, plain.States, rot.States)
	if rot.Verdict != plain.Verdict || rot.Length != plain.Length || !rot.Reductions.Symmetry || rot.States >= plain.States {
		t.Errorf("rotations: %+v; without: %+v", rot, plain)
	}
	replays(t, reg, rot)
	for _, c := range []struct {
		variant string
		iter    int
	}{{"buggy", 3}, {"buggy", 2}} {
		cfg := check.Config{Scenario: "vitess-messager", Preset: "lock-level", Variant: c.variant, Strategy: check.BFS,
			Params: map[string]any{"clients": 3, "iterations": c.iter}, Property: sim.NoDeadlockName, NoShrink: true}
		plain := search(t, reg, cfg)
		cfg.Reductions.Symmetry = true
		sym := search(t, reg, cfg)
		t.Logf("vitess %s C=3 ITER=%d: %s; %d states without symmetry, %d with", c.variant, c.iter, sym.Verdict, plain.States, sym.States)
		if sym.Verdict != plain.Verdict || sym.Length != plain.Length || !sym.Reductions.Symmetry {
			t.Errorf("symmetry changed the verdict: %+v vs %+v", sym, plain)
		}
		if sym.States >= plain.States {
			t.Errorf("symmetry: %d states, no fewer than %d", sym.States, plain.States)
		}
		if sym.Found {
			replays(t, reg, sym)
		}
	}
}

// A search is driven in slices: each Step does at most its budget, the
// counts only grow, and the result once done is the same as in one go.
func TestStepRunsInSlices(t *testing.T) {
	reg := catalog.New()
	cfg := philo(check.BFS, "fixed", 3, check.Reductions{})
	x, err := check.New(reg, cfg)
	if err != nil {
		t.Fatal(err)
	}
	var last check.Progress
	slices := 0
	for !last.Done {
		p := x.Step(7)
		if p.States < last.States || p.States-last.States > 7*8 {
			t.Fatalf("slice %d: states %d after %d", slices, p.States, last.States)
		}
		last = p
		slices++
	}
	whole := search(t, reg, cfg)
	if got := x.Result(); got.States != whole.States || got.Verdict != whole.Verdict {
		t.Fatalf("in slices: %+v; in one go: %+v", got, whole)
	}
	if slices < 10 {
		t.Fatalf("only %d slices", slices)
	}
}

func TestDPORIsForDFS(t *testing.T) {
	var fe *scenario.FieldError
	_, err := check.New(catalog.New(), check.Config{Scenario: "dining-philosophers", Preset: "lock-level", Strategy: check.BFS, Reductions: check.Reductions{DPOR: true}})
	if !errors.As(err, &fe) || fe.Field != "reductions.dpor" {
		t.Fatalf("dpor with bfs: %v", err)
	}
}

// Sleep sets prune steps, never states, under symmetry too: the sleep
// masks the visited set keeps name the processes as the canonical state
// does, and a state reached again with a sleep set that is not a
// superset of its stored one is expanded again for the steps asleep the
// first time only. bfs and dfs with sleep sets and symmetry store every
// state symmetry alone stores, with its verdict, in fewer transitions.
func TestSleepSetsUnderSymmetryKeepEveryState(t *testing.T) {
	reg := catalog.New()
	sym, both := check.Reductions{Symmetry: true}, check.Reductions{Sleep: true, Symmetry: true}
	sizes := [][2]int{{2, 1}, {3, 1}, {2, 2}}
	if testing.Short() {
		sizes = sizes[:2]
	}
	var cfgs []check.Config
	for _, strategy := range []string{check.BFS, check.DFS} {
		for _, s := range sizes {
			cfgs = append(cfgs, vitessLock(strategy, "fixed", s[0], s[1], both))
		}
	}
	for _, cfg := range cfgs {
		cfg.Storage = check.StorageExact
		red := search(t, reg, cfg)
		cfg.Reductions = sym
		base := search(t, reg, cfg)
		where := fmt.Sprintf("%s %s %v", cfg.Strategy, cfg.Scenario, cfg.Params)
		t.Logf("%s: %s; %d states, %d transitions with sleep sets, %d without", where, red.Verdict, red.States, red.Transitions, base.Transitions)
		if !red.Reductions.Sleep || !red.Reductions.Symmetry {
			t.Fatalf("%s: reductions applied %+v", where, red.Reductions)
		}
		if red.States != base.States || red.Verdict != base.Verdict || !red.Exhaustive {
			t.Errorf("%s: with sleep sets %d states, %q; symmetry alone %d states, %q", where, red.States, red.Verdict, base.States, base.Verdict)
		}
		if red.Transitions >= base.Transitions {
			t.Errorf("%s: %d transitions with sleep sets, no fewer than %d without", where, red.Transitions, base.Transitions)
		}
	}
}
