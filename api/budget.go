package api

import (
	"fmt"
	"net/http"
	"sync"

	"github.com/prometheus/client_golang/prometheus"
)

// memBudget is the server's one memory budget. Runs, searches, exports,
// streams and the timeline cache reserve what they will hold before
// they start, from estimates made on the spec (core's timeline and check
// cost models); what cannot fit is refused with a problem that says how
// much it needs and how much is free. The cache gives memory back on
// demand.
type memBudget struct {
	mu    sync.Mutex
	total int64
	used  int64
	// evict asks the timeline cache to give back about need bytes; it is
	// called without mu held.
	evict func(need int64)

	reserved *prometheus.GaugeVec
	refused  *prometheus.CounterVec
}

func newMemBudget(total int64, reg prometheus.Registerer) *memBudget {
	b := &memBudget{
		total: total,
		reserved: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "racetrack_memory_reserved_bytes", Help: "Memory reserved from the server's budget, by kind of work.",
		}, []string{"kind"}),
		refused: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "racetrack_memory_refused_total", Help: "Work refused for memory: busy (503, wait) or never (422, too large for the budget).",
		}, []string{"kind", "reason"}),
	}
	budget := prometheus.NewGauge(prometheus.GaugeOpts{
		Name: "racetrack_memory_budget_bytes", Help: "The server's memory budget for work (runs, searches, exports, streams, cache).",
	})
	budget.Set(float64(total))
	for _, k := range []string{kindRun, kindSearch, kindExport, kindStream, kindTrace} {
		b.reserved.WithLabelValues(k)
	}
	reg.MustRegister(budget, b.reserved, b.refused)
	return b
}

// Kinds of work that draw from the budget.
const (
	kindRun    = "run"
	kindSearch = "search"
	kindExport = "export"
	kindStream = "stream"
	kindTrace  = "trace" // a log being imported
)

// grant is memory reserved for one piece of work; release returns it.
type grant struct {
	b    *memBudget
	kind string
	mu   sync.Mutex
	n    int64
}

// memoryHint names what a client can lower to need less memory.
type memoryHint struct {
	field string // e.g. maxSteps, budget.states
	what  string // "this run", "this search"
}

// reserve takes n bytes for kind, or refuses: 422 if n exceeds the whole
// budget (waiting cannot help), else 503 with Retry-After once the cache
// has given back what it can.
func (b *memBudget) reserve(kind string, n int64, hint memoryHint) (*grant, error) {
	if n > b.total {
		b.refused.WithLabelValues(kind, "never").Inc()
		p := newProblem(http.StatusUnprocessableEntity, "too-large-for-memory", "Too large for this server's memory", hint.field,
			"%s needs about %s of memory, more than this server's whole budget of %s: it can never run here; lower %s",
			hint.what, formatBytes(n), formatBytes(b.total), hint.field)
		p.NeedBytes, p.FreeBytes = n, ptr(b.free())
		return nil, p
	}
	if g := b.take(kind, n); g != nil {
		return g, nil
	}
	if b.evict != nil {
		b.evict(n - b.free())
		if g := b.take(kind, n); g != nil {
			return g, nil
		}
	}
	b.refused.WithLabelValues(kind, "busy").Inc()
	free := b.free()
	p := newProblem(http.StatusServiceUnavailable, "memory-busy", "Not enough free memory", hint.field,
		"%s needs about %s of memory; %s of this server's %s budget is free now (other runs, searches and streams hold the rest): retry later, or lower %s",
		hint.what, formatBytes(n), formatBytes(free), formatBytes(b.total), hint.field)
	p.NeedBytes, p.FreeBytes = n, ptr(free)
	p.retryAfter = 5
	return nil, p
}

func (b *memBudget) take(kind string, n int64) *grant {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.used+n > b.total {
		return nil
	}
	b.used += n
	b.reserved.WithLabelValues(kind).Add(float64(n))
	return &grant{b: b, kind: kind, n: n}
}

func (b *memBudget) free() int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return max(b.total-b.used, 0)
}

func (b *memBudget) inUse() int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.used
}

// resize sets the grant to n bytes: down when the work turned out
// smaller than estimated, up (unchecked: the memory is already in use)
// when it turned out larger.
func (g *grant) resize(n int64) {
	if g == nil {
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	d := n - g.n
	g.n = n
	g.b.mu.Lock()
	g.b.used += d
	g.b.mu.Unlock()
	g.b.reserved.WithLabelValues(g.kind).Add(float64(d))
}

// split moves n of the grant's bytes to a new grant of the same kind:
// one reservation shared out among the pieces of work it was made for
// (the caller resizes it to their sum first).
func (g *grant) split(n int64) *grant {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.n -= n
	return &grant{b: g.b, kind: g.kind, n: n}
}

// release returns the grant's memory; it is idempotent.
func (g *grant) release() { g.resize(0) }

func (g *grant) bytes() int64 {
	if g == nil {
		return 0
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.n
}

func ptr[T any](v T) *T { return &v }

// formatBytes writes n in binary units, e.g. 1.5 GiB.
func formatBytes(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit && exp < 4; m /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB", float64(n)/float64(div), "KMGTP"[exp])
}
