package cluster

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/racetrack-sim/racetrack/core/check"
)

// maxLevelRanges bounds the expand tasks of a level: enough for workers to
// share a level evenly, few enough that a level is a handful of batches
// per pair of range and partition. Below it, a level has two ranges for
// each worker heard from in the level before (see bfsSearch.workers):
// each range costs a task round and a batch for each partition, so two
// workers cut a level in 4, not 16.
const maxLevelRanges = 16

// bfsSearch is one distributed bfs: the local bfs split at its phases
// (check.Split), level-synchronous with two rounds of tasks a level.
// Expand tasks each expand a range of the level's chunks and send each
// successor to the partition that owns its key; merge tasks each decide
// one partition's successors as the local search does. Every worker and
// the coordinator keep a replica (the level logs and the visited set) and
// advance it with every partition's instances and decisions, so any
// worker can take any task, rebuilding its states by replaying their
// paths as the local search does. The coordinator only decides level
// ends and termination, and audits. Every task reads its input from
// JetStream and writes its output there under ids a repeated attempt
// repeats, so a task redelivered after its worker died redoes only
// itself.
type bfsSearch struct {
	c        *Coordinator
	cfg      check.Config
	split    *check.Split // the coordinator's replica
	id       string
	progress func(check.Progress)
	// maxParts bounds a level's partitions; partsFrom is the
	// partitions of the levels before partsDecided, as changes
	// (task.PartsFrom).
	maxParts     int
	partsFrom    [][2]int
	partsDecided int
	results      chan rangeResult
	exceeded     chan uint64
	seqs         map[uint64]string
	// bytes is the data the tasks published (the network cost).
	bytes int
	// heard is the level each worker (by name) last answered a task of.
	heard map[string]int
}

// Search a bfs: the local bfs's result (see the package documentation).
func (s *bfsSearch) run(ctx context.Context) (check.Result, error) {
	s.results = make(chan rangeResult, 64)
	s.exceeded = make(chan uint64, 16)
	s.seqs = map[uint64]string{}
	s.heard = map[string]int{}
	stop, err := s.subscribe(ctx)
	if err != nil {
		return check.Result{}, err
	}
	defer stop()
	defer s.cleanup()

	var o check.Outcome
	audit := newBFSAudit(s)
	var queued []task // the next level's expand tasks, queued already
	for {
		level := s.split.Depth()
		if err := s.split.SetParts(s.setParts(level)); err != nil {
			return s.fail(ctx, o, err)
		}
		tasks := queued
		if tasks == nil {
			tasks = expandTasks(level, s.split.Chunks(), s.workers(level))
			if err := s.queue(ctx, tasks); err != nil {
				return s.fail(ctx, o, err)
			}
		}
		got, err := s.wait(ctx, tasks)
		if err != nil {
			return s.fail(ctx, o, err)
		}
		first := -1 // the range with the first violation
		for i, r := range got {
			if r.Forged {
				return s.fail(ctx, o, fmt.Errorf("%w: worker %q expanding chunks [%d, %d) of level %d: %s (sent by an expansion of level %d)", ErrForged, r.Worker, tasks[i].Lo, tasks[i].Hi, level, r.Error, level-1))
			}
			if r.Error != "" {
				o.Error = fmt.Sprintf("cluster: worker %q failed chunks [%d, %d) of level %d: %s", r.Worker, tasks[i].Lo, tasks[i].Hi, level, r.Error)
				return s.split.Result(o), nil
			}
			if r.ViolationChunk > 0 && first < 0 {
				first = i
			}
		}
		for i, r := range got {
			if first >= 0 && i > first {
				break // the local search counts no further
			}
			o.Transitions += r.Transitions
			o.Depth = max(o.Depth, r.Depth)
			o.Cut = o.Cut || r.Cut
			o.Sampled = o.Sampled || r.Sampled
		}
		if first >= 0 {
			if o.Found, err = audit.violation(level, got[first]); err != nil {
				return s.fail(ctx, o, err)
			}
			o.States = s.split.States()
			return s.split.Result(o), nil
		}
		merges := make([]task, s.partsAt(level))
		for p := range merges {
			merges[p] = task{Kind: kindMerge, Level: level, Index: p, Part: p}
		}
		if err := s.queue(ctx, merges); err != nil {
			return s.fail(ctx, o, err)
		}
		merged, err := s.wait(ctx, merges)
		if err != nil {
			return s.fail(ctx, o, err)
		}
		kept, fresh := 0, 0
		for p, r := range merged {
			if r.Error != "" {
				o.Error = fmt.Sprintf("cluster: worker %q failed to merge partition %d of level %d: %s", r.Worker, p, level, r.Error)
				return s.split.Result(o), nil
			}
			kept, fresh = kept+r.Kept, fresh+r.New
		}
		// The next level's expansions start now, on the merges' word:
		// the workers expand while the coordinator checks that word (a
		// level found forged fails the search, expansions and all).
		queued = nil
		if kept > 0 && s.split.States()+fresh < s.cfg.Budget.States {
			s.setParts(level + 1)
			queued = expandTasks(level+1, (kept+check.SplitChunk-1)/check.SplitChunk, s.workers(level+1))
			if err := s.queue(ctx, queued); err != nil {
				return s.fail(ctx, o, err)
			}
		}
		data, err := audit.level(ctx, level, tasks, got, merged)
		if err != nil {
			return s.fail(ctx, o, err)
		}
		s.bytes += data.bytes
		adv, err := s.split.Advance(data.insts, data.decs)
		if err != nil {
			return s.fail(ctx, o, fmt.Errorf("%w: level %d's batches: %v", ErrForged, level, err))
		}
		if err := audit.counts(level, merged, adv); err != nil {
			return s.fail(ctx, o, err)
		}
		o.States = s.split.States()
		s.report(o, adv.Next)
		if adv.Next == 0 {
			o.Done = true
			return s.split.Result(o), nil
		}
		if o.States >= s.cfg.Budget.States {
			return s.split.Result(o), nil
		}
	}
}

