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
	done chan struct{}
	rec  *recording
	err  error
}

func newTimelineCache(limit int64, gauge prometheus.Gauge) *timelineCache {
	return &timelineCache{limit: limit, order: list.New(), byID: map[string]*list.Element{},
		inflight: map[string]*flight{}, gauge: gauge}
}

// get returns the recording of id, computing it with compute on a miss.
func (c *timelineCache) get(id string, compute func() (*recording, error)) (*recording, error) {
	c.mu.Lock()
	if e, ok := c.byID[id]; ok {
		c.order.MoveToFront(e)
		c.mu.Unlock()
		return e.Value.(*recording), nil
	}
	if f, ok := c.inflight[id]; ok {
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
		c.add(f.rec)
	}
	c.mu.Unlock()
	close(f.done)
	return f.rec, f.err
}

// peek returns a cached recording without computing.
func (c *timelineCache) peek(id string) (*recording, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.byID[id]; ok {
		c.order.MoveToFront(e)
		return e.Value.(*recording), true
	}
	return nil, false
}

// add inserts rec and evicts from the back until the budget holds. A
// recording larger than the whole budget is served but not kept.
func (c *timelineCache) add(rec *recording) {
	if _, ok := c.byID[rec.id]; ok || rec.size > c.limit {
		return
	}
	c.byID[rec.id] = c.order.PushFront(rec)
	c.bytes += rec.size
	for c.bytes > c.limit {
		back := c.order.Back()
		old := back.Value.(*recording)
		c.order.Remove(back)
		delete(c.byID, old.id)
		c.bytes -= old.size
	}
	c.gauge.Set(float64(c.bytes))
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
