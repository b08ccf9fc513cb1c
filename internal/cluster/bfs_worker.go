package cluster

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/racetrack-sim/racetrack/core/check"
)

// maxBatch is the size at which a batch is published: a level of a
// large search is a handful of messages per pair of range and partition,
// not one per state.
const maxBatch = 256 << 10

// Subjects of a bfs search's data, under rt.bfs.<search>: the instances
// expand task t of level L sent to partition p (batch k of them), and
// partition p's decisions for L (batch k).
func instSubject(id string, level, part, t, k int) string {
	return fmt.Sprintf("%s%s.inst.%d.%d.%d.%d", bfsSubject, id, level, part, t, k)
}

func decSubject(id string, level, part, k int) string {
	return fmt.Sprintf("%s%s.dec.%d.%d.%d", bfsSubject, id, level, part, k)
}

// levelFilter is every batch of a level; partFilter a partition's
// instances of a level.
func levelFilter(id string, level int) string {
	return fmt.Sprintf("%s%s.*.%d.>", bfsSubject, id, level)
}

func partFilter(id string, level, part int) string {
	return fmt.Sprintf("%s%s.inst.%d.%d.>", bfsSubject, id, level, part)
}

// levelData is a level's batches as Advance takes them: by partition,
// instances in (range, batch) order, decisions in batch order.
type levelData struct {
	id          string
	level       int
	insts, decs [][][]byte
	// keys are each batch's (range, batch) from its subject.
	instKeys, decKeys [][][2]int
	bytes             int
}

func newLevelData(id string, level, parts int) *levelData {
	return &levelData{id: id, level: level, insts: make([][][]byte, parts), decs: make([][][]byte, parts),
		instKeys: make([][][2]int, parts), decKeys: make([][][2]int, parts)}
}

// add files a message by its subject. A subject no task writes is
// refused: whoever published it forged it.
func (d *levelData) add(subject string, data []byte) error {
	bad := fmt.Errorf("%w: a batch on %s", errBadBatch, subject)
	rest, ok := strings.CutPrefix(subject, fmt.Sprintf("%s%s.", bfsSubject, d.id))
	f := strings.Split(rest, ".")
	if !ok || len(f) < 4 || f[1] != strconv.Itoa(d.level) {
		return bad
	}
	n := make([]int, len(f)-2)
	for i := range n {
		v, err := strconv.Atoi(f[i+2])
		if err != nil || v < 0 {
			return bad
		}
		n[i] = v
	}
	switch p := n[0]; {
	case p >= len(d.insts):
		return bad
	case f[0] == "inst" && len(n) == 3:
		d.insts[p] = append(d.insts[p], data)
		d.instKeys[p] = append(d.instKeys[p], [2]int{n[1], n[2]})
	case f[0] == "dec" && len(n) == 2:
		d.decs[p] = append(d.decs[p], data)
		d.decKeys[p] = append(d.decKeys[p], [2]int{0, n[1]})
	default:
		return bad
	}
	d.bytes += len(data)
	return nil
}

// errBadBatch is a message on a subject no task publishes to.
var errBadBatch = errors.New("cluster: malformed bfs data")

// sort puts every partition's batches in order.
func (d *levelData) sort() {
	for p := range d.insts {
		sortBatches(d.insts[p], d.instKeys[p])
		sortBatches(d.decs[p], d.decKeys[p])
	}
}

// read reads the batches on filter into d, sorted.
func (d *levelData) read(ctx context.Context, js jetstream.JetStream, filter string) error {
	err := readStream(ctx, js, filter, func(m jetstream.Msg) error { return d.add(m.Subject(), m.Data()) })
	d.sort()
	return err
}

// sortBatches orders batches, and their keys with them, by their keys.
func sortBatches(batches [][]byte, keys [][2]int) {
	idx := make([]int, len(batches))
	for i := range idx {
		idx[i] = i
	}
	slices.SortFunc(idx, func(a, b int) int {
		if keys[a][0] != keys[b][0] {
			return keys[a][0] - keys[b][0]
		}
		return keys[a][1] - keys[b][1]
	})
	sorted, sortedKeys := make([][]byte, len(batches)), make([][2]int, len(keys))
	for i, j := range idx {
		sorted[i], sortedKeys[i] = batches[j], keys[j]
	}
	copy(batches, sorted)
	copy(keys, sortedKeys)
}

// rangeInsts is every partition's instance batches that expand task t
// sent.
func (d *levelData) rangeInsts(t int) [][][]byte {
	out := make([][][]byte, len(d.insts))
	for p := range d.insts {
		for j, k := range d.instKeys[p] {
			if k[0] == t {
				out[p] = append(out[p], d.insts[p][j])
			}
		}
	}
	return out
}

// keyChecks: a worker checks the key of one state in keyChecks it
// expands (check.Split.SetKeyChecks), a sample the expanders that sent
// them cannot predict; the coordinator checks every key of the chunks it
// expands again.
const keyChecks = 8