// minRangeChunks is the fewest chunks an expand task takes unless the
// level has fewer: a range sends a batch to each partition, and a small
// level cut into ranges of a chunk each would be many small messages.
const minRangeChunks = 4

// expandTasks are a level's expand tasks: its chunks cut into ranges of
// nearly equal size, of minRangeChunks or more, at most maxLevelRanges
// and two for each of workers (0: not known yet).
func expandTasks(level, chunks, workers int) []task {
	n := max(1, min(chunks/minRangeChunks, maxLevelRanges))
	if workers > 0 {
		n = max(1, min(n, 2*workers))
	}
	out := make([]task, n)
	for i := range n {
		out[i] = task{Kind: kindExpand, Level: level, Index: i, Lo: i * chunks / n, Hi: (i + 1) * chunks / n}
	}
	return out
}

// workers is the number of workers that answered a task of the level
// before the given one (0 at the first levels). It grows as fast as
// needed: with two ranges a worker, workers not heard from take the
// tasks the others leave, and are heard from the next level. A worker
// names itself, so a worker lying about its name can at most raise the
// level's ranges to maxLevelRanges.
func (s *bfsSearch) workers(level int) int {
	n := 0
	for _, l := range s.heard {
		if l >= level-1 {
			n++
		}
	}
	return n
}

// setParts decides the partitions of a level (once: a level's are kept)
// and returns them: one for each worker that answered a task of the
// level before, rounded up to a power of two, at most maxParts, and never
// fewer than the level before had. They only double, so a task carries
// a few changes at most (maxPartsSteps).
func (s *bfsSearch) setParts(level int) int {
	if level < s.partsDecided {
		return s.partsAt(level)
	}
	s.partsDecided = level + 1
	prev := 0
	if n := len(s.partsFrom); n > 0 {
		prev = s.partsFrom[n-1][1]
	}
	p := 1
	for p < s.workers(level) {
		p *= 2
	}
	if p = max(min(p, s.maxParts), prev); p != prev {
		s.partsFrom = append(s.partsFrom, [2]int{level, p})
	}
	return p
}

// partsAt is the partitions of a level setParts decided.
func (s *bfsSearch) partsAt(level int) int {
	return partsAt(s.partsFrom, level, 1)
}

func (s *bfsSearch) report(o check.Outcome, frontier int) {
	if s.progress != nil {
		s.progress(check.Progress{States: o.States, Transitions: o.Transitions, Depth: o.Depth, Frontier: frontier})
	}
}

// fail ends the search on a cancel, a lost cluster or a failed task.
func (s *bfsSearch) fail(ctx context.Context, o check.Outcome, err error) (check.Result, error) {
	if ctx.Err() != nil {
		return s.split.Result(o), ctx.Err()
	}
	o.Error = err.Error()
	return s.split.Result(o), err
}

// taskID names a task: its token and the message id of its publication.
func (s *bfsSearch) taskID(t task) string {
	return fmt.Sprintf("%s.%s.%d.%d", s.id, t.Kind, t.Level, t.Index)
}

// queue puts tasks (one kind, one level, indices 0..n-1) on the work
// queue.
func (s *bfsSearch) queue(ctx context.Context, tasks []task) error {
	c := s.c
	for _, t := range tasks {
		t.Search, t.Parts, t.Config = s.id, s.partsAt(t.Level), s.cfg
		for _, st := range s.partsFrom {
			if st[0] <= t.Level {
				t.PartsFrom = append(t.PartsFrom, st)
			}
		}
		msgID := s.taskID(t)
		t.Token = c.token(msgID)
		data, _ := json.Marshal(t)
		ack, err := c.publish(ctx, workSubject+s.id, data, msgID)
		if err != nil {
			return err
		}
		s.seqs[ack.Sequence] = msgID
	}
	return nil
}

