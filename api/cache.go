package api

import (
	"container/list"
	"errors"
	"fmt"
	"runtime/debug"
	"sync"

	"github.com/prometheus/client_golang/prometheus"
)

// timelineCache keeps recorded runs by id, least recently used first out,
// bounded by their estimated memory. A miss is computed once however many
// requests ask for it at the same time.
//
// Every recording's memory is reserved from the server's budget (its
// grant) and is given back when no one holds it any more: the cache
// holds one reference while it keeps it, and every request or stream
// that uses it holds one until it ends. An evicted run that a stream
// still plays keeps its memory counted.
type timelineCache struct {
	mu       sync.Mutex
	limit    int64
	bytes    int64
	order    *list.List // of *recording, most recent at the front
	byID     map[string]*list.Element
	inflight map[string]*flight
	gauge    prometheus.Gauge
}

type flight struct {
	done    chan struct{}
	rec     *recording
	err     error
	waiters int32 // references the computing caller hands on
}

func newTimelineCache(limit int64, gauge prometheus.Gauge) *timelineCache {
	return &timelineCache{limit: limit, order: list.New(), byID: map[string]*list.Element{},
		inflight: map[string]*flight{}, gauge: gauge}
}

// hold takes a reference to rec.
func (rec *recording) hold() {
	rec.mu.Lock()
	rec.refs++
	rec.mu.Unlock()
}

// drop gives a reference back; the last one returns the memory.
func (rec *recording) drop() {
	rec.mu.Lock()
	rec.refs--
	last := rec.refs == 0
	rec.mu.Unlock()
	if last {
		rec.mem.release()
	}
}

// get returns the recording of id, holding a reference the caller must
// drop, computing it with compute on a miss (compute returns it with one
// reference, the caller's).
func (c *timelineCache) get(id string, compute func() (*recording, error)) (*recording, error) {
	c.mu.Lock()
	if e, ok := c.byID[id]; ok {
		c.order.MoveToFront(e)
		rec := e.Value.(*recording)
		rec.hold()
		c.mu.Unlock()
		return rec, nil
	}
	if f, ok := c.inflight[id]; ok {
		f.waiters++
		c.mu.Unlock()
		<-f.done
		return f.rec, f.err
	}
	f := &flight{done: make(chan struct{})}
	c.inflight[id] = f
	c.mu.Unlock()

	f.rec, f.err = guard(compute)

	c.mu.Lock()
	delete(c.inflight, id)
	if f.err == nil {
		f.rec.mu.Lock()
		f.rec.refs += f.waiters
		f.rec.mu.Unlock()
		c.add(f.rec)
	}
	c.mu.Unlock()
	close(f.done)
	return f.rec, f.err
}

// offer keeps rec unless a recording of its id is kept or being computed
// already; it never waits (an import offers the executions of a log
// besides the one it was asked for). The caller still drops its own
// reference.
func (c *timelineCache) offer(rec *recording) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.inflight[rec.id]; !ok {
		c.add(rec)
	}
}

// peek returns a cached recording without computing, holding a reference.
func (c *timelineCache) peek(id string) (*recording, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.byID[id]; ok {
		c.order.MoveToFront(e)
		rec := e.Value.(*recording)
		rec.hold()
		return rec, true
	}
	return nil, false
}

// add keeps rec (with a reference of its own) and evicts from the back
// until the cache's limit holds. A recording larger than the whole limit
// is served but not kept. c.mu is held.
func (c *timelineCache) add(rec *recording) {
	if _, ok := c.byID[rec.id]; ok || rec.size > c.limit {
		return
	}
	rec.hold()
	c.byID[rec.id] = c.order.PushFront(rec)
	c.bytes += rec.size
	c.evictLocked(c.bytes - c.limit)
}

// evictLocked drops least recently used recordings until need bytes are
// out of the cache (or it is empty). c.mu is held.
func (c *timelineCache) evictLocked(need int64) {
	for need > 0 && c.order.Len() > 0 {
		back := c.order.Back()
		old := back.Value.(*recording)
		c.order.Remove(back)
		delete(c.byID, old.id)
		c.bytes -= old.size
		need -= old.size
		old.drop()
	}
	c.gauge.Set(float64(c.bytes))
}

// evict gives memory back to the budget: the memory budget calls it when
// new work does not fit.
func (c *timelineCache) evict(need int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.evictLocked(need)
}

// guard runs compute, turning a panic (a bug in a model or in core) into
// an error, so that a request fails alone and waiters are released.
func guard(compute func() (*recording, error)) (rec *recording, err error) {
	defer func() {
		if v := recover(); v != nil {
			rec, err = nil, fmt.Errorf("%w: %v\n%s", errPanic, v, debug.Stack())
		}
	}()
	return compute()
}

// errPanic marks an error recovered from a panic.
var errPanic = errors.New("api: panic")

func (c *timelineCache) len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.order.Len()
}