// replica is a process's copy of a bfs search (check.Split): its level
// logs and visited set. Tasks read it concurrently; advancing it to the
// next level is exclusive.
type replica struct {
	mu    sync.RWMutex
	split *check.Split
}

// replicas are the replicas a process holds, by search: the workers of
// one process share them (a replica is the size of the local bfs's
// memory).
type replicas struct {
	mu sync.Mutex
	by map[string]*replica
}

func newReplicas() *replicas { return &replicas{by: map[string]*replica{}} }

func (r *replicas) drop(search string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.by, search)
}

// errStale is a task of a level the replica has left: its result was
// taken before (the coordinator asks for no level it has not reached).
var errStale = errors.New("cluster: a task of a level already done")

// at returns the search's replica advanced to the task's level, read
// locked (the caller unlocks it), reading the levels it misses from
// JetStream (all of them for a replica made now). A replica advanced
// past the level gives errStale.
func (w *Worker) at(ctx context.Context, t task) (*replica, error) {
	rs := w.replicas
	rs.mu.Lock()
	r, ok := rs.by[t.Search]
	if !ok {
		r = &replica{}
		rs.by[t.Search] = r
	}
	rs.mu.Unlock()
	for {
		r.mu.RLock()
		if r.split != nil && r.split.Depth() == t.Level {
			return r, nil
		}
		if r.split != nil && r.split.Depth() > t.Level {
			r.mu.RUnlock()
			return nil, errStale
		}
		r.mu.RUnlock()
		if err := w.advance(ctx, r, t); err != nil {
			return nil, err
		}
	}
}

// advance moves r one level on (or makes it, at the first level).
func (w *Worker) advance(ctx context.Context, r *replica, t task) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.split == nil {
		s, err := check.NewSplit(w.reg, t.Config, t.Parts)
		if err != nil {
			return &taskError{err}
		}
		s.SetKeyChecks(keyChecks, rand.Uint64()) // a secret of this process
		r.split = s
		return nil
	}
	level := r.split.Depth()
	if level >= t.Level {
		return nil
	}
	d := newLevelData(t.Search, level, t.Parts)
	if err := d.read(ctx, w.js, levelFilter(t.Search, level)); errors.Is(err, errBadBatch) {
		return &taskError{err}
	} else if err != nil {
		return err
	}
	if adv, err := r.split.Advance(d.insts, d.decs); err != nil {
		r.split = nil // half advanced: made again from the start
		return &taskError{err}
	} else if adv.Next == 0 {
		r.split = nil // its visited set holds a level it cannot move to
		return &taskError{fmt.Errorf("cluster: a task of level %d, but the search ended at level %d", t.Level, level)}
	}
	return nil
}

// taskError fails the task for good (the search fails with it), unlike a
// lost connection, after which the task is redone.
type taskError struct{ err error }

func (e *taskError) Error() string { return e.err.Error() }

// bfsTask runs a bfs task: an expansion of a range of the level's chunks
// or a partition's merge.
func (w *Worker) bfsTask(ctx context.Context, t task) (rangeResult, bool) {
	var res rangeResult
	r, err := w.at(ctx, t)
	if err != nil {
		var te *taskError
		switch {
		case errors.As(err, &te):
			res.Error = te.Error()
			return res, true
		case errors.Is(err, errStale):
			res.Stale = true
			return res, true
		}
		return res, false
	}
	defer r.mu.RUnlock()
	pub := &publisher{w: w}
	switch t.Kind {
	case kindExpand:
		batches := make([]int, t.Parts)
		stopped := false
		x, err := r.split.Expand(w.scratch, t.Lo, t.Hi, maxBatch, func(p int, b []byte) error {
			if stopped = w.stopped(ctx, t.Search); stopped {
				return errors.New("stopped")
			}
			err := pub.publish(instSubject(t.Search, t.Level, p, t.Index, batches[p]), b)
			batches[p]++
			return err
		})
		if stopped || pub.err != nil {
			return res, false // redone by whoever gets the task next
		}
		if err != nil {
			res.Error, res.Forged = err.Error(), errors.Is(err, check.ErrStateKey)
			return res, true
		}
		res.Transitions, res.Depth, res.Cut, res.Sampled, res.ViolationChunk = x.Transitions, x.Depth, x.Cut, x.Sampled, x.FoundChunk+1
	case kindMerge:
		d := newLevelData(t.Search, t.Level, t.Parts)
		if err := d.read(ctx, w.js, partFilter(t.Search, t.Level, t.Part)); errors.Is(err, errBadBatch) {
			res.Error = err.Error()
			return res, true
		} else if err != nil {
			return res, false
		}
		k := 0
		m, err := r.split.Merge(t.Part, d.insts[t.Part], maxBatch, func(b []byte) error {
			err := pub.publish(decSubject(t.Search, t.Level, t.Part, k), b)
			k++
			return err
		})
		if pub.err != nil {
			return res, false
		}
		if err != nil {
			res.Error = err.Error()
			return res, true
		}
		res.Kept, res.New = m.Kept, m.New
	}
	if pub.wait(ctx) != nil {
		return res, false
	}
	res.Bytes = pub.bytes
	return res, true
}

