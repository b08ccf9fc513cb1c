package cluster

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/racetrack-sim/racetrack/core/check"
)

// ErrForged is wrapped when a worker's answer contradicts what the
// coordinator recomputed: the search fails instead of giving a verdict.
var ErrForged = errors.New("cluster: a worker's answer does not match the coordinator's check")

// bfsAudit checks a distributed bfs's answers against the data the
// workers published, with the coordinator's own replica (see
// docs/security.md):
//
//   - the counts: every merge's kept and new states are what its
//     decisions add to the coordinator's replica;
//   - each level, a chunk chosen with a key the workers never see (after
//     the level was published) is expanded again here: its successors
//     must be the instances its range's task sent (an expansion that
//     drops, adds or changes successors is caught when the sample hits
//     it), and a violation or depth cut there that the task did not
//     report fails the search;
//   - each merge is merged again here with probability 1/mergeAudits,
//     chosen the same way: its decisions must be the ones its task
//     published, byte for byte;
//   - a reported violation is expanded again here from the replica.
type bfsAudit struct {
	s *bfsSearch
}

func newBFSAudit(s *bfsSearch) *bfsAudit { return &bfsAudit{s: s} }

// violation expands the chunk a task reported its first violation in
// and returns the violation found there.
func (a *bfsAudit) violation(level int, r rangeResult) (*check.Finding, error) {
	chunk := r.ViolationChunk - 1
	x, err := a.s.split.Expand(nil, chunk, chunk+1, 1<<20, func(int, []byte) error { return nil })
	if err != nil || x.Found == nil {
		return nil, fmt.Errorf("%w: worker %q reported a violation in chunk %d of level %d, but the chunk does not expand to a violation here (%v)", ErrForged, r.Worker, chunk, level, err)
	}
	return x.Found, nil
}