// wait waits for the results of queued tasks. A result of another
// phase is dropped: its phase has all its results already, or comes
// later and takes it again from the worker that redoes its task.
func (s *bfsSearch) wait(ctx context.Context, tasks []task) ([]rangeResult, error) {
	c := s.c
	kind, level := tasks[0].Kind, tasks[0].Level
	got := make([]rangeResult, len(tasks))
	have := make([]bool, len(tasks))
	left := len(tasks)
	watch := time.NewTicker(250 * time.Millisecond)
	defer watch.Stop()
	var lostSince time.Time
	workers := workerWatch{c: c}
	for left > 0 {
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case r := <-s.results:
			if r.Kind != kind || r.Level != level || r.Index < 0 || r.Index >= len(tasks) || have[r.Index] ||
				!c.tokenOK(s.taskID(tasks[r.Index]), r.Token) || !s.valid(tasks[r.Index], r) {
				continue // not this task's answer, or not from the worker handed it
			}
			if r.Stale {
				return nil, fmt.Errorf("%w: worker %q has left level %d before the search did", ErrForged, r.Worker, level)
			}
			got[r.Index], have[r.Index] = r, true
			left--
			if _, known := s.heard[r.Worker]; known || len(s.heard) < 4*maxLevelRanges {
				s.heard[r.Worker] = level // bounded: names are the workers' word
			}
		case seq := <-s.exceeded:
			if id, ok := s.seqs[seq]; ok {
				return nil, fmt.Errorf("%w: task %s was handed to %d workers and none finished it", ErrLost, id, c.opts.MaxDeliver)
			}
		case <-watch.C:
			if c.nc.IsClosed() {
				return nil, fmt.Errorf("%w: the NATS connection is closed", ErrLost)
			}
			if c.nc.IsConnected() {
				lostSince = time.Time{}
				if err := workers.check(ctx); err != nil {
					return nil, err
				}
				continue
			}
			if lostSince.IsZero() {
				lostSince = time.Now()
			}
			if time.Since(lostSince) >= c.opts.LostAfter {
				return nil, fmt.Errorf("%w: the NATS cluster was unreachable for %v (last error: %v)", ErrLost, c.opts.LostAfter, c.nc.LastError())
			}
		}
	}
	return got, nil
}

// valid reports whether a result is within what its task can answer.
func (s *bfsSearch) valid(t task, r rangeResult) bool {
	if r.Transitions < 0 || r.New < 0 || r.Kept < 0 || r.New > r.Kept || r.Bytes < 0 {
		return false
	}
	if t.Kind == kindExpand {
		return r.ViolationChunk == 0 || r.ViolationChunk > t.Lo && r.ViolationChunk <= t.Hi
	}
	return r.ViolationChunk == 0
}

// subscribe starts taking the search's results and the max-delivery
// advisories.
func (s *bfsSearch) subscribe(ctx context.Context) (func(), error) {
	c := s.c
	cons, err := c.js.OrderedConsumer(ctx, resultStream, jetstream.OrderedConsumerConfig{FilterSubjects: []string{resultSubject + s.id}})
	if err != nil {
		return nil, fmt.Errorf("cluster: results of search %s: %w", s.id, err)
	}
	cc, err := cons.Consume(func(m jetstream.Msg) {
		var r rangeResult
		if json.Unmarshal(m.Data(), &r) == nil && r.Search == s.id {
			select {
			case s.results <- r:
			case <-ctx.Done():
			}
		}
	})
	if err != nil {
		return nil, fmt.Errorf("cluster: results of search %s: %w", s.id, err)
	}
	adv, err := c.nc.Subscribe(maxDeliveryAdv, func(m *nats.Msg) {
		var a struct {
			StreamSeq uint64 `json:"stream_seq"`
		}
		if json.Unmarshal(m.Data, &a) == nil {
			select {
			case s.exceeded <- a.StreamSeq:
			default:
			}
		}
	})
	if err != nil {
		cc.Stop()
		return nil, fmt.Errorf("cluster: search %s: %w", s.id, err)
	}
	return func() { cc.Stop(); _ = adv.Unsubscribe() }, nil
}

// cleanup drops the search's tasks and data and tells the workers.
func (s *bfsSearch) cleanup() {
	c := s.c
	if !c.nc.IsConnected() {
		return
	}
	ctx, stop := context.WithTimeout(context.Background(), 5*time.Second)
	defer stop()
	_ = c.nc.Publish(cancelSubject+s.id, nil)
	for _, sp := range [][2]string{{workStream, workSubject + s.id}, {resultStream, resultSubject + s.id}, {bfsStream, bfsSubject + s.id + ".>"}} {
		if st, err := c.js.Stream(ctx, sp[0]); err == nil {
			_ = st.Purge(ctx, jetstream.WithPurgeSubject(sp[1]))
		}
	}
	_ = c.nc.Flush()
	c.lastBytes.Store(int64(s.bytes))
	c.lastParts.Store(int64(s.partsAt(s.split.Depth())))
}
