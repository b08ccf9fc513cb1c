package cluster

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/racetrack-sim/racetrack/core/check"
)

// Streams, subjects and the workers' consumer.
const (
	// workStream is the work queue: a task is removed once a worker acks
	// it, and redelivered when the worker that took it neither acks it nor
	// reports progress within AckWait.
	workStream     = "RT_WORK"
	workSubject    = "rt.work."   // + search id
	workerConsumer = "workers"    // the one durable consumer all workers share
	resultStream   = "RT_RESULTS" // results, kept until the search ends
	resultSubject  = "rt.result." // + search id
	cancelSubject  = "rt.cancel." // + search id: core NATS, to every worker
	maxDeliveryAdv = "$JS.EVENT.ADVISORY.CONSUMER.MAX_DELIVERIES." + workStream + "." + workerConsumer
	// bfsStream holds a distributed bfs's levels: the successors each
	// expand task sent to each partition and each partition's
	// decisions, under rt.bfs.<search> (check.Split).
	bfsStream  = "RT_BFS"
	bfsSubject = "rt.bfs."
)

// Task kinds.
const (
	kindRuns   = "runs"       // a seed range of a random or pct search
	kindExpand = "bfs-expand" // expand a range of a bfs level's chunks
	kindMerge  = "bfs-merge"  // decide the successors sent to one partition at a bfs level
)

// task is one unit of work on the queue.
type task struct {
	Kind   string `json:"kind"`
	Search string `json:"search"`
	Index  int    `json:"index"`
	// Lo and Hi are a seed range's runs, or a bfs expand task's chunks.
	Lo int `json:"lo"`
	Hi int `json:"hi"`
	// Level and Part name a bfs task's level and partition (of Parts,
	// the level's partitions).
	Level int `json:"level,omitempty"`
	Part  int `json:"part,omitempty"`
	Parts int `json:"parts,omitempty"`
	// PartsFrom is the partitions of every level up to Level, as
	// changes: [level, parts] pairs, the first at level 0, each level's
	// partitions those of the last pair at or before it (empty: Parts at
	// every level). A worker that makes or advances its replica needs
	// the levels' before.
	PartsFrom [][2]int     `json:"parts_from,omitempty"`
	Config    check.Config `json:"config"`
	// Token is this task's secret: its result must carry it, so only a
	// worker the queue handed the task to can answer it.
	Token string `json:"token"`
}

// MaxParts bounds Options.Parts (and a task's Parts).
const MaxParts = 1024

// maxPartsSteps bounds a task's PartsFrom: a search's partitions only
// double (see bfsSearch.setParts), from 1 to at most MaxParts.
const maxPartsSteps = 16

// partsAt is the partitions of a level up to the task's.
func (t task) partsAt(level int) int { return partsAt(t.PartsFrom, level, t.Parts) }

// partsAt is the partitions of a level by changes ([level, parts] pairs
// by level), or dflt before the first.
func partsAt(changes [][2]int, level, dflt int) int {
	parts := dflt
	for _, st := range changes {
		if st[0] > level {
			break
		}
		parts = st[1]
	}
	return parts
}

// validPartsFrom checks a task's PartsFrom against its level and Parts.
func (t task) validPartsFrom() error {
	if len(t.PartsFrom) == 0 {
		return nil
	}
	if len(t.PartsFrom) > maxPartsSteps {
		return fmt.Errorf("cluster: task with %d changes of partitions, over %d", len(t.PartsFrom), maxPartsSteps)
	}
	for i, st := range t.PartsFrom {
		switch {
		case i == 0 && st[0] != 0:
			return fmt.Errorf("cluster: task partitions start at level %d, not 0", st[0])
		case i > 0 && st[0] <= t.PartsFrom[i-1][0]:
			return fmt.Errorf("cluster: task partitions change at level %d after level %d", st[0], t.PartsFrom[i-1][0])
		case st[0] > t.Level:
			return fmt.Errorf("cluster: task of level %d with partitions for level %d", t.Level, st[0])
		case st[1] < 1 || st[1] > MaxParts:
			return fmt.Errorf("cluster: task with %d partitions at level %d", st[1], st[0])
		}
	}
	if p := t.partsAt(t.Level); p != t.Parts {
		return fmt.Errorf("cluster: task of level %d with %d partitions, but %d at that level by its changes", t.Level, t.Parts, p)
	}
	return nil
}

