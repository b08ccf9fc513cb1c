package cluster

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/racetrack-sim/racetrack/core/check"
)

// maxBatch is the size at which a batch of states is published: a
// level of a large search is a handful of messages per pair of
// partitions, not one per state.
const maxBatch = 256 << 10

// Subjects of a bfs search's data: the states sent to a partition for a
// level, by the partition whose expansion sent them (from = Parts for
// the coordinator's initial state), and a partition's visited-set
// increment of a level.
func candSubject(id string, level, owner, from int) string {
	return fmt.Sprintf("%s%s.cand.%d.%d.%d", bfsSubject, id, level, owner, from)
}

func candFilter(id string, level, owner int) string {
	return fmt.Sprintf("%s%s.cand.%d.%d.*", bfsSubject, id, level, owner)
}

func seenSubject(id string, level, part int) string {
	return fmt.Sprintf("%s%s.seen.%d.%d", bfsSubject, id, level, part)
}

// owner is the partition of a fingerprint: parts equal ranges.
func owner(key uint64, parts int) int { return int((key >> 32) * uint64(parts) >> 32) }

// partKey names a partition of a search.
type partKey struct {
	search string
	part   int
}

// partSeen is a cached visited set: through level.
type partSeen struct {
	level int
	set   *visitedSet
}

func (w *Worker) dropCache(search string) {
	w.seenMu.Lock()
	defer w.seenMu.Unlock()
	for k := range w.seen {
		if k.search == search {
			delete(w.seen, k)
		}
	}
}

// levelPart is one partition's part of one level: it admits the states
// sent to the partition for the level, in index-path order, against its
// visited set (the new and re-expanded ones are the partition's
// frontier; the visited-set increment is published, the checkpoint), then
// expands that frontier in order, decoding each state's world, and sends
// each successor to its owner's batch for the next level while it goes.
// It stops at the partition's first violation.
func (w *Worker) levelPart(ctx context.Context, t task) (rangeResult, bool) {
	var res rangeResult
	e, err := check.NewExpander(w.reg, t.Config)
	if err == nil {
		err = e.EncodeStates()
	}
	if err != nil {
		res.Error = err.Error()
		return res, true
	}
	seen, err := w.visited(ctx, t, e.Exact())
	if err != nil {
		return res, false
	}
	cands, err := w.readItems(ctx, candFilter(t.Search, t.Level, t.Part))
	if err != nil {
		return res, false
	}
	slices.SortFunc(cands, compareItems) // index paths are distinct: no ties
	next := newVisitedSet(e.Exact())
	front := cands[:0] // admitted in place: a state is kept at most once
	for _, it := range cands {
		stored, ok := next.get(it.s.Key, it.s.Enc)
		isNew := !ok
		if !ok {
			stored, ok = seen.set.get(it.s.Key, it.s.Enc)
			isNew = !ok
		}
		mask, s, keep, err := e.Admit(stored, ok, it.s)
		if err != nil {
			res.Error = err.Error()
			return res, true
		}
		if !keep {
			continue
		}
		if isNew {
			res.New++
		}
		next.put(it.s.Key, it.s.Enc, mask)
		res.Kept++
		front = append(front, item{s: s, order: it.order})
	}
	pub := &publisher{w: w}
	var inc batch
	for _, en := range next.entries() {
		inc.b = appendSeen(inc.b, en.key, en.mask, en.enc)
		if len(inc.b) >= maxBatch {
			if err := pub.batch(seenSubject(t.Search, t.Level, t.Part), &inc); err != nil {
				return res, false
			}
		}
	}
	if err := pub.batch(seenSubject(t.Search, t.Level, t.Part), &inc); err != nil {
		return res, false
	}
	out := newBatcher(pub, t, t.Level+1)
	sc := &check.Scratch{}
	known := w.knownStates(t, seen.set)
	for _, it := range front {
		if w.stopped(ctx, t.Search) {
			return res, false
		}
		i := 0
		skip := func(s check.BFSState) bool {
			if set := known[owner(s.Key, t.Parts)]; set != nil {
				if stored, ok := set.get(s.Key, s.Enc); ok {
					if _, _, keep, err := e.Admit(stored, true, s); err == nil && !keep {
						i++
						return true
					}
				}
			}
			return false
		}
		x, err := e.ExpandSkipping(sc, it.s, skip, func(s check.BFSState) {
			out.add(owner(s.Key, t.Parts), item{s: s, order: append(slices.Clip(it.order), i)})
			i++
		})
		res.Transitions += x.Transitions
		res.Cut = res.Cut || x.Cut
		if err != nil {
			res.Error = err.Error()
			return res, true
		}
		if x.Found != nil {
			res.FoundAt = appendItem(nil, it)
			break
		}
	}
	if err := out.flush(); err != nil || pub.wait(ctx) != nil {
		return res, false
	}
	res.Bytes = pub.bytes
	seen.set.addAll(next)
	seen.level = t.Level
	w.seenMu.Lock()
	if !w.isCancelled(t.Search) { // an ended search's sets are dropped, not kept
		w.seen[partKey{t.Search, t.Part}] = seen
	}
	w.seenMu.Unlock()
	return res, true
}

// knownStates are the visited sets this worker holds for the task's
// search, by partition (nil: none), own the task's partition's through
// the level before. A successor one of them stores with a sleep set no
// larger than its own is not sent: its owner would not admit it (the
// stored sets only shrink as states are admitted again), so the worker
// saves encoding, sending and decoding it.
func (w *Worker) knownStates(t task, own *visitedSet) []*visitedSet {
	known := make([]*visitedSet, t.Parts)
	w.seenMu.Lock()
	defer w.seenMu.Unlock()
	for k, c := range w.seen {
		if k.search == t.Search && k.part >= 0 && k.part < t.Parts {
			known[k.part] = c.set
		}
	}
	known[t.Part] = own
	return known
}

