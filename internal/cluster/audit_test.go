package cluster

import (
	"errors"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/racetrack-sim/racetrack/core/catalog"
	"github.com/racetrack-sim/racetrack/core/check"
)

// A merge merged again on the coordinator's replica passes when its
// counts and decisions are the honest ones, and fails the search as
// forged, naming the worker and the partition, when it claims other
// counts, publishes other decisions under the honest counts, or kept
// nothing.
func TestMergeAgainCatchesForgedMerges(t *testing.T) {
	cfg := check.Config{Scenario: "vitess-messager", Preset: "lock-level", Variant: "fixed", Params: map[string]any{"clients": 2, "iterations": 1},
		Strategy: check.BFS, Reductions: check.DefaultReductions(check.BFS)}
	sp, err := check.NewSplit(catalog.New(), cfg, 2)
	if err != nil {
		t.Fatal(err)
	}
	// Move to a level whose partitions both keep states.
	var d *levelData
	var honest []rangeResult
	for {
		d = newLevelData("s", sp.Depth(), 2)
		if _, err := sp.Expand(nil, 0, sp.Chunks(), 1<<20, func(p int, b []byte) error {
			d.insts[p] = append(d.insts[p], append([]byte(nil), b...))
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		honest = make([]rangeResult, 2)
		for p := range 2 {
			m, err := sp.Merge(p, d.insts[p], 1<<20, func(b []byte) error {
				d.decs[p] = append(d.decs[p], append([]byte(nil), b...))
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			honest[p] = rangeResult{Kept: m.Kept, New: m.New, Worker: "w"}
		}
		if honest[0].Kept > 0 && honest[1].Kept > 0 {
			break
		}
		if adv, err := sp.Advance(d.insts, d.decs); err != nil || adv.Next == 0 {
			t.Fatalf("no level keeps states in both partitions (%v)", err)
		}
	}
	a := &bfsAudit{s: &bfsSearch{split: sp}}
	for p := range 2 {
		if err := a.mergeAgain(sp.Depth(), p, d, honest[p]); err != nil {
			t.Fatalf("the honest merge of partition %d: %v", p, err)
		}
	}
	more := honest[1]
	more.Kept++
	more.Worker = "rogue"
	if err := a.mergeAgain(sp.Depth(), 1, d, more); !errors.Is(err, ErrForged) || !strings.Contains(err.Error(), `worker "rogue" merged partition 1`) {
		t.Fatalf("forged counts: %v", err)
	}
	// The honest counts with other decisions: caught by the bytes.
	tampered := *d
	last := append([]byte(nil), d.decs[1][len(d.decs[1])-1]...)
	last[len(last)-1] ^= 1
	tampered.decs = [][][]byte{d.decs[0], append(append([][]byte(nil), d.decs[1][:len(d.decs[1])-1]...), last)}
	if err := a.mergeAgain(sp.Depth(), 1, &tampered, honest[1]); !errors.Is(err, ErrForged) {
		t.Fatalf("the honest counts with a changed decision: %v", err)
	}
	none := *d
	none.decs = [][][]byte{d.decs[0], nil}
	if err := a.mergeAgain(sp.Depth(), 1, &none, rangeResult{Worker: "rogue"}); !errors.Is(err, ErrForged) {
		t.Fatalf("a merge that kept nothing: %v", err)
	}
}

// Each merge is merged again with probability 1/mergeAudits: over 1,600
// merges about 200 (a margin of six standard deviations), each a
// partition of its level.
func TestAuditedMergesAreOneInEight(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	n := 0
	for range 800 {
		for _, p := range auditedMerges(rng, 2) {
			if p < 0 || p >= 2 {
				t.Fatalf("partition %d audited of 2", p)
			}
			n++
		}
	}
	if n < 120 || n > 280 {
		t.Fatalf("%d of 1600 merges audited, want about %d", n, 1600/mergeAudits)
	}
}
