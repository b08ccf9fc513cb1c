package check_test

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/racetrack-sim/racetrack/core/catalog"
	"github.com/racetrack-sim/racetrack/core/check"
	"github.com/racetrack-sim/racetrack/core/scenario"
)

// TestProfileRanksWhatGrows profiles the broker's lossy preset with two
// records: the follower's log is the field with the most distinct values
// (it is truncated, refetched and lost in transit) and b1, the follower,
// the process with the most local states. The profile visits the states
// a bfs without reductions stores, level by level, and says the same
// twice.
func TestProfileRanksWhatGrows(t *testing.T) {
	reg := catalog.New()
	cfg := check.Config{Scenario: "broker-hw-truncation", Preset: "lossy", Variant: "leader-epoch", Params: map[string]any{"records": 2}}
	p, err := check.ProfileSearch(reg, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if top := p.Fields[0]; top != (check.FieldProfile{Group: "b1", Field: "log", Distinct: 6}) {
		t.Fatalf("top field %+v, want b1's log with 6 values", top)
	}
	if got := p.Procs[:2]; got[0] != (check.ProcProfile{Proc: "b1", Distinct: 56}) || got[1] != (check.ProcProfile{Proc: "b0", Distinct: 36}) {
		t.Fatalf("top processes %+v, want b1 (56) then b0 (36)", got)
	}
	last := p.Procs[len(p.Procs)-1]
	if last != (check.ProcProfile{Proc: "controller", Distinct: 2}) {
		t.Fatalf("last process %+v, want the controller (2)", last)
	}
	sum := 0
	for _, n := range p.Levels {
		sum += n
	}
	cfg.Strategy, cfg.Reductions = check.BFS, check.Reductions{}
	x, err := check.New(reg, cfg)
	if err != nil {
		t.Fatal(err)
	}
	r := x.Run()
	if !p.Complete || p.States != r.States || sum != p.States || p.Levels[0] != 1 || len(p.Levels) != r.Depth+1 {
		t.Fatalf("profile: complete %v, %d states over %d levels (sum %d); bfs: %d states, depth %d", p.Complete, p.States, len(p.Levels), sum, r.States, r.Depth)
	}
	again, err := check.ProfileSearch(reg, cfg)
	if err != nil || !reflect.DeepEqual(p, again) {
		t.Fatalf("a second profile differs (%v)", err)
	}
	if text := p.Text(3); !strings.Contains(text, "     6  b1: log\n") || strings.Contains(text, "b0: leader epoch") {
		t.Fatalf("text with the top 3:\n%s", text)
	}
}

// TestProfileIsBounded: a profile stops at its state budget and says so;
// a budget beyond MaxProfileStates is refused before any work, naming the
// field.
func TestProfileIsBounded(t *testing.T) {
	reg := catalog.New()
	p, err := check.ProfileSearch(reg, check.Config{Scenario: "dining-philosophers", Preset: "lock-level", Budget: check.Budget{States: 100}})
	if err != nil {
		t.Fatal(err)
	}
	if p.States != 100 || p.Complete {
		t.Fatalf("%d states, complete %v: want 100, stopped at the budget", p.States, p.Complete)
	}
	_, err = check.ProfileSearch(reg, check.Config{Scenario: "dining-philosophers", Budget: check.Budget{States: check.MaxProfileStates + 1}})
	var fe *scenario.FieldError
	if !errors.As(err, &fe) || fe.Field != "budget.states" {
		t.Fatalf("err %v, want a field error on budget.states", err)
	}
}