// visited is partition Part's visited set through level Level-1: the
// cached one, caught up with the increments of the levels it misses
// (a partition's tasks go to whichever worker asks first, so a worker
// keeps every partition it had and reads only what changed since), or
// rebuilt from all of them in JetStream.
func (w *Worker) visited(ctx context.Context, t task, exact bool) (*partSeen, error) {
	key := partKey{t.Search, t.Part}
	w.seenMu.Lock()
	c, ok := w.seen[key]
	delete(w.seen, key) // a failed task must not leave a half-updated set
	w.seenMu.Unlock()
	if !ok || c.level >= t.Level {
		c = &partSeen{level: -1, set: newVisitedSet(exact)}
	}
	if c.level == -1 && t.Level > 1 {
		// All of them at once: one read rather than one a level.
		prefix := fmt.Sprintf("%s%s.seen.", bfsSubject, t.Search)
		err := w.readAll(ctx, fmt.Sprintf("%s*.%d", prefix, t.Part), func(m jetstream.Msg) error {
			lv, err := strconv.Atoi(strings.SplitN(m.Subject()[len(prefix):], ".", 2)[0])
			if err != nil {
				return errCodec
			}
			if lv >= t.Level {
				return nil // left by an earlier attempt at this task
			}
			data, err := unpack(m.Data())
			if err != nil {
				return err
			}
			return decodeSeen(data, c.set)
		})
		c.level = t.Level - 1
		return c, err
	}
	for lv := c.level + 1; lv < t.Level; lv++ {
		err := w.readAll(ctx, seenSubject(t.Search, lv, t.Part), func(m jetstream.Msg) error {
			data, err := unpack(m.Data())
			if err != nil {
				return err
			}
			return decodeSeen(data, c.set)
		})
		if err != nil {
			return nil, err
		}
	}
	c.level = t.Level - 1
	return c, nil
}

// batch is states or visited entries waiting to be published.
type batch struct {
	b    []byte
	prev item // the last state added since the last publication
}

// add appends a state, encoded after the one before it in the batch.
func (b *batch) add(it item) {
	b.b = appendItemAfter(b.b, b.prev, it)
	b.prev = it
}

// publisher publishes a task's batches without waiting for each one's
// acknowledgement (a level of a large search is many of them); wait
// collects them all before the task reports.
type publisher struct {
	w     *Worker
	acks  []jetstream.PubAckFuture
	bytes int
}

// batch publishes b's bytes (if any), packed, with an id made of its
// subject and a digest of its bytes: a repeated attempt of the task that
// publishes the same batch again is dropped by JetStream as a duplicate,
// and one that publishes a different batch (a worker that held other
// visited sets skipped other successors, so its batches break elsewhere)
// adds it rather than losing it to an id the first attempt used; the
// owner admits a state sent twice once.
func (p *publisher) batch(subject string, b *batch) error {
	if len(b.b) == 0 {
		return nil
	}
	data := pack(b.b)
	sum := sha256.Sum256(data)
	ack, err := p.w.js.PublishAsync(subject, data, jetstream.WithMsgID(subject+"#"+hex.EncodeToString(sum[:12])))
	if err != nil {
		return err
	}
	p.acks = append(p.acks, ack)
	p.bytes += len(data)
	b.b, b.prev = b.b[:0], item{}
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

// batcher collects a task's successors by owner, each state once: a
// successor equal to one sent before by the same task (the same state,
// renaming and sleep set) would be admitted by neither, so it is
// dropped here (the first, in index-path order, travels).
type batcher struct {
	pub   *publisher
	t     task
	level int
	bufs  []batch
	sent  map[string]struct{}
	key   []byte
	err   error
}

func newBatcher(pub *publisher, t task, level int) *batcher {
	return &batcher{pub: pub, t: t, level: level, bufs: make([]batch, t.Parts), sent: map[string]struct{}{}}
}

func (b *batcher) add(to int, it item) {
	if b.err != nil {
		return
	}
	b.key = binary.LittleEndian.AppendUint64(b.key[:0], it.s.Key)
	b.key = binary.AppendUvarint(b.key, uint64(it.s.Renaming))
	b.key = binary.AppendUvarint(b.key, uint64(len(it.s.Sleep)))
	b.key = append(append(b.key, it.s.Sleep...), it.s.Enc...)
	if _, dup := b.sent[string(b.key)]; dup {
		return
	}
	b.sent[string(b.key)] = struct{}{}
	buf := &b.bufs[to]
	buf.add(it)
	if len(buf.b) >= maxBatch {
		b.publish(to)
	}
}

func (b *batcher) publish(to int) {
	b.err = b.pub.batch(candSubject(b.t.Search, b.level, to, b.t.Part), &b.bufs[to])
}

func (b *batcher) flush() error {
	for to := range b.bufs {
		if b.err == nil {
			b.publish(to)
		}
	}
	return b.err
}

// readItems reads every state batch on a subject (a filter).
func (w *Worker) readItems(ctx context.Context, filter string) ([]item, error) {
	var out []item
	err := w.readAll(ctx, filter, func(m jetstream.Msg) error {
		data, err := unpack(m.Data())
		if err != nil {
			return err
		}
		out, err = decodeItems(data, out)
		return err
	})
	return out, err
}

var errShort = errors.New("cluster: a stream ended before its messages were read")

// readAll passes every message on the bfs stream matching filter to f.
// The level barrier guarantees no message is added meanwhile.
func (w *Worker) readAll(ctx context.Context, filter string, f func(jetstream.Msg) error) error {
	return readStream(ctx, w.js, filter, f)
}

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
