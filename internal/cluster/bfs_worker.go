package cluster

import (
	"context"
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

// maxBatch is the size at which a batch of states is published.
const maxBatch = 64 << 10

// Subjects of a bfs search's data.
func frontSubject(id string, level, part int) string {
	return fmt.Sprintf("%s%s.front.%d.%d", bfsSubject, id, level, part)
}

func candSubject(id string, level, owner, from int) string {
	return fmt.Sprintf("%s%s.cand.%d.%d.%d", bfsSubject, id, level, owner, from)
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

// expandPart expands partition Part of level Level in index-path order
// and sends each successor to its owner's batch; it stops at the
// partition's first violation.
func (w *Worker) expandPart(ctx context.Context, t task) (rangeResult, bool) {
	var res rangeResult
	e, err := check.NewExpander(w.reg, t.Config)
	if err != nil {
		res.Error = err.Error()
		return res, true
	}
	front, err := w.readItems(ctx, frontSubject(t.Search, t.Level, t.Part))
	if err != nil {
		return res, false
	}
	slices.SortStableFunc(front, compareItems)
	out := newBatcher(w, ctx, t, t.Level+1)
	for _, it := range front {
		if w.stopped(ctx, t.Search) {
			return res, false
		}
		i := 0
		x, err := e.Expand(it.s, func(s check.BFSState) {
			order := append(slices.Clone(it.order), i)
			i++
			out.add(owner(s.Key, t.Parts), item{s: s, order: order})
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
	if err := out.flush(); err != nil {
		return res, false
	}
	res.Bytes = out.bytes
	return res, true
}

// mergePart admits the successors sent to partition Part for level
// Level, in index-path order, against its visited set; the new states
// are its visited-set increment and its frontier of that level.
func (w *Worker) mergePart(ctx context.Context, t task) (rangeResult, bool) {
	var res rangeResult
	e, err := check.NewExpander(w.reg, t.Config)
	if err != nil {
		res.Error = err.Error()
		return res, true
	}
	seen, err := w.visited(ctx, t, e.Exact())
	if err != nil {
		return res, false
	}
	cands, err := w.readItems(ctx, fmt.Sprintf("%s%s.cand.%d.%d.*", bfsSubject, t.Search, t.Level, t.Part))
	if err != nil {
		return res, false
	}
	slices.SortStableFunc(cands, compareItems)
	next := newVisitedSet(e.Exact())
	var front, inc batch
	pubFront := func() error {
		return w.publishBatch(ctx, frontSubject(t.Search, t.Level, t.Part), &front, &res)
	}
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
		front.add(item{s: s, order: it.order})
		if len(front.b) >= maxBatch {
			if err := pubFront(); err != nil {
				return res, false
			}
		}
	}
	if err := pubFront(); err != nil {
		return res, false
	}
	for _, en := range next.entries() {
		inc.b = appendSeen(inc.b, en.key, en.mask, en.enc)
		if len(inc.b) >= maxBatch {
			if err := w.publishBatch(ctx, seenSubject(t.Search, t.Level, t.Part), &inc, &res); err != nil {
				return res, false
			}
		}
	}
	if err := w.publishBatch(ctx, seenSubject(t.Search, t.Level, t.Part), &inc, &res); err != nil {
		return res, false
	}
	seen.set.addAll(next)
	seen.level = t.Level
	w.seenMu.Lock()
	w.seen[partKey{t.Search, t.Part}] = seen
	w.seenMu.Unlock()
	return res, true
}

// visited is partition Part's visited set through level Level-1: the
// cached one, or rebuilt from its per-level increments in JetStream.
func (w *Worker) visited(ctx context.Context, t task, exact bool) (*partSeen, error) {
	key := partKey{t.Search, t.Part}
	w.seenMu.Lock()
	c, ok := w.seen[key]
	delete(w.seen, key) // a failed merge must not leave a half-updated set
	w.seenMu.Unlock()
	if ok && c.level == t.Level-1 {
		return c, nil
	}
	c = &partSeen{level: t.Level - 1, set: newVisitedSet(exact)}
	prefix := fmt.Sprintf("%s%s.seen.", bfsSubject, t.Search)
	err := w.readAll(ctx, fmt.Sprintf("%s*.%d", prefix, t.Part), func(m jetstream.Msg) error {
		lv, err := strconv.Atoi(strings.SplitN(m.Subject()[len(prefix):], ".", 2)[0])
		if err != nil {
			return errCodec
		}
		if lv >= t.Level {
			return nil // left by an earlier attempt at this merge
		}
		data, err := unpack(m.Data())
		if err != nil {
			return err
		}
		return decodeSeen(data, c.set)
	})
	return c, err
}

// batch is states or visited entries waiting to be published, and the
// number of batches published to its subject so far (for message ids).
type batch struct {
	b    []byte
	n    int
	prev item // the last state added since the last publication
}

// add appends a state, encoded after the one before it in the batch.
func (b *batch) add(it item) {
	b.b = appendItemAfter(b.b, b.prev, it)
	b.prev = it
}

// publishBatch publishes b's bytes (if any), packed, with an id that a
// repeated attempt of the same task repeats, so JetStream keeps one copy.
func (w *Worker) publishBatch(ctx context.Context, subject string, b *batch, res *rangeResult) error {
	if len(b.b) == 0 {
		return nil
	}
	pctx, stop := context.WithTimeout(ctx, w.opts.AckWait)
	defer stop()
	data := pack(b.b)
	if _, err := w.js.Publish(pctx, subject, data, jetstream.WithMsgID(subject+"#"+strconv.Itoa(b.n))); err != nil {
		return err
	}
	res.Bytes += len(data)
	b.b, b.n, b.prev = b.b[:0], b.n+1, item{}
	return nil
}

// batcher collects an expansion's successors by owner.
type batcher struct {
	w     *Worker
	ctx   context.Context
	t     task
	level int
	bufs  []batch
	bytes int
	err   error
}

func newBatcher(w *Worker, ctx context.Context, t task, level int) *batcher {
	return &batcher{w: w, ctx: ctx, t: t, level: level, bufs: make([]batch, t.Parts)}
}

func (b *batcher) add(to int, it item) {
	if b.err != nil {
		return
	}
	buf := &b.bufs[to]
	buf.add(it)
	if len(buf.b) >= maxBatch {
		b.publish(to)
	}
}

func (b *batcher) publish(to int) {
	var res rangeResult
	b.err = b.w.publishBatch(b.ctx, candSubject(b.t.Search, b.level, to, b.t.Part), &b.bufs[to], &res)
	b.bytes += res.Bytes
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
