package cluster

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/nats-io/nuid"

	"github.com/racetrack-sim/racetrack/core/check"
	"github.com/racetrack-sim/racetrack/core/scenario"
)

// Coordinator splits searches into tasks on the work queue and settles
// their answers. It does no search work itself (run workers for that;
// the server runs both).
type Coordinator struct {
	nc   *nats.Conn
	js   jetstream.JetStream
	reg  *scenario.Registry
	opts Options
	// lastBytes is what the tasks of the last bfs published;
	// lastParts, the partitions of its last level.
	lastBytes, lastParts atomic.Int64
	// secret keys the tasks' tokens and the audits' samples: a worker
	// can neither answer a task it was not handed nor know which of its
	// states the coordinator re-expands.
	secret [32]byte
}

// NewCoordinator uses nc (the caller keeps it and closes it).
func NewCoordinator(nc *nats.Conn, reg *scenario.Registry, opts Options) (*Coordinator, error) {
	if opts.Parts > MaxParts {
		return nil, fmt.Errorf("cluster: Options.Parts is %d, over the %d a bfs may be split into", opts.Parts, MaxParts)
	}
	opts = opts.withDefaults()
	js, err := jetstream.New(nc)
	if err != nil {
		return nil, fmt.Errorf("cluster: coordinator: %w", err)
	}
	ctx, stop := context.WithTimeout(context.Background(), 30*time.Second)
	defer stop()
	// A cluster that is still forming (no JetStream leader yet, peers not
	// all known) refuses the streams for a moment: try again until it
	// takes them.
	for {
		_, err := ensureStreams(ctx, js, opts)
		if err == nil {
			break
		}
		select {
		case <-ctx.Done():
			return nil, err
		case <-time.After(250 * time.Millisecond):
		}
	}
	c := &Coordinator{nc: nc, js: js, reg: reg, opts: opts}
	_, _ = rand.Read(c.secret[:]) // crypto/rand.Read never fails (Go 1.24+)
	return c, nil
}

// token is the secret of the task with message id msgID.
func (c *Coordinator) token(msgID string) string {
	m := hmac.New(sha256.New, c.secret[:])
	m.Write([]byte(msgID))
	return hex.EncodeToString(m.Sum(nil)[:16])
}

// tokenOK reports whether a result carries its task's token.
func (c *Coordinator) tokenOK(msgID, got string) bool {
	return hmac.Equal([]byte(c.token(msgID)), []byte(got))
}

// LastBFSBytes is the data the tasks of the last bfs search published to
// JetStream (each level's instances and decisions, as stored): its network
// cost, less the task and result messages.
func (c *Coordinator) LastBFSBytes() int64 { return c.lastBytes.Load() }

// ErrLost is wrapped when a search ends because the NATS cluster stayed
// unreachable for Options.LostAfter, or a task failed on every worker it
// was handed to.
var ErrLost = errors.New("cluster: lost the NATS cluster")

// Search runs cfg on the cluster's workers and returns the result a local
// search of cfg returns (see the package documentation for what is the
// same). progress, if not nil, is called with the progress as ranges
// complete. When ctx ends first, Search returns the result so far and
// ctx's error; when the cluster is lost, a result whose Error says why
// and an error wrapping ErrLost.
func (c *Coordinator) Search(ctx context.Context, cfg check.Config, progress func(check.Progress)) (check.Result, error) {
	x, err := check.New(c.reg, cfg)
	if err != nil {
		return check.Result{}, err
	}
	cfg = x.Config()
	res, err := c.search(ctx, cfg, progress)
	if errors.Is(err, context.DeadlineExceeded) && res.Error == "" {
		// A search its time limit stopped has no verdict: never "done,
		// found: false".
		res.Error = fmt.Sprintf("cluster: timed out: the search's time limit ended it before it settled (%d runs, %d states so far); no verdict", res.Runs, res.States)
		res.Verdict, res.Exhaustive = check.VerdictNone, false
	}
	return res, err
}