// validate bounds what a task from the queue makes a worker allocate.
func (t task) validate() error {
	switch {
	case t.Kind == kindRuns && (t.Lo < 0 || t.Hi < t.Lo || t.Hi > t.Config.Budget.Runs):
		return fmt.Errorf("cluster: task runs [%d, %d) of a search of %d runs", t.Lo, t.Hi, t.Config.Budget.Runs)
	case t.Kind != kindRuns && (t.Parts < 1 || t.Parts > MaxParts || t.Part < 0 || t.Part >= t.Parts || t.Level < 0):
		return fmt.Errorf("cluster: task part %d of %d at level %d", t.Part, t.Parts, t.Level)
	case t.Kind == kindExpand && (t.Lo < 0 || t.Hi <= t.Lo || t.Index < 0 || t.Index >= maxLevelRanges):
		return fmt.Errorf("cluster: task %d expands chunks [%d, %d)", t.Index, t.Lo, t.Hi)
	case t.Kind != kindRuns:
		return t.validPartsFrom()
	}
	return nil
}

// rangeResult is a worker's answer for a seed range: the first violating
// run of the range, if any.
type rangeResult struct {
	Search string `json:"search"`
	Index  int    `json:"index"`
	Found  bool   `json:"found"`
	// Run is the violating run's index when Found.
	Run int `json:"run,omitempty"`
	// Runs is the number of runs done (up to the violating one).
	Runs int `json:"runs"`
	// Depth is the deepest run (steps) among those done.
	Depth  int    `json:"depth"`
	Error  string `json:"error,omitempty"`
	Worker string `json:"worker"`
	// Token is the task's (see task.Token).
	Token string `json:"token"`
	// A bfs task's answer: its kind, level and partition. An expansion's
	// transitions (through its first violation), the deepest state
	// expanded, its depth cut, whether values were sampled and 1 + the
	// chunk of its first violation (0: none; the coordinator expands
	// the chunk again for the counterexample). A merge's kept instances,
	// New of them not stored before. Stale: the worker has left the
	// task's level.
	Kind           string `json:"kind,omitempty"`
	Level          int    `json:"level,omitempty"`
	Part           int    `json:"part,omitempty"`
	Transitions    int    `json:"transitions,omitempty"`
	Cut            bool   `json:"cut,omitempty"`
	Sampled        bool   `json:"sampled,omitempty"`
	ViolationChunk int    `json:"violationChunk,omitempty"`
	New            int    `json:"new,omitempty"`
	Kept           int    `json:"kept,omitempty"`
	Stale          bool   `json:"stale,omitempty"`
	// Forged: the expansion met a state whose world is not the one its
	// key names (check.ErrStateKey): the expansion before it lied.
	Forged bool `json:"forged,omitempty"`
	// Bytes is what the task published.
	Bytes int `json:"bytes,omitempty"`
}

// Options tune the cluster. Zero fields take the defaults.
type Options struct {
	// AckWait is how long a task stays with a worker that reports nothing
	// before JetStream hands it to another (default 30s; workers report
	// progress every AckWait/3).
	AckWait time.Duration
	// MaxDeliver is how often a task is handed out before the search
	// fails (default 5).
	MaxDeliver int
	// RangeRuns is the number of runs of one seed range (default 50).
	RangeRuns int
	// LostAfter is how long a search waits for a lost NATS connection to
	// come back before it fails (default 30s).
	LostAfter time.Duration
	// Replicas is the replication of the streams (1; 3 on a NATS cluster
	// of three).
	Replicas int
	// Parts is the most fingerprint ranges a bfs level is partitioned
	// into, a merge task each (default 64, at most MaxParts:
	// NewCoordinator refuses more). A level has one for each worker
	// that answered a task of the level before, rounded up to a power of
	// two, and never fewer than the level before: a merge task costs a
	// round of messages, and partitions beyond the workers that take
	// them add messages, not speed.
	Parts int
	// onTask, if set, is called as a worker starts a task, saying whether
	// another worker had it before (tests use it to kill a worker that
	// holds one); onStart, as a worker starts taking tasks.
	onTask  func(w *Worker, redelivered bool)
	onStart func(w *Worker)
	// replicas, if set, are shared by the workers of one process (see
	// RunWorkers).
	replicas *replicas
}