// publisher publishes a task's batches without waiting for each one's
// acknowledgement (a level of a large search is many of them); wait
// collects them all before the task reports. A batch's message id is its
// subject: a task done again writes the same batches (a replica's
// decisions depend only on the data of the levels before), so JetStream
// drops the repeats.
type publisher struct {
	w     *Worker
	acks  []jetstream.PubAckFuture
	bytes int
	err   error
}

func (p *publisher) publish(subject string, data []byte) error {
	if p.err != nil {
		return p.err
	}
	// An asynchronous publication keeps its bytes until JetStream
	// acknowledges them (it sends them again if no server answered), and
	// Split reuses a batch's memory once the batch is handed over: the
	// publication gets its own copy.
	ack, err := p.w.js.PublishAsync(subject, bytes.Clone(data), jetstream.WithMsgID(subject))
	if err != nil {
		p.err = err
		return err
	}
	p.acks = append(p.acks, ack)
	p.bytes += len(data)
	return nil
}

// wait waits for every batch's acknowledgement, for up to AckWait.
func (p *publisher) wait(ctx context.Context) error {
	timeout := time.After(p.w.opts.AckWait)
	for _, ack := range p.acks {
		select {
		case <-ack.Ok():
		case err := <-ack.Err():
			return err
		case <-ctx.Done():
			return ctx.Err()
		case <-timeout:
			return errors.New("cluster: JetStream did not acknowledge a batch")
		}
	}
	p.acks = p.acks[:0]
	return nil
}

var errShort = errors.New("cluster: a stream ended before its messages were read")

func readStream(ctx context.Context, js jetstream.JetStream, filter string, f func(jetstream.Msg) error) error {
	st, total, cons, err := openRead(ctx, js, filter)
	if err != nil || total == 0 {
		return err
	}
	defer func() {
		dctx, stop := context.WithTimeout(context.Background(), 5*time.Second)
		defer stop()
		_ = st.DeleteConsumer(dctx, cons.CachedInfo().Name)
	}()
	for read, tries := uint64(0), 0; read < total; {
		batch, err := cons.Fetch(int(min(total-read, 256)), jetstream.FetchMaxWait(5*time.Second))
		got := 0
		if err == nil {
			for m := range batch.Messages() {
				got++
				if err := f(m); err != nil {
					return err
				}
			}
			if got == 0 {
				err = batch.Error()
			}
		}
		if got == 0 && errors.Is(err, nats.ErrNoResponders) && tries < 20 {
			// A new consumer of a replicated stream has no leader yet.
			tries++
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-time.After(250 * time.Millisecond):
			}
			continue
		}
		if err != nil {
			return err
		}
		if got == 0 {
			return errShort
		}
		read += uint64(got)
	}
	return nil
}

// openRead counts the messages on filter and makes an ephemeral consumer
// for reading them (one left behind by a crash goes away after
// InactiveThreshold). A replicated stream whose leader is moving answers
// "no responders" for a moment: that is retried for up to 5s here rather
// than costing the task a redelivery after AckWait.
func openRead(ctx context.Context, js jetstream.JetStream, filter string) (jetstream.Stream, uint64, jetstream.Consumer, error) {
	for try := 0; ; try++ {
		st, total, cons, err := openReadOnce(ctx, js, filter)
		if err == nil || !errors.Is(err, nats.ErrNoResponders) || try == 20 {
			return st, total, cons, err
		}
		select {
		case <-ctx.Done():
			return nil, 0, nil, ctx.Err()
		case <-time.After(250 * time.Millisecond):
		}
	}
}

func openReadOnce(ctx context.Context, js jetstream.JetStream, filter string) (jetstream.Stream, uint64, jetstream.Consumer, error) {
	// A request whose server goes away is never answered: bound each
	// attempt, or a task would wait (and heartbeat) for ever.
	ctx, stop := context.WithTimeout(ctx, publishWait)
	defer stop()
	st, err := js.Stream(ctx, bfsStream)
	if err != nil {
		return nil, 0, nil, err
	}
	info, err := st.Info(ctx, jetstream.WithSubjectFilter(filter))
	if err != nil {
		return nil, 0, nil, err
	}
	var total uint64
	for _, n := range info.State.Subjects {
		total += n
	}
	if total == 0 {
		return st, 0, nil, nil
	}
	cons, err := st.CreateConsumer(ctx, jetstream.ConsumerConfig{
		FilterSubject: filter, AckPolicy: jetstream.AckNonePolicy, DeliverPolicy: jetstream.DeliverAllPolicy,
		InactiveThreshold: time.Minute, MemoryStorage: true,
	})
	if err != nil {
		return nil, 0, nil, err
	}
	return st, total, cons, nil
}
