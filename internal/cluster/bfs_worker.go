package cluster

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats-server/v2/server"
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

// levelFilter is every batch of a level.
func levelFilter(id string, level int) string {
	return fmt.Sprintf("%s%s.*.%d.>", bfsSubject, id, level)
}

// rangeFilter is what expand task t of a level sent to partition part
// ("*": to every partition); decFilter is a partition's decisions ("*":
// every partition's).
func rangeFilter(id string, level int, part string, t int) string {
	return fmt.Sprintf("%s%s.inst.%d.%s.%d.*", bfsSubject, id, level, part, t)
}

func decFilter(id string, level int, part string) string {
	return fmt.Sprintf("%s%s.dec.%d.%s.*", bfsSubject, id, level, part)
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
	// have is the subjects filed: a batch read twice is filed once.
	have map[string]bool
}

func newLevelData(id string, level, parts int) *levelData {
	return &levelData{id: id, level: level, insts: make([][][]byte, parts), decs: make([][][]byte, parts),
		instKeys: make([][][2]int, parts), decKeys: make([][][2]int, parts), have: map[string]bool{}}
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
	if d.have[subject] {
		return nil
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
	d.have[subject] = true
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

// read reads the batches on filters into d (none: nothing to read), and
// sorts what d holds.
func (d *levelData) read(ctx context.Context, js jetstream.JetStream, filters ...string) error {
	var err error
	if len(filters) > 0 {
		err = readStream(ctx, js, levelFilter(d.id, d.level), filters, func(m jetstream.Msg) error { return d.add(m.Subject(), m.Data()) })
	}
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
	// own is what this process's tasks published for the replica's
	// level: advancing reads the rest from JetStream.
	own ownBatches
}

// ownBatches are the batches a process's tasks of one level published
// (and JetStream stored from them, not from another publisher): the
// expand tasks (ranges) and merges (partitions) done here in full.
// Tasks add to them concurrently, under the replica's read lock.
type ownBatches struct {
	mu    sync.Mutex
	level int
	ownLevel
}

// ownLevel is a level's own batches: by subject, with the ranges and
// partitions whose tasks published them.
type ownLevel struct {
	batches map[string][]byte
	ranges  map[int]bool
	merges  map[int]bool
}

// keep records a task's batches, if it is of the level the batches are
// of (a task holds the replica's read lock: the level does not move).
func (o *ownBatches) keep(level int, kind string, index int, sent map[string][]byte) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.batches == nil || o.level != level {
		o.level, o.batches, o.ranges, o.merges = level, map[string][]byte{}, map[int]bool{}, map[int]bool{}
	}
	for subj, b := range sent {
		o.batches[subj] = b
	}
	if kind == kindExpand {
		o.ranges[index] = true
	} else {
		o.merges[index] = true
	}
}

// of returns a copy of the batches kept for a level (nil maps for
// none): tasks still running add to them.
func (o *ownBatches) of(level int) ownLevel {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.level != level || o.batches == nil {
		return ownLevel{}
	}
	return ownLevel{batches: maps.Clone(o.batches), ranges: maps.Clone(o.ranges), merges: maps.Clone(o.merges)}
}

// missing is the subject filters of the ranges of the level not expanded
// here, for partition part ("*": every partition). The ranges are
// enumerated to maxLevelRanges: one the level did not have matches
// nothing.
func (o ownLevel) missing(id string, level int, part string) []string {
	var filters []string
	for i := range maxLevelRanges {
		if !o.ranges[i] {
			filters = append(filters, rangeFilter(id, level, part, i))
		}
	}
	return filters
}

// addOwn files the batches this process published for the level.
func (d *levelData) addOwn(own ownLevel) error {
	for subj, b := range own.batches {
		if err := d.add(subj, b); err != nil {
			return err
		}
	}
	return nil
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
			if r.split.Parts() != t.Parts {
				r.mu.RUnlock()
				return nil, &taskError{fmt.Errorf("cluster: a task of level %d in %d partitions, but the replica's level has %d", t.Level, t.Parts, r.split.Parts())}
			}
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
		s, err := check.NewSplit(w.reg, t.Config, t.partsAt(0))
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
	// What this process published for the level is here already; the
	// rest (the other processes' ranges and merges) is read. The
	// replica's level has its partitions already (set when it was made
	// or moved to it).
	parts := r.split.Parts()
	d := newLevelData(t.Search, level, parts)
	own := r.own.of(level)
	if err := d.addOwn(own); err != nil {
		return &taskError{err}
	}
	filters := own.missing(t.Search, level, "*")
	if len(own.merges) == 0 || parts-len(own.merges) > maxLevelRanges {
		filters = append(filters, decFilter(t.Search, level, "*")) // what is here is skipped
	} else {
		for p := range parts {
			if !own.merges[p] {
				filters = append(filters, decFilter(t.Search, level, strconv.Itoa(p)))
			}
		}
	}
	if err := d.read(ctx, w.js, filters...); errors.Is(err, errBadBatch) {
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
	if err := r.split.SetParts(t.partsAt(level + 1)); err != nil {
		r.split = nil
		return &taskError{err}
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
		// The instances this process's expansions sent are here; the
		// other ranges' are read.
		d := newLevelData(t.Search, t.Level, t.Parts)
		own := r.own.of(t.Level)
		if err := d.addOwn(own); err != nil {
			res.Error = err.Error()
			return res, true
		}
		if err := d.read(ctx, w.js, own.missing(t.Search, t.Level, strconv.Itoa(t.Part))...); errors.Is(err, errBadBatch) {
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
	if !pub.dup {
		// JetStream stored these bytes, not another publisher's under
		// the same subjects: this process's next advance need not read
		// them back.
		index := t.Index
		if t.Kind == kindMerge {
			index = t.Part
		}
		r.own.keep(t.Level, t.Kind, index, pub.sent)
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
	// sent is the batches published, by subject; dup says JetStream
	// had one of them already (a repeated task's, or a forger's).
	sent map[string][]byte
	dup  bool
}

func (p *publisher) publish(subject string, data []byte) error {
	if p.err != nil {
		return p.err
	}
	// An asynchronous publication keeps its bytes until JetStream
	// acknowledges them (it sends them again if no server answered), and
	// Split reuses a batch's memory once the batch is handed over: the
	// publication gets its own copy.
	data = bytes.Clone(data)
	ack, err := p.w.js.PublishAsync(subject, data, jetstream.WithMsgID(subject))
	if err != nil {
		p.err = err
		return err
	}
	if p.sent == nil {
		p.sent = map[string][]byte{}
	}
	p.sent[subject] = data
	p.acks = append(p.acks, ack)
	p.bytes += len(data)
	return nil
}

// wait waits for every batch's acknowledgement, for up to AckWait.
func (p *publisher) wait(ctx context.Context) error {
	timeout := time.After(p.w.opts.AckWait)
	for _, ack := range p.acks {
		select {
		case a := <-ack.Ok():
			p.dup = p.dup || a.Duplicate
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

// readStream hands f the messages of the bfs stream on filters (one or
// more subject filters, every subject they match also matched by cover).
func readStream(ctx context.Context, js jetstream.JetStream, cover string, filters []string, f func(jetstream.Msg) error) error {
	total, cons, err := openRead(ctx, js, cover, filters)
	if err != nil || total == 0 {
		return err
	}
	defer func() {
		dctx, stop := context.WithTimeout(context.Background(), 5*time.Second)
		defer stop()
		_ = js.DeleteConsumer(dctx, bfsStream, cons.CachedInfo().Name)
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

// openRead counts the messages on filters and makes an ephemeral
// consumer of them (one left behind by a crash goes away after
// InactiveThreshold). The count is the stream's own, by subject under
// cover (each matched against filters by the NATS server's own rule): a new consumer's pending count was seen short once (a merge's
// decisions left out of a level the coordinator read, under -race), and
// a read that stops at a short count loses batches without a word. A
// replicated stream whose leader is moving answers "no responders" for a
// moment: that is retried for up to 5s here rather than costing the task
// a redelivery after AckWait.
func openRead(ctx context.Context, js jetstream.JetStream, cover string, filters []string) (uint64, jetstream.Consumer, error) {
	for try := 0; ; try++ {
		total, cons, err := openReadOnce(ctx, js, cover, filters)
		if err == nil || !errors.Is(err, nats.ErrNoResponders) || try == 20 {
			return total, cons, err
		}
		select {
		case <-ctx.Done():
			return 0, nil, ctx.Err()
		case <-time.After(250 * time.Millisecond):
		}
	}
}

func openReadOnce(ctx context.Context, js jetstream.JetStream, cover string, filters []string) (uint64, jetstream.Consumer, error) {
	// A request whose server goes away is never answered: bound each
	// attempt, or a task would wait (and heartbeat) for ever.
	ctx, stop := context.WithTimeout(ctx, publishWait)
	defer stop()
	st, err := js.Stream(ctx, bfsStream)
	if err != nil {
		return 0, nil, err
	}
	info, err := st.Info(ctx, jetstream.WithSubjectFilter(cover))
	if err != nil {
		return 0, nil, err
	}
	var total uint64
	for subj, n := range info.State.Subjects {
		if slices.ContainsFunc(filters, func(f string) bool { return server.SubjectMatchesFilter(subj, f) }) {
			total += n
		}
	}
	if total == 0 {
		return 0, nil, nil
	}
	cfg := jetstream.ConsumerConfig{
		AckPolicy: jetstream.AckNonePolicy, DeliverPolicy: jetstream.DeliverAllPolicy,
		InactiveThreshold: time.Minute, MemoryStorage: true,
	}
	if len(filters) == 1 {
		cfg.FilterSubject = filters[0]
	} else {
		cfg.FilterSubjects = filters
	}
	cons, err := st.CreateConsumer(ctx, cfg)
	if err != nil {
		return 0, nil, err
	}
	return total, cons, nil
}
