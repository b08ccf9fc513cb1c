package cluster

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"errors"
	"fmt"
	"hash/maphash"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/racetrack-sim/racetrack/core/check"
)

// ErrForged is wrapped when a worker's answer contradicts what the
// coordinator recomputed: the search fails instead of giving a verdict.
var ErrForged = errors.New("cluster: a worker's answer does not match the coordinator's check")

// auditSample is the number of states of each partition of each level
// the coordinator re-expands itself.
const auditSample = 4

// bfsAudit checks a distributed bfs's answers against data the workers
// published and cannot predict the use of (see docs/security.md):
//
//   - each merge's counts: Kept is the number of states in the frontier
//     it published, New the number of entries of its visited-set
//     increment the coordinator had not seen before;
//   - a secret sample of each partition's frontier (chosen with a key
//     the workers never see, after the frontier was published) is
//     re-expanded here: a violation or a depth cut no worker reported
//     fails the search, and every successor must be in the visited set
//     once the next level is merged (a dropped state, or a "kept 0"
//     that hides states, is caught when the sample hits it).
//
// It keeps a set of the visited states' keys (fingerprints, or hashes
// of the encodings with exact storage): 8 bytes a state and the map's
// overhead, less than the visited sets the local bfs keeps, which the
// search's memory estimate covers.
type bfsAudit struct {
	s       *bfsSearch
	seed    maphash.Seed
	seen    map[uint64]struct{}
	sample  []item
	pending []pendingState
	// expanders are the workers that expanded each partition last.
	expanders []string
}

// pendingState is a successor of a sampled state, checked after the
// next merge.
type pendingState struct {
	key        uint64
	from, to   int // the partitions of its parent and its own
	parentPath []int
}

func newBFSAudit(s *bfsSearch, root check.BFSState) *bfsAudit {
	a := &bfsAudit{s: s, seed: maphash.MakeSeed(), seen: map[uint64]struct{}{}}
	a.seen[a.key(root.Key, root.Enc)] = struct{}{}
	a.sample = []item{{s: root}}
	return a
}

// key is a state's key in the audit's set.
func (a *bfsAudit) key(fp uint64, enc string) uint64 {
	if enc != "" {
		return maphash.String(a.seed, enc)
	}
	return fp
}

// expanded re-expands the sampled states of level after the workers
// expanded it (got: their results by partition) and notes the
// successors to look for after the merge.
func (a *bfsAudit) expanded(level int, got []rangeResult) error {
	a.pending = a.pending[:0]
	a.expanders = a.expanders[:0]
	for _, r := range got {
		a.expanders = append(a.expanders, r.Worker)
	}
	for _, it := range a.sample {
		from := owner(it.s.Key, a.s.parts)
		x, err := a.s.e.Expand(it.s, func(succ check.BFSState) {
			a.pending = append(a.pending, pendingState{key: a.key(succ.Key, succ.Enc), from: from, to: owner(succ.Key, a.s.parts), parentPath: it.s.Path})
		})
		if err != nil {
			return fmt.Errorf("%w: the coordinator cannot expand a state of partition %d at level %d: %v", ErrForged, from, level, err)
		}
		r := got[from]
		if x.Found != nil && r.FoundAt == nil {
			return fmt.Errorf("%w: worker %q expanded partition %d at level %d and reported no violation, but the state reached by %v violates %s", ErrForged, r.Worker, from, level, it.s.Path, x.Found.Violation.Property)
		}
		if x.Cut && !r.Cut {
			return fmt.Errorf("%w: worker %q expanded partition %d at level %d and reported no depth cut, but the state reached by %v is at the depth bound", ErrForged, r.Worker, from, level, it.s.Path)
		}
	}
	return nil
}

