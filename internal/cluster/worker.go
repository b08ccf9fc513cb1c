package cluster

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/racetrack-sim/racetrack/core/check"
	"github.com/racetrack-sim/racetrack/core/scenario"
)

// Worker takes tasks from the work queue on its own connection and runs
// them until stopped.
type Worker struct {
	name   string
	nc     *nats.Conn
	js     jetstream.JetStream
	cons   jetstream.Consumer
	reg    *scenario.Registry
	opts   Options
	cancel context.CancelFunc
	done   chan struct{}
	killed atomic.Bool
	// cancelled holds the ids of the searches cancelled last (a
	// cancelled search's tasks are dropped), bounded.
	cancelled *recentSet
	sub       *nats.Subscription
	// replicas are the bfs searches' replicas of this process (dropped
	// when a search is cancelled or ends); scratch is this worker's
	// memory for expanding.
	replicas *replicas
	scratch  *check.Scratch
	// redelivered counts the tasks this worker got that another worker
	// had taken before.
	redelivered atomic.Int64
}

// StartWorker starts a worker on nc, which it owns from now on (Stop
// closes it).
func StartWorker(nc *nats.Conn, reg *scenario.Registry, name string, opts Options) (*Worker, error) {
	opts = opts.withDefaults()
	js, err := jetstream.New(nc)
	if err != nil {
		return nil, fmt.Errorf("cluster: worker %s: %w", name, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	setup, stop := context.WithTimeout(ctx, 30*time.Second)
	defer stop()
	cons, err := waitQueue(setup, js)
	if err != nil {
		cancel()
		return nil, err
	}
	if info := cons.CachedInfo(); info != nil && info.Config.AckWait > 0 {
		opts.AckWait = info.Config.AckWait // heartbeat at the queue's pace, whoever created it
	}
	w := &Worker{name: name, nc: nc, js: js, cons: cons, reg: reg, opts: opts, cancel: cancel, done: make(chan struct{}), replicas: opts.replicas, scratch: &check.Scratch{}, cancelled: newRecentSet(maxCancelled)}
	if w.replicas == nil {
		w.replicas = newReplicas()
	}
	w.sub, err = nc.Subscribe(cancelSubject+"*", func(m *nats.Msg) {
		id := m.Subject[len(cancelSubject):]
		w.cancelled.add(id)
		w.replicas.drop(id)
	})
	if err != nil {
		cancel()
		return nil, fmt.Errorf("cluster: worker %s: %w", name, err)
	}
	go w.loop(ctx)
	if opts.onStart != nil {
		opts.onStart(w)
	}
	return w, nil
}

// Stop ends the worker after its current task and closes its connection.
func (w *Worker) Stop() {
	w.cancel()
	<-w.done
	w.nc.Close()
}

// Kill drops the worker's connection at once, as a crashed process
// would: its task is neither finished nor acknowledged.
func (w *Worker) Kill() {
	w.killed.Store(true)
	w.nc.Close()
	w.cancel()
	<-w.done
}

func (w *Worker) loop(ctx context.Context) {
	defer close(w.done)
	for ctx.Err() == nil && !w.killed.Load() {
		batch, err := w.cons.Fetch(1, jetstream.FetchMaxWait(500*time.Millisecond))
		if err != nil {
			if w.nc.IsClosed() {
				return
			}
			// Disconnected: the connection retries; so do we.
			select {
			case <-ctx.Done():
			case <-time.After(250 * time.Millisecond):
			}
			continue
		}
		for msg := range batch.Messages() {
			w.handle(ctx, msg)
		}
	}
}

// handle runs one task, heartbeating while it runs, publishes its result
// and acknowledges it. A task it cannot decode is terminated (it would
// fail the same way anywhere).
func (w *Worker) handle(ctx context.Context, msg jetstream.Msg) {
	var t task
	if err := json.Unmarshal(msg.Data(), &t); err != nil || t.validate() != nil {
		_ = msg.Term()
		return
	}
	var run func(context.Context, task) (rangeResult, bool)
	switch t.Kind {
	case kindRuns:
		run = w.runRange
	case kindExpand, kindMerge:
		run = w.bfsTask
	default:
		_ = msg.Term()
		return
	}
	if w.isCancelled(t.Search) {
		_ = msg.Ack()
		return
	}
	redelivered := false
	if md, err := msg.Metadata(); err == nil && md.NumDelivered > 1 {
		w.redelivered.Add(1)
		redelivered = true
	}
	if w.opts.onTask != nil {
		w.opts.onTask(w, redelivered)
	}
	hb, stopHB := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		tick := time.NewTicker(w.opts.AckWait / 3)
		defer tick.Stop()
		for {
			select {
			case <-hb.Done():
				return
			case <-tick.C:
				_ = msg.InProgress()
			}
		}
	}()
	res, ok := run(ctx, t)
	stopHB()
	wg.Wait()
	if !ok {
		if !w.stopped(ctx, t.Search) && w.nc.IsConnected() {
			// A passing failure (a replicated stream between leaders):
			// hand the task out again soon rather than after AckWait.
			_ = msg.NakWithDelay(w.opts.AckWait / 6)
		}
		return // killed, stopped or cancelled: someone else or no one redoes it
	}
	res.Search, res.Kind, res.Index, res.Level, res.Part, res.Worker = t.Search, t.Kind, t.Index, t.Level, t.Part, w.name
	res.Token = t.Token
	data, _ := json.Marshal(res)
	pub, stop := context.WithTimeout(context.Background(), w.opts.AckWait)
	defer stop()
	if _, err := w.js.Publish(pub, resultSubject+t.Search, data); err != nil {
		return // not acknowledged: the task is redelivered
	}
	_ = msg.Ack()
}

// stopped reports whether a task should be given up.
func (w *Worker) stopped(ctx context.Context, search string) bool {
	return ctx.Err() != nil || w.killed.Load() || w.isCancelled(search)
}

func (w *Worker) isCancelled(id string) bool { return w.cancelled.has(id) }

// runRange runs the seed range [Lo, Hi) of a search to its first
// violation. It gives up (false) when the worker is stopped or killed or
// the search is cancelled.
func (w *Worker) runRange(ctx context.Context, t task) (rangeResult, bool) {
	var res rangeResult
	cfg := t.Config
	cfg.Budget.Runs = t.Hi
	cfg.NoShrink = true
	x, err := check.New(w.reg, cfg)
	if err == nil {
		err = x.StartAt(t.Lo)
	}
	if err != nil {
		res.Error = err.Error()
		return res, true
	}
	for {
		if w.stopped(ctx, t.Search) {
			return res, false
		}
		if x.Step(4).Done {
			break
		}
	}
	r := x.Result()
	res.Runs, res.Depth = r.Runs-t.Lo, r.Depth
	if r.Error != "" {
		res.Error = r.Error
	}
	if r.Found {
		res.Found, res.Run = true, r.Runs-1
	}
	return res, true
}