func (c *Coordinator) search(ctx context.Context, cfg check.Config, progress func(check.Progress)) (check.Result, error) {
	switch cfg.Strategy {
	case check.Random, check.PCT:
		s := &swarm{c: c, cfg: cfg, id: nuid.Next(), progress: progress}
		return s.run(ctx)
	case check.BFS:
		sp, err := check.NewSplit(c.reg, cfg, 1) // the first level's partitions follow the workers (setParts)
		if err != nil {
			return check.Result{}, err
		}
		s := &bfsSearch{c: c, cfg: sp.Config(), split: sp, id: nuid.Next(), progress: progress, maxParts: c.opts.Parts}
		return s.run(ctx)
	default:
		return check.Result{}, &scenario.FieldError{Field: "strategy", Msg: fmt.Sprintf("a distributed search runs random, pct or bfs; %s does not run distributed (its reductions follow one path at a time)", cfg.Strategy)}
	}
}

// publish puts a message with id on a stream, retrying for up to
// LostAfter while the cluster does not answer (a restarting server, a
// cluster electing a leader): a retry of a message JetStream stored
// already is dropped as a duplicate of id, and acknowledged with the
// first one's sequence.
func (c *Coordinator) publish(ctx context.Context, subject string, data []byte, id string) (*jetstream.PubAck, error) {
	var since time.Time
	for {
		pctx, stop := context.WithTimeout(ctx, publishWait)
		ack, err := c.js.Publish(pctx, subject, data, jetstream.WithMsgID(id))
		stop()
		if err == nil {
			return ack, nil
		}
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if since.IsZero() {
			since = time.Now()
		}
		if c.nc.IsClosed() || time.Since(since) >= c.opts.LostAfter {
			return nil, fmt.Errorf("%w: publishing to %s for %v: %v", ErrLost, subject, time.Since(since).Round(time.Millisecond), err)
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(250 * time.Millisecond):
		}
	}
}

// workerWatch notices a cluster that has no worker: tasks wait on the
// queue while no worker holds one or asks for one. The queue is shared
// by every search, so a worker busy with another search counts.
type workerWatch struct {
	c           *Coordinator
	since, last time.Time
}

// check asks the queue at most once a second; it fails once no worker
// was seen for LostAfter.
func (w *workerWatch) check(ctx context.Context) error {
	if time.Since(w.last) < time.Second {
		return nil
	}
	w.last = time.Now()
	ictx, stop := context.WithTimeout(ctx, publishWait)
	defer stop()
	cons, err := w.c.js.Consumer(ictx, workStream, workerConsumer)
	if err != nil {
		return nil // an unreachable cluster is watched by the connection's state
	}
	info := cons.CachedInfo()
	if info.NumWaiting > 0 || info.NumAckPending > 0 || info.NumPending == 0 {
		w.since = time.Time{}
		return nil
	}
	if w.since.IsZero() {
		w.since = time.Now()
	}
	if time.Since(w.since) >= w.c.opts.LostAfter {
		return fmt.Errorf("%w: no worker took a task for %v (start one: racetrack worker -nats URL, or the server without -nats-workers -1)", ErrLost, w.c.opts.LostAfter)
	}
	return nil
}

// publishWait bounds one attempt at publishing.
const publishWait = 5 * time.Second

// swarm is one distributed random or pct search.
type swarm struct {
	c        *Coordinator
	cfg      check.Config
	id       string
	progress func(check.Progress)
	ranges   [][2]int
	results  map[int]rangeResult
	seqs     map[uint64]int // stream sequence of each task -> range index
}

