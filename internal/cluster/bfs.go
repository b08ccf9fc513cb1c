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

// bfsSearch is one distributed bfs, level-synchronous with one round of
// tasks a level: partition p's task of level L admits the states sent to
// p for L, then expands them, sending their successors to their owners'
// subjects for L+1 as it goes. The coordinator only waits for a level's
// tasks, audits them and decides whether the search goes on. Every task
// reads its input from JetStream and writes its output there, with
// message ids a repeated attempt repeats, so a task redelivered after
// its worker died redoes only itself, and its partition's visited set is
// rebuilt from the per-level increments (the checkpoint).
type bfsSearch struct {
	c        *Coordinator
	cfg      check.Config
	e        *check.Expander
	id       string
	progress func(check.Progress)
	parts    int
	results  chan rangeResult
	exceeded chan uint64
	seqs     map[uint64]string
	// bytes is the data the tasks published (the network cost).
	bytes int
}

// Search a bfs: the answer of check.Expander's driver contract, the
// same as the local bfs (see the package documentation).
func (s *bfsSearch) run(ctx context.Context) (check.Result, error) {
	c := s.c
	s.results = make(chan rangeResult, 64)
	s.exceeded = make(chan uint64, 16)
	s.seqs = map[uint64]string{}
	if err := s.e.EncodeStates(); err != nil {
		return check.Result{}, err
	}
	stop, err := s.subscribe(ctx)
	if err != nil {
		return check.Result{}, err
	}
	defer stop()
	defer s.cleanup()

	var o check.Outcome
	root := s.e.Root()
	subject := candSubject(s.id, 0, owner(root.Key, s.parts), s.parts)
	data := pack(appendItem(nil, item{s: root}))
	if _, err := c.publish(ctx, subject, data, subject+"#0"); err != nil {
		return s.fail(ctx, o, err)
	}
	s.bytes += len(data)
	audit := newBFSAudit(s)
	for level := 0; ; level++ {
		got, err := s.phase(ctx, kindLevel, level)
		if err != nil {
			return s.fail(ctx, o, err)
		}
		frontier := 0
		for _, r := range got {
			if r.Error != "" {
				o.Error = fmt.Sprintf("cluster: worker %q failed partition %d of level %d: %s", r.Worker, r.Part, level, r.Error)
				return s.e.Result(o), nil
			}
			o.States += r.New
			frontier += r.Kept
		}
		if err := audit.admitted(ctx, level, got); err != nil {
			return s.fail(ctx, o, err)
		}
		if err := audit.expanded(ctx, level, got); err != nil {
			return s.fail(ctx, o, err)
		}
		if frontier == 0 {
			o.Done = true
			return s.e.Result(o), nil
		}
		o.Depth = level
		if level > 0 && o.States >= s.cfg.Budget.States {
			// The local bfs stops here, before expanding this level:
			// what the tasks found expanding it does not count.
			return s.e.Result(o), nil
		}
		var found *item
		for _, r := range got {
			o.Transitions += r.Transitions
			o.Cut = o.Cut || r.Cut
			if r.FoundAt != nil {
				its, err := decodeItems(r.FoundAt, nil)
				if err != nil || len(its) != 1 {
					return s.fail(ctx, o, errCodec)
				}
				if found == nil || compareItems(its[0], *found) < 0 {
					found = &its[0]
				}
			}
		}
		s.report(o, frontier)
		if found != nil {
			// Replayed along its path from the initial state, not
			// decoded: a worker's bytes could describe a state no run
			// reaches, a path cannot.
			replay := found.s
			replay.World = nil
			x, err := s.e.Expand(replay, func(check.BFSState) {})
			if err != nil || x.Found == nil {
				return s.fail(ctx, o, fmt.Errorf("%w: the violating state a worker reported does not expand to a violation here: %v", ErrForged, err))
			}
			o.Found = x.Found
			return s.e.Result(o), nil
		}
	}
}

func (s *bfsSearch) report(o check.Outcome, frontier int) {
	if s.progress != nil {
		s.progress(check.Progress{States: o.States, Transitions: o.Transitions, Depth: o.Depth, Frontier: frontier})
	}
}

// fail ends the search on a cancel, a lost cluster or a failed task.
func (s *bfsSearch) fail(ctx context.Context, o check.Outcome, err error) (check.Result, error) {
	if ctx.Err() != nil {
		return s.e.Result(o), ctx.Err()
	}
	o.Error = err.Error()
	return s.e.Result(o), err
}

// phase queues one task per partition and waits for all their results.
func (s *bfsSearch) phase(ctx context.Context, kind string, level int) ([]rangeResult, error) {
	c := s.c
	for p := 0; p < s.parts; p++ {
		msgID := fmt.Sprintf("%s.%s.%d.%d", s.id, kind, level, p)
		data, _ := json.Marshal(task{Kind: kind, Search: s.id, Level: level, Part: p, Parts: s.parts, Config: s.cfg, Token: c.token(msgID)})
		ack, err := c.publish(ctx, workSubject+s.id, data, msgID)
		if err != nil {
			return nil, err
		}
		s.seqs[ack.Sequence] = msgID
	}
	got := make([]rangeResult, s.parts)
	have := make([]bool, s.parts)
	left := s.parts
	watch := time.NewTicker(250 * time.Millisecond)
	defer watch.Stop()
	var lostSince time.Time
	workers := workerWatch{c: c}
	for left > 0 {
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case r := <-s.results:
			if r.Kind != kind || r.Level != level || r.Part < 0 || r.Part >= s.parts || have[r.Part] ||
				!c.tokenOK(fmt.Sprintf("%s.%s.%d.%d", s.id, kind, level, r.Part), r.Token) ||
				r.Transitions < 0 || r.New < 0 || r.Kept < 0 || r.New > r.Kept {
				continue // not this task's answer, or not from the worker handed it
			}
			got[r.Part], have[r.Part] = r, true
			s.bytes += r.Bytes
			left--
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
}