// level reads the level's batches and checks the secret samples of its
// expansions and merges against them.
func (a *bfsAudit) level(ctx context.Context, level int, tasks []task, got, merged []rangeResult) (*levelData, error) {
	s := a.s
	var d *levelData
	err := a.retry(ctx, func() error {
		d = newLevelData(s.id, level, s.partsAt(level))
		err := d.read(ctx, s.c.js, levelFilter(s.id, level))
		if errors.Is(err, errBadBatch) {
			return &taskError{fmt.Errorf("%w: %v", ErrForged, err)}
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	rng := rand.New(rand.NewChaCha8(a.sampleSeed(level)))
	chunk := rng.IntN(tasks[len(tasks)-1].Hi)
	i := slices.IndexFunc(tasks, func(t task) bool { return chunk >= t.Lo && chunk < t.Hi })
	t := tasks[i]
	// Only the instances of the chunk's range: its expansion sent them
	// all (reading every range's would parse up to the whole level).
	x, err := s.split.CheckChunk(chunk, d.rangeInsts(t.Index))
	switch {
	case err != nil:
		return nil, fmt.Errorf("%w: worker %q expanded chunks [%d, %d) of level %d: %v", ErrForged, got[i].Worker, t.Lo, t.Hi, level, err)
	case x.Found != nil:
		return nil, fmt.Errorf("%w: worker %q expanded chunks [%d, %d) of level %d and reported no violation, but chunk %d violates %s", ErrForged, got[i].Worker, t.Lo, t.Hi, level, chunk, x.Found.Violation.Property)
	case x.Cut && !got[i].Cut:
		return nil, fmt.Errorf("%w: worker %q expanded chunks [%d, %d) of level %d and reported no depth cut, but chunk %d is at the depth bound", ErrForged, got[i].Worker, t.Lo, t.Hi, level, chunk)
	}
	for _, p := range auditedMerges(rng, s.partsAt(level)) {
		if err := a.mergeAgain(level, p, d, merged[p]); err != nil {
			return nil, err
		}
	}
	return d, nil
}

// auditedMerges are the partitions of a level whose merges are merged
// again: each with probability 1/mergeAudits.
func auditedMerges(rng *rand.Rand, parts int) []int {
	var out []int
	for p := range parts {
		if rng.IntN(mergeAudits) == 0 {
			out = append(out, p)
		}
	}
	return out
}

// mergeAgain merges partition p of the level again on the coordinator's
// replica and requires the counts and decisions its merge task reported
// and published.
func (a *bfsAudit) mergeAgain(level, p int, d *levelData, r rangeResult) error {
	var mine [][]byte
	m, err := a.s.split.Merge(p, d.insts[p], maxBatch, func(b []byte) error {
		mine = append(mine, append([]byte(nil), b...))
		return nil
	})
	if err != nil {
		return fmt.Errorf("%w: the instances sent to partition %d at level %d: %v", ErrForged, p, level, err)
	}
	if m.Kept != r.Kept || m.New != r.New || !slices.EqualFunc(mine, d.decs[p], bytes.Equal) {
		return fmt.Errorf("%w: worker %q merged partition %d of level %d: %d kept, %d new, %d batches of decisions; merged here: %d kept, %d new, %d batches",
			ErrForged, r.Worker, p, level, r.Kept, r.New, len(d.decs[p]), m.Kept, m.New, len(mine))
	}
	return nil
}

// mergeAudits: the coordinator merges again one merge in mergeAudits, at
// random, whatever the level's partitions (a level of eight partitions
// has one merged again on average; a level of two, one every fourth
// level). A merge of a level of two partitions is half the level: one
// every level would cost the coordinator the merge work of a whole
// worker.
const mergeAudits = 8

// counts checks each merge's counts against what its decisions added to
// the coordinator's replica.
func (a *bfsAudit) counts(level int, merged []rangeResult, adv check.SplitAdvance) error {
	for p, r := range merged {
		if r.New != adv.NewByPart[p] || r.Kept != adv.KeptByPart[p] {
			return fmt.Errorf("%w: worker %q merged partition %d at level %d and reported %d new states (%d kept), but published %d (%d kept)",
				ErrForged, r.Worker, p, level, r.New, r.Kept, adv.NewByPart[p], adv.KeptByPart[p])
		}
	}
	return nil
}

// retry runs f until it succeeds or fails for good (a taskError), for
// up to LostAfter while the cluster does not answer, as a worker's task
// is retried by redelivery.
func (a *bfsAudit) retry(ctx context.Context, f func() error) error {
	var since time.Time
	for {
		err := f()
		var te *taskError
		switch {
		case err == nil:
			return nil
		case errors.As(err, &te):
			return te.err
		case ctx.Err() != nil:
			return ctx.Err()
		}
		if since.IsZero() {
			since = time.Now()
		}
		if time.Since(since) >= a.s.c.opts.LostAfter {
			return fmt.Errorf("%w: the NATS cluster was unreachable for %v while the level's batches were read for the audit (last error: %v)", ErrLost, time.Since(since).Round(time.Millisecond), err)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(250 * time.Millisecond):
		}
	}
}

// sampleSeed is the secret seed of a level's samples.
func (a *bfsAudit) sampleSeed(level int) [32]byte {
	m := hmac.New(sha256.New, a.s.c.secret[:])
	fmt.Fprintf(m, "audit %s %d", a.s.id, level)
	var seed [32]byte
	copy(seed[:], m.Sum(nil))
	return seed
}

// auditRange re-runs one run of range i that its worker reported
// clean, chosen with the coordinator's secret: a violation there fails
// the search (a worker cannot tell which of its runs is checked, so one
// that answers "nothing found" without running is caught with the
// chance that the chosen run violates).
func (s *swarm) auditRange(i int) error {
	r := s.results[i]
	lo, hi := s.ranges[i][0], s.ranges[i][1]
	if r.Error != "" && !r.Found {
		return nil // the search fails with the worker's error, named
	}
	if r.Found {
		hi = r.Run // the runs before the reported one were reported clean
	}
	if hi <= lo {
		return nil
	}
	m := hmac.New(sha256.New, s.c.secret[:])
	fmt.Fprintf(m, "audit %s %d", s.id, i)
	var seed [32]byte
	copy(seed[:], m.Sum(nil))
	run := lo + rand.New(rand.NewChaCha8(seed)).IntN(hi-lo)
	cfg := s.cfg
	cfg.Budget.Runs, cfg.NoShrink = run+1, true
	x, err := check.New(s.c.reg, cfg)
	if err == nil {
		err = x.StartAt(run)
	}
	if err != nil {
		return err
	}
	for !x.Step(64).Done {
	}
	if x.Result().Found {
		return fmt.Errorf("%w: worker %q reported runs [%d, %d) clean up to %d, but run %d violates %s", ErrForged, r.Worker, lo, s.ranges[i][1], hi, run, x.Result().Property)
	}
	return nil
}