func (s *swarm) run(ctx context.Context) (check.Result, error) {
	c := s.c
	size := max(c.opts.RangeRuns, (s.cfg.Budget.Runs+maxRanges-1)/maxRanges)
	for lo := 0; lo < s.cfg.Budget.Runs; lo += size {
		s.ranges = append(s.ranges, [2]int{lo, min(lo+size, s.cfg.Budget.Runs)})
	}
	s.results = map[int]rangeResult{}
	s.seqs = map[uint64]int{}

	results := make(chan rangeResult, 64)
	exceeded := make(chan uint64, 16)
	cons, err := c.js.OrderedConsumer(ctx, resultStream, jetstream.OrderedConsumerConfig{FilterSubjects: []string{resultSubject + s.id}})
	if err != nil {
		return check.Result{}, fmt.Errorf("cluster: results of search %s: %w", s.id, err)
	}
	cc, err := cons.Consume(func(m jetstream.Msg) {
		var r rangeResult
		if json.Unmarshal(m.Data(), &r) == nil && r.Search == s.id {
			select {
			case results <- r:
			case <-ctx.Done():
			}
		}
	})
	if err != nil {
		return check.Result{}, fmt.Errorf("cluster: results of search %s: %w", s.id, err)
	}
	defer cc.Stop()
	adv, err := c.nc.Subscribe(maxDeliveryAdv, func(m *nats.Msg) {
		var a struct {
			StreamSeq uint64 `json:"stream_seq"`
		}
		if json.Unmarshal(m.Data, &a) == nil {
			select {
			case exceeded <- a.StreamSeq:
			default:
			}
		}
	})
	if err != nil {
		return check.Result{}, fmt.Errorf("cluster: search %s: %w", s.id, err)
	}
	defer func() { _ = adv.Unsubscribe() }()
	defer s.cleanup()

	if err := s.queue(ctx); err != nil {
		if ctx.Err() != nil {
			return s.partial(""), ctx.Err()
		}
		msg := "cluster: queueing the search: " + err.Error()
		return s.partial(msg), fmt.Errorf("%w: %s", ErrLost, msg)
	}

	watch := time.NewTicker(250 * time.Millisecond)
	defer watch.Stop()
	var lostSince time.Time
	workers := workerWatch{c: c}
	for {
		if final, ok := s.settled(); ok {
			for i := range s.ranges {
				if final >= 0 && i > final {
					break
				}
				if err := s.auditRange(i); err != nil {
					return s.partial(err.Error()), err
				}
			}
			return s.settle(final)
		}
		select {
		case <-ctx.Done():
			return s.partial(""), ctx.Err()
		case r := <-results:
			if _, dup := s.results[r.Index]; !dup && s.valid(r) {
				s.results[r.Index] = r
				if s.progress != nil {
					s.progress(s.prog())
				}
			}
		case seq := <-exceeded:
			if i, ok := s.seqs[seq]; ok {
				if _, done := s.results[i]; !done {
					msg := fmt.Sprintf("cluster: runs [%d, %d) were handed to %d workers and none finished them", s.ranges[i][0], s.ranges[i][1], c.opts.MaxDeliver)
					return s.partial(msg), fmt.Errorf("%w: %s", ErrLost, msg)
				}
			}
		case <-watch.C:
			if c.nc.IsClosed() {
				msg := "cluster: the NATS connection is closed"
				return s.partial(msg), fmt.Errorf("%w: %s", ErrLost, msg)
			}
			if c.nc.IsConnected() {
				lostSince = time.Time{}
				if err := workers.check(ctx); err != nil {
					return s.partial(err.Error()), err
				}
				continue
			}
			if lostSince.IsZero() {
				lostSince = time.Now()
			}
			if time.Since(lostSince) >= c.opts.LostAfter {
				msg := fmt.Sprintf("cluster: the NATS cluster was unreachable for %v (last error: %v)", c.opts.LostAfter, c.nc.LastError())
				return s.partial(msg), fmt.Errorf("%w: %s", ErrLost, msg)
			}
		}
	}
}

// valid reports whether r answers one of the search's ranges, from the
// worker that was handed it, within the range's bounds; anything else is
// dropped (and the range waits for a true answer).
func (s *swarm) valid(r rangeResult) bool {
	if r.Index < 0 || r.Index >= len(s.ranges) || !s.c.tokenOK(s.id+"."+strconv.Itoa(r.Index), r.Token) {
		return false
	}
	lo, hi := s.ranges[r.Index][0], s.ranges[r.Index][1]
	if r.Runs < 0 || r.Runs > hi-lo || r.Depth < 0 {
		return false
	}
	return !r.Found || (r.Run >= lo && r.Run < hi)
}

// maxRanges bounds the tasks of one search: larger budgets get larger
// ranges (the answer does not depend on the range size).
const maxRanges = 1024

