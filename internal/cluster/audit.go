package cluster

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"errors"
	"fmt"
	"hash/maphash"
	"math/rand/v2"
	"slices"
	"strconv"
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
//   - each task's counts: New is the number of entries of its
//     visited-set increment the coordinator had not seen before, and
//     Kept is at least the number of entries;
//   - a secret sample of the states sent to each partition for each
//     level (one of the batches' subjects and states in it, chosen with
//     a key the workers never see, after the level was published) must
//     be in a visited set once the level is done (a partition that drops
//     what it was sent is caught), and is re-expanded here: a violation
//     or a depth cut the partition did not report fails the search, and
//     every successor must be in a visited set once the next level is
//     done (an expansion that drops or hides successors is caught when
//     the sample hits it).
//
// It keeps a set of the visited states' keys (fingerprints, or hashes
// of the encodings with exact storage): 8 bytes a state and the map's
// overhead, less than the visited sets the local bfs keeps, which the
// search's memory estimate covers.
type bfsAudit struct {
	s       *bfsSearch
	seed    maphash.Seed
	seen    map[uint64]struct{}
	pending []pendingState
	// expanders are the workers that expanded each partition last.
	expanders []string
}

// pendingState is a successor of a sampled state, checked after the
// next level.
type pendingState struct {
	key        uint64
	from, to   int // the partitions of its parent and its own
	parentPath []int
}

func newBFSAudit(s *bfsSearch) *bfsAudit {
	return &bfsAudit{s: s, seed: maphash.MakeSeed(), seen: map[uint64]struct{}{}}
}

// key is a state's key in the audit's set.
func (a *bfsAudit) key(fp uint64, enc string) uint64 {
	if enc != "" {
		return maphash.String(a.seed, enc)
	}
	return fp
}

// admitted checks level's tasks (got: their results by partition) against
// the visited-set increments they published, adds the increments to the
// audit's set and checks the successors of the previous level's sample.
func (a *bfsAudit) admitted(ctx context.Context, level int, got []rangeResult) error {
	s := a.s
	parts := len(got)
	keys := make([][]uint64, parts)
	err := a.read(ctx, fmt.Sprintf("%s%s.seen.%d.*", bfsSubject, s.id, level), func() {
		for p := range parts {
			keys[p] = keys[p][:0]
		}
	}, func(subject string, data []byte) error {
		p, err := strconv.Atoi(subject[strings.LastIndexByte(subject, '.')+1:])
		if err != nil || p < 0 || p >= parts {
			return errCodec
		}
		return eachSeen(data, func(key uint64, enc string) { keys[p] = append(keys[p], a.key(key, enc)) })
	})
	if err != nil {
		return err
	}
	for p, r := range got {
		fresh := 0
		for _, k := range keys[p] {
			if _, ok := a.seen[k]; !ok {
				a.seen[k] = struct{}{}
				fresh++
			}
		}
		if fresh != r.New {
			return fmt.Errorf("%w: worker %q admitted partition %d at level %d and reported %d new states, but published %d", ErrForged, r.Worker, p, level, r.New, fresh)
		}
		if len(keys[p]) > r.Kept {
			return fmt.Errorf("%w: worker %q admitted partition %d at level %d and reported %d states kept, but published %d", ErrForged, r.Worker, p, level, r.Kept, len(keys[p]))
		}
	}
	for _, ps := range a.pending {
		if _, ok := a.seen[ps.key]; !ok {
			return fmt.Errorf("%w: a successor of the state reached by %v (partition %d) is in no visited set after level %d: partition %d's expansion (worker %q) or partition %d's admission (worker %q) dropped it",
				ErrForged, ps.parentPath, ps.from, level, ps.from, a.expanders[ps.from], ps.to, got[ps.to].Worker)
		}
	}
	a.pending = a.pending[:0]
	return nil
}

// expanded samples, for each partition, states sent to it for level
// (got: the level's results by partition): each must be in the audit's
// set, and is re-expanded here; its successors are checked after the
// next level.
func (a *bfsAudit) expanded(ctx context.Context, level int, got []rangeResult) error {
	s := a.s
	a.expanders = a.expanders[:0]
	for _, r := range got {
		a.expanders = append(a.expanders, r.Worker)
	}
	for p, r := range got {
		sample, err := a.sample(ctx, level, p)
		if err != nil {
			return err
		}
		for _, it := range sample {
			if _, ok := a.seen[a.key(it.s.Key, it.s.Enc)]; !ok {
				return fmt.Errorf("%w: worker %q was sent the state reached by %v for partition %d at level %d and stored it in no visited set", ErrForged, r.Worker, it.s.Path, p, level)
			}
			x, err := s.e.Expand(it.s, func(succ check.BFSState) {
				a.pending = append(a.pending, pendingState{key: a.key(succ.Key, succ.Enc), from: p, to: owner(succ.Key, s.parts), parentPath: it.s.Path})
			})
			if err != nil {
				return fmt.Errorf("%w: the coordinator cannot expand a state sent to partition %d at level %d: %v", ErrForged, p, level, err)
			}
			if x.Found != nil && r.FoundAt == nil {
				return fmt.Errorf("%w: worker %q expanded partition %d at level %d and reported no violation, but the state reached by %v violates %s", ErrForged, r.Worker, p, level, it.s.Path, x.Found.Violation.Property)
			}
			if x.Cut && r.Kept > 0 && !r.Cut {
				return fmt.Errorf("%w: worker %q expanded partition %d at level %d and reported no depth cut, but the state reached by %v is at the depth bound", ErrForged, r.Worker, p, level, it.s.Path)
			}
		}
	}
	return nil
}

// sample is up to auditSample states sent to partition p for level, from
// one of the partitions that sent any, both chosen with the
// coordinator's secret.
func (a *bfsAudit) sample(ctx context.Context, level, p int) ([]item, error) {
	s := a.s
	rng := rand.New(rand.NewChaCha8(a.sampleSeed(level, p)))
	var from []string
	err := a.retry(ctx, func(ctx context.Context) error {
		st, err := s.c.js.Stream(ctx, bfsStream)
		if err != nil {
			return err
		}
		info, err := st.Info(ctx, jetstream.WithSubjectFilter(candFilter(s.id, level, p)))
		if err != nil {
			return err
		}
		from = from[:0]
		for subject := range info.State.Subjects {
			from = append(from, subject)
		}
		return nil
	})
	if err != nil || len(from) == 0 {
		return nil, err
	}
	slices.Sort(from) // the map's order must not choose
	subject := from[rng.IntN(len(from))]
	var out []item
	n := 0
	err = a.read(ctx, subject, func() { out, n = out[:0], 0 }, func(_ string, data []byte) error {
		its, err := decodeItems(data, nil)
		for _, it := range its {
			n++ // reservoir sampling: each state is kept with equal chance
			if len(out) < auditSample {
				out = append(out, it)
			} else if j := rng.IntN(n); j < auditSample {
				out[j] = it
			}
		}
		return err
	})
	return out, err
}

// retry runs f until it succeeds, for up to LostAfter while the cluster
// does not answer.
func (a *bfsAudit) retry(ctx context.Context, f func(context.Context) error) error {
	var since time.Time
	for {
		// A request whose server goes away is never answered: bound
		// each attempt.
		actx, stop := context.WithTimeout(ctx, publishWait)
		err := f(actx)
		stop()
		if err == nil {
			return nil
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if since.IsZero() {
			since = time.Now()
		}
		if time.Since(since) >= a.s.c.opts.LostAfter {
			return fmt.Errorf("%w: the audit's stream information: %v", ErrLost, err)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(250 * time.Millisecond):
		}
	}
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
