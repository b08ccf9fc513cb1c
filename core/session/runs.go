package session

import (
	"github.com/racetrack-sim/racetrack/core/scenario"
	"github.com/racetrack-sim/racetrack/core/timeline"
)

// SnapshotEvery is the snapshot interval of a session's timelines: a seek
// (stepping back, a state far from the last one) replays fewer than this
// many steps. A quarter of core's default buys four times faster seeks
// for snapshots that are small next to the trace.
const SnapshotEvery = timeline.DefaultSnapshotEvery / 4

// Record records a checked spec as a session timeline.
func Record(n scenario.Normal) (*timeline.Timeline, error) {
	p, err := timeline.Prepare(n, timeline.Options{SnapshotEvery: SnapshotEvery})
	if err != nil {
		return nil, err
	}
	return p.Record()
}

// Runs provides the timelines of a session. Get returns the timeline of a
// checked spec, recording it when it is not at hand: evicting a run
// costs a re-recording, never a wrong answer, since a spec determines its
// run.
type Runs interface {
	Get(n scenario.Normal) (*timeline.Timeline, error)
}

// Cache is the Runs of a session that has no other: the most recently
// used timelines, bounded by their number and their estimated bytes.
// It is not safe for concurrent use (nor is a Session).
type Cache struct {
	reg      *scenario.Registry
	maxRuns  int
	maxBytes int64
	bytes    int64
	order    []cached // least recently used first
}

type cached struct {
	tl   *timeline.Timeline
	size int64
}

// Default bounds of a Cache.
const (
	DefaultCacheRuns  = 24
	DefaultCacheBytes = 256 << 20
)

// NewCache returns a cache of at most maxRuns timelines and maxBytes
// estimated bytes (0: the defaults). A run larger than maxBytes is
// recorded and served, never kept.
func NewCache(reg *scenario.Registry, maxRuns int, maxBytes int64) *Cache {
	if maxRuns <= 0 {
		maxRuns = DefaultCacheRuns
	}
	if maxBytes <= 0 {
		maxBytes = DefaultCacheBytes
	}
	return &Cache{reg: reg, maxRuns: maxRuns, maxBytes: maxBytes}
}

// Get returns the timeline of n, recording it on a miss.
func (c *Cache) Get(n scenario.Normal) (*timeline.Timeline, error) {
	id := n.ID()
	for i, e := range c.order {
		if e.tl.ID() == id {
			c.order = append(append(c.order[:i:i], c.order[i+1:]...), e)
			return e.tl, nil
		}
	}
	tl, err := Record(n)
	if err != nil {
		return nil, err
	}
	size := tl.Bytes()
	if size > c.maxBytes {
		return tl, nil
	}
	c.order = append(c.order, cached{tl: tl, size: size})
	c.bytes += size
	for len(c.order) > c.maxRuns || c.bytes > c.maxBytes {
		c.bytes -= c.order[0].size
		c.order = c.order[1:]
	}
	return tl, nil
}

// Len is the number of timelines held.
func (c *Cache) Len() int { return len(c.order) }

// Bytes is their estimated size.
func (c *Cache) Bytes() int64 { return c.bytes }