// queue puts the search's ranges on the work queue, publishing them all
// before waiting for JetStream's acknowledgements.
func (s *swarm) queue(ctx context.Context) error {
	futures := make([]jetstream.PubAckFuture, len(s.ranges))
	for i, r := range s.ranges {
		data, _ := json.Marshal(task{Kind: kindRuns, Search: s.id, Index: i, Lo: r[0], Hi: r[1], Config: s.cfg, Token: s.c.token(s.id + "." + strconv.Itoa(i))})
		f, err := s.c.js.PublishAsync(workSubject+s.id, data, jetstream.WithMsgID(s.id+"."+strconv.Itoa(i)))
		if err != nil {
			return err
		}
		futures[i] = f
	}
	for i, f := range futures {
		select {
		case ack := <-f.Ok():
			s.seqs[ack.Sequence] = i
		case <-f.Err(): // again, alone and patiently (the id drops a copy)
			ack, err := s.c.publish(ctx, workSubject+s.id, f.Msg().Data, s.id+"."+strconv.Itoa(i))
			if err != nil {
				return err
			}
			s.seqs[ack.Sequence] = i
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return nil
}

// settled reports whether the answer is known: every range done, or a
// range that found a violation (or failed) with every range below it
// done. It returns the deciding range (-1: none found anything).
func (s *swarm) settled() (int, bool) {
	for i := range s.ranges {
		r, ok := s.results[i]
		if !ok {
			return 0, false
		}
		if r.Found || r.Error != "" {
			return i, true
		}
	}
	return -1, true
}

// settle builds the final result as a local search would: it replays the
// deciding run (and shrinks its counterexample) on this machine.
func (s *swarm) settle(final int) (check.Result, error) {
	depth := 0
	for i := range s.ranges {
		if final >= 0 && i > final {
			break
		}
		depth = max(depth, s.results[i].Depth)
	}
	if final >= 0 && s.results[final].Error != "" && !s.results[final].Found {
		r := s.partial(fmt.Sprintf("cluster: worker %q failed runs [%d, %d): %s", s.results[final].Worker, s.ranges[final][0], s.ranges[final][1], s.results[final].Error))
		return r, nil
	}
	x, err := check.New(s.c.reg, s.cfg)
	if err != nil {
		return check.Result{}, err
	}
	first := s.cfg.Budget.Runs
	if final >= 0 {
		first = s.results[final].Run
	}
	if err := x.StartAt(first); err != nil {
		return check.Result{}, err
	}
	r := x.Run()
	r.Depth = max(r.Depth, depth)
	return r, nil
}

// prog is the progress so far: the runs of the ranges done.
func (s *swarm) prog() check.Progress {
	p := check.Progress{}
	for _, r := range s.results {
		p.Runs += r.Runs
		p.Depth = max(p.Depth, r.Depth)
		p.Found = p.Found || r.Found
	}
	return p
}

// partial is the result of a search that did not finish.
func (s *swarm) partial(errText string) check.Result {
	p := s.prog()
	return check.Result{Strategy: s.cfg.Strategy, Bounds: check.Bounds{Runs: s.cfg.Budget.Runs, Depth: s.cfg.Budget.Depth, PCTDepth: pctDepth(s.cfg)},
		Verdict: check.VerdictNone, Property: s.cfg.Property, Runs: p.Runs, Depth: p.Depth, Error: errText}
}

func pctDepth(cfg check.Config) int {
	if cfg.Strategy == check.PCT {
		return cfg.PCTDepth
	}
	return 0
}

// cleanup drops the search's queued tasks, tells the workers running its
// ranges to stop, and deletes its results.
func (s *swarm) cleanup() {
	c := s.c
	if !c.nc.IsConnected() {
		return // the tasks expire with the work queue's consumer; workers drop them as cancelled on their next connection
	}
	ctx, stop := context.WithTimeout(context.Background(), 5*time.Second)
	defer stop()
	if st, err := c.js.Stream(ctx, workStream); err == nil {
		_ = st.Purge(ctx, jetstream.WithPurgeSubject(workSubject+s.id))
	}
	_ = c.nc.Publish(cancelSubject+s.id, nil)
	if st, err := c.js.Stream(ctx, resultStream); err == nil {
		_ = st.Purge(ctx, jetstream.WithPurgeSubject(resultSubject+s.id))
	}
	_ = c.nc.Flush()
}
