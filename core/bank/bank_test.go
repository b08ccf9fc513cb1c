package bank_test

import (
	"os"
	"strings"
	"testing"

	"github.com/racetrack-sim/racetrack/core/bank"
	"github.com/racetrack-sim/racetrack/core/check"
	"github.com/racetrack-sim/racetrack/core/internal/quoted"
	"github.com/racetrack-sim/racetrack/core/modeltest"
	"github.com/racetrack-sim/racetrack/core/scenario"
)

var reg = scenario.NewRegistry(bank.Scenario())

func spec(variant string) scenario.RunSpec {
	return scenario.RunSpec{Scenario: "bank-overdraft", Variant: variant}
}

// TestCheckThenActOverdraws: breadth-first search finds the overdraft of
// check-then-act, with both clerks approved before either debits.
func TestCheckThenActOverdraws(t *testing.T) {
	r := modeltest.Search(t, reg, spec("check-then-act"), check.BFS, bank.NoOverdraft)
	if !r.Found || r.Property != bank.NoOverdraft || !strings.Contains(r.Violation, "the balance is -60") {
		t.Fatalf("bfs found %v: %s %q", r.Found, r.Property, r.Violation)
	}
	run, err := reg.Execute(*r.Counterexample, scenario.Options{})
	if err != nil || !run.World.Violated(bank.NoOverdraft) {
		t.Fatalf("the counterexample does not replay: %v", err)
	}
}

// TestAtomicNeverOverdraws: bfs covers every schedule of the fixed
// variant and none overdraws, though the clerks do contend for the lock.
func TestAtomicNeverOverdraws(t *testing.T) {
	r := modeltest.Verify(t, reg, spec("atomic"), check.BFS)
	if !r.Exhaustive {
		t.Fatalf("bfs of atomic did not cover every schedule: %+v", r)
	}
	modeltest.Sweep(t, reg, spec("atomic"), modeltest.Seeds(1, 50)).Never(t)
	if r := modeltest.Search(t, reg, spec("atomic"), check.BFS, bank.Contended); r.Verdict != check.VerdictReached {
		t.Fatalf("the clerks of atomic never contend: %s", r.Verdict)
	}
}

// TestConforms runs the conformance suite on the tutorial's model.
func TestConforms(t *testing.T) {
	modeltest.Conform(t, reg, modeltest.DefaultOptions())
}

// TestTutorialQuotesTheCode holds docs/writing-a-model.md to this
// package: every Go block of the tutorial that is marked as coming from
// core/bank must appear, verbatim, in the package's source.
func TestTutorialQuotesTheCode(t *testing.T) {
	doc, err := os.ReadFile("../../docs/writing-a-model.md")
	if err != nil {
		t.Fatal(err)
	}
	// The message-passing chapter after the marker quotes core/broker,
	// whose tests check it.
	before, _, _ := strings.Cut(string(doc), "<!-- The chapter below quotes core/broker")
	var src strings.Builder
	for _, f := range []string{"bank.go", "bank_test.go"} {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		src.Write(b)
	}
	blocks, missing, err := quoted.Missing(before, src.String())
	if err != nil {
		t.Fatal(err)
	}
	for _, first := range missing {
		t.Errorf("the tutorial's block starting %q is not in core/bank", first)
	}
	if blocks < 6 {
		t.Errorf("the tutorial has %d Go blocks; it should walk through the model", blocks)
	}
}