func (o Options) withDefaults() Options {
	if o.AckWait <= 0 {
		o.AckWait = 30 * time.Second
	}
	if o.MaxDeliver <= 0 {
		o.MaxDeliver = 5
	}
	if o.RangeRuns <= 0 {
		o.RangeRuns = 50
	}
	if o.LostAfter <= 0 {
		o.LostAfter = 30 * time.Second
	}
	if o.Parts <= 0 {
		o.Parts = 64
	}
	if o.Replicas <= 0 {
		o.Replicas = 1
	}
	return o
}

// ensureStreams creates the streams and the workers' consumer where they
// are missing; existing ones are kept as they are, so the first
// coordinator to start (the server) decides their replicas and AckWait.
// Only a coordinator creates them: a worker may not (see
// workerPublish), it waits for them (waitQueue).
func ensureStreams(ctx context.Context, js jetstream.JetStream, o Options) (jetstream.Consumer, error) {
	streams := []jetstream.StreamConfig{{
		Name: workStream, Subjects: []string{workSubject + ">"},
		Retention: jetstream.WorkQueuePolicy, Storage: jetstream.FileStorage, Replicas: o.Replicas,
		Duplicates: time.Minute,
	}, {
		Name: resultStream, Subjects: []string{resultSubject + ">"},
		Retention: jetstream.LimitsPolicy, Storage: jetstream.FileStorage, Replicas: o.Replicas,
		MaxAge: 24 * time.Hour,
	}, {
		Name: bfsStream, Subjects: []string{bfsSubject + ">"},
		Retention: jetstream.LimitsPolicy, Storage: jetstream.FileStorage, Replicas: o.Replicas,
		MaxAge: 24 * time.Hour, Duplicates: 10 * time.Minute, MaxMsgSize: maxBatch * 2,
	}}
	for _, cfg := range streams {
		if _, err := js.Stream(ctx, cfg.Name); err == nil {
			continue
		} else if !errors.Is(err, jetstream.ErrStreamNotFound) {
			return nil, fmt.Errorf("cluster: stream %s: %w", cfg.Name, err)
		}
		if _, err := js.CreateStream(ctx, cfg); err != nil && !errors.Is(err, jetstream.ErrStreamNameAlreadyInUse) {
			return nil, fmt.Errorf("cluster: stream %s: %w", cfg.Name, err)
		}
	}
	if cons, err := js.Consumer(ctx, workStream, workerConsumer); err == nil {
		return cons, nil
	}
	cons, err := js.CreateConsumer(ctx, workStream, jetstream.ConsumerConfig{
		Durable: workerConsumer, AckPolicy: jetstream.AckExplicitPolicy,
		AckWait: o.AckWait, MaxDeliver: o.MaxDeliver, FilterSubject: workSubject + ">",
		Replicas: o.Replicas,
	})
	if errors.Is(err, jetstream.ErrConsumerExists) {
		cons, err = js.Consumer(ctx, workStream, workerConsumer)
	}
	if err != nil {
		return nil, fmt.Errorf("cluster: consumer %s: %w", workerConsumer, err)
	}
	return cons, nil
}

// waitQueue waits until a coordinator made the work queue and its
// consumer, and returns the consumer.
func waitQueue(ctx context.Context, js jetstream.JetStream) (jetstream.Consumer, error) {
	for {
		cons, err := js.Consumer(ctx, workStream, workerConsumer)
		if err == nil {
			return cons, nil
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("cluster: no work queue on the NATS cluster (the server's coordinator makes it: start the server first): %w", err)
		case <-time.After(250 * time.Millisecond):
		}
	}
}