// merged checks level's merges (got: their results by partition) against
// the increments and frontiers they published, adds the increments to
// the audit's set, checks the pending successors and samples the next
// level's states.
func (a *bfsAudit) merged(ctx context.Context, level int, got []rangeResult) error {
	s := a.s
	parts := len(got)
	// One read for the whole level: every partition's increment and
	// frontier (rt.bfs.<id>.seen.<level>.<part>, .front.<level>.<part>;
	// the candidates, rt.bfs.<id>.cand.<level>.<owner>.<from>, have a
	// token more and do not match).
	keys := make([][]uint64, parts)
	samples := make([][]item, parts)
	kept := make([]int, parts)
	rngs := make([]*rand.Rand, parts)
	prefix := fmt.Sprintf("%s%s.", bfsSubject, s.id)
	err := a.read(ctx, fmt.Sprintf("%s*.%d.*", prefix, level), func() {
		for p := range parts {
			keys[p], samples[p], kept[p] = keys[p][:0], samples[p][:0], 0
			rngs[p] = rand.New(rand.NewChaCha8(a.sampleSeed(level, p)))
		}
	}, func(subject string, data []byte) error {
		var kind string
		var lv, p int
		if n, err := fmt.Sscanf(strings.ReplaceAll(subject[len(prefix):], ".", " "), "%s %d %d", &kind, &lv, &p); n != 3 || err != nil || lv != level || p < 0 || p >= parts {
			return errCodec
		}
		switch kind {
		case "seen":
			return eachSeen(data, func(key uint64, enc string) { keys[p] = append(keys[p], a.key(key, enc)) })
		case "front":
			its, err := decodeItems(data, nil)
			for _, it := range its {
				kept[p]++ // reservoir sampling: each state is kept with equal chance
				if len(samples[p]) < auditSample {
					samples[p] = append(samples[p], it)
				} else if j := rngs[p].IntN(kept[p]); j < auditSample {
					samples[p][j] = it
				}
			}
			return err
		}
		return errCodec
	})
	if err != nil {
		return err
	}
	a.sample = a.sample[:0]
	for p, r := range got {
		fresh := 0
		for _, k := range keys[p] {
			if _, ok := a.seen[k]; !ok {
				a.seen[k] = struct{}{}
				fresh++
			}
		}
		if fresh != r.New {
			return fmt.Errorf("%w: worker %q merged partition %d at level %d and reported %d new states, but published %d", ErrForged, r.Worker, p, level, r.New, fresh)
		}
		if kept[p] != r.Kept {
			return fmt.Errorf("%w: worker %q merged partition %d at level %d and reported %d states kept, but published %d", ErrForged, r.Worker, p, level, r.Kept, kept[p])
		}
		a.sample = append(a.sample, samples[p]...)
	}
	for _, ps := range a.pending {
		if _, ok := a.seen[ps.key]; !ok {
			return fmt.Errorf("%w: a successor of the state reached by %v (partition %d) is in no visited set after level %d: partition %d's expansion (worker %q) or partition %d's merge (worker %q) dropped it",
				ErrForged, ps.parentPath, ps.from, level, ps.from, a.expanders[ps.from], ps.to, got[ps.to].Worker)
		}
	}
	return nil
}

// read passes each message's data on subject to f, retrying the whole
// read (after reset) while the cluster does not answer, as a worker's
// task is retried by redelivery, for up to LostAfter. Malformed data is
// not retried: the worker that published it forged it.
func (a *bfsAudit) read(ctx context.Context, subject string, reset func(), f func(subject string, data []byte) error) error {
	var since time.Time
	for {
		reset()
		var bad error
		err := readStream(ctx, a.s.c.js, subject, func(m jetstream.Msg) error {
			data, err := unpack(m.Data())
			if err == nil {
				err = f(m.Subject(), data)
			}
			if err != nil {
				bad = fmt.Errorf("%w: %s holds malformed data: %v", ErrForged, m.Subject(), err)
			}
			return bad
		})
		if bad != nil || err == nil {
			return bad
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if since.IsZero() {
			since = time.Now()
		}
		if time.Since(since) >= a.s.c.opts.LostAfter {
			return fmt.Errorf("%w: reading %s for the audit: %v", ErrLost, subject, err)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(250 * time.Millisecond):
		}
	}
}

// sampleSeed is the secret seed of a partition's sample at a level.
func (a *bfsAudit) sampleSeed(level, part int) [32]byte {
	m := hmac.New(sha256.New, a.s.c.secret[:])
	fmt.Fprintf(m, "audit %s %d %d", a.s.id, level, part)
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
