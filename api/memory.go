package api

import (
	"context"
	"net/http"
	rtmetrics "runtime/metrics"
	"strings"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/racetrack-sim/racetrack/core/check"
	"github.com/racetrack-sim/racetrack/core/session"
	"github.com/racetrack-sim/racetrack/internal/parallel"
)

// reserveRun reserves the memory a run is estimated to hold at most
// (timeline.Pending.Bytes: every step of its budget taken).
func (s *Server) reserveRun(est int64) (*grant, error) {
	return s.mem.reserve(kindRun, est, memoryHint{field: "maxSteps", what: "this run"})
}

// streamBytes is what one open stream is charged besides the run it
// plays (held by the recording): its cursor's world and its send queue.
const streamBytes = 256 << 10

// memoryRefusal tells a refusal for memory from other problems.
func memoryRefusal(p *Problem) bool {
	return strings.HasSuffix(p.Type, "/memory-busy") || strings.HasSuffix(p.Type, "/too-large-for-memory")
}

// heapSample reads the live heap as the last garbage collection marked
// it: garbage not yet collected does not count (the collector, told the
// budget through GOMEMLIMIT, takes care of it).
func heapSample() int64 {
	s := []rtmetrics.Sample{{Name: "/gc/heap/live:bytes"}}
	rtmetrics.Read(s)
	if s[0].Value.Kind() != rtmetrics.KindUint64 {
		return 0
	}
	return int64(s[0].Value.Uint64())
}

// watchMemory compares the Go heap with the budget every interval. The
// estimates are upper bounds, but a model's state may grow past what its
// scenario declared: when the heap passes the budget, the running search
// holding the largest grant is stopped as failed, with that reason.
func (s *Server) watchMemory(ctx context.Context, interval time.Duration, heapGauge prometheus.Gauge) {
	every(ctx, interval, func() bool {
		heap := heapSample()
		heapGauge.Set(float64(heap))
		if heap > s.cfg.HeapLimit {
			s.stopLargest(heap, s.cfg.HeapLimit)
		}
		return true
	})
}

// minAutoStates is the smallest states budget the server picks for an
// exhaustive search that named none.
const minAutoStates = 10_000

// reserveSearch reserves the memory a planned search will hold at most.
// An exhaustive search that names no states budget gets the default
// lowered to what fits in half the free memory (the rest is left to
// other work; the request then records the budget it ran with); one
// that names a budget that does not fit is refused. The plan is lowered
// in place: nothing is checked again.
func (s *Server) reserveSearch(req *session.SearchRequest, plan *searchPlan) (*grant, error) {
	x := plan.explorer()
	cfg := x.Config()
	hint := memoryHint{field: "budget.states", what: "this search"}
	if cfg.Strategy != check.BFS && cfg.Strategy != check.DFS {
		hint.field = "params"
	}
	if req.Budget.States == 0 && hint.field == "budget.states" && plan.bytes > s.mem.free() {
		s.timelines.evict(plan.bytes - s.mem.free())
		perState := x.BytesPerState()
		overhead := plan.bytes - int64(cfg.Budget.States)*perState
		// Never below minAutoStates: when even that is not free now, the
		// reservation below says so with a 503 (or a 422 if it never fits).
		fit := max((s.mem.free()/2-overhead)/perState, minAutoStates)
		if fit < int64(cfg.Budget.States) {
			if err := x.LowerStates(int(fit)); err != nil {
				return nil, err
			}
			req.Budget.States = int(fit)
			plan.bytes = x.EstimateBytes(parallel.Workers(cfg.Workers))
		}
	}
	return s.mem.reserve(kindSearch, plan.bytes, hint)
}

// memoryStop is why the watchdog stopped a search or a run.
type memoryStop struct {
	heap, limit, reserved int64
	what                  string // search, run
}

func (m *memoryStop) Error() string {
	lower := "budget.states"
	if m.what == "run" {
		lower = "maxSteps"
	}
	return "stopped for memory: the server's heap reached " + formatBytes(m.heap) + ", past its limit of " +
		formatBytes(m.limit) + ", and this " + m.what + " held the largest share (" + formatBytes(m.reserved) +
		" reserved); run it with a smaller " + lower + ", later, or on a server with a larger -memory-budget"
}

// memoryStopOf returns the reason when ctx was ended by the watchdog.
func memoryStopOf(ctx context.Context) string {
	if m, ok := context.Cause(ctx).(*memoryStop); ok {
		return m.Error()
	}
	return ""
}

// stopLargest stops the running search or run with the largest grant.
func (s *Server) stopLargest(heap, limit int64) {
	var job *job
	var run *watchedRun
	s.searches.mu.Lock()
	for _, j := range s.searches.jobs { // order-independent: the largest grant wins
		st, _ := j.snapshot()
		if st.State == StateRunning && (job == nil || j.mem.bytes() > job.mem.bytes()) {
			job = j
		}
	}
	s.searches.mu.Unlock()
	s.runsMu.Lock()
	for r := range s.runsRunning { // order-independent: the largest grant wins
		if run == nil || r.mem.bytes() > run.mem.bytes() {
			run = r
		}
	}
	s.runsMu.Unlock()
	switch {
	case run != nil && (job == nil || run.mem.bytes() > job.mem.bytes()):
		s.log.Warn("memory: stopping the largest run", "heap", heap, "limit", limit)
		run.stop.Store(&memoryStop{heap: heap, limit: limit, reserved: run.mem.bytes(), what: "run"})
	case job != nil:
		st, _ := job.snapshot()
		s.log.Warn("memory: stopping the largest search", "id", st.ID, "heap", heap, "limit", limit)
		job.cancel(&memoryStop{heap: heap, limit: limit, reserved: job.mem.bytes(), what: "search"})
	}
}

// watchedRun is a run being recorded, which the watchdog may stop.
type watchedRun struct {
	mem  *grant
	stop atomic.Pointer[memoryStop]
}

func (r *watchedRun) alive() bool { return r.stop.Load() == nil }

// refusal is the answer to a run the watchdog stopped: wait and retry.
func (r *watchedRun) refusal() error {
	p := newProblem(http.StatusServiceUnavailable, "memory-busy", "Not enough free memory", "maxSteps", "%s", r.stop.Load().Error())
	p.NeedBytes, p.retryAfter = r.mem.bytes(), 5
	return p
}

func (s *Server) watchRun(mem *grant) *watchedRun {
	r := &watchedRun{mem: mem}
	s.runsMu.Lock()
	s.runsRunning[r] = struct{}{}
	s.runsMu.Unlock()
	return r
}

func (s *Server) unwatchRun(r *watchedRun) {
	s.runsMu.Lock()
	delete(s.runsRunning, r)
	s.runsMu.Unlock()
}
