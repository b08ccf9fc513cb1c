package api

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net/http"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/racetrack-sim/racetrack/core/check"
	"github.com/racetrack-sim/racetrack/core/scenario"
	"github.com/racetrack-sim/racetrack/core/session"
)

// Cluster runs a search on other machines (internal/cluster) and returns
// the result the local search would; ctx ends it early.
type Cluster interface {
	Search(ctx context.Context, cfg check.Config, progress func(check.Progress)) (check.Result, error)
}

// Config is everything a Server needs. Zero values take the defaults
// noted on each field.
type Config struct {
	Registry *scenario.Registry // required
	Store    *Store             // required
	Logger   *slog.Logger       // default slog.Default()

	// AllowOrigins lists extra WebSocket origin host patterns (path.Match
	// syntax, e.g. "localhost:5173"); the server's own origin is always
	// allowed.
	AllowOrigins []string
	// AllowedHosts lists the DNS names (path.Match patterns, without the
	// port) the server answers to besides IP literals and localhost; a
	// request for any other Host is refused (DNS rebinding).
	AllowedHosts []string
	// Static are searched in order for files served at / (the page and
	// the wasm build).
	Static []fs.FS

	// MemoryBudget is the memory that runs, searches, exports, streams
	// and the timeline cache may reserve together, default 1 GiB
	// (cmd/server: a share of the machine's memory). Work is estimated
	// before it starts and refused when it does not fit.
	MemoryBudget int64
	// HeapLimit is the live heap past which the largest running run or search is
	// stopped (an estimate fell short), default 5/4 of MemoryBudget.
	HeapLimit int64

	MaxBodyBytes int64 // default 1 MiB
	// MaxTraceBytes bounds the body of POST /api/v1/traces (a log to
	// import), default 64 MiB; the import's memory is reserved from the
	// budget besides.
	MaxTraceBytes int64
	// MaxRunSteps is the step budget a run may ask for: default 1,000,000,
	// or the largest preset's default when that is more. A limit below a
	// preset's default is a configuration error (New fails).
	MaxRunSteps int
	RunSlots    int // concurrent run executions, default 2*GOMAXPROCS
	// TimelineBytes bounds the cached timelines, default half the
	// MemoryBudget: the cache also gives its memory back whenever new
	// work needs it, so a large run is kept rather than recomputed on
	// every request.
	TimelineBytes int64

	SearchWorkers    int     // default GOMAXPROCS
	SearchQueue      int     // queued jobs before 429, default 64
	MaxSearchSeconds float64 // default 300
	MaxSearchStates  int     // default 100,000,000 (memory admission bounds what fits)
	MaxSearchRuns    int     // default 1,000,000

	ExportSlots int // exports written at once, default GOMAXPROCS; more get 429

	// Auth, when set, requires a token of every request (a server
	// reachable from other machines); nil: none (loopback).
	Auth *Auth

	// Cluster runs distributed searches ("distributed": true); nil: the
	// server refuses them.
	Cluster Cluster

	MaxStreams         int           // open WebSocket streams before 429, default 4096
	StreamWriteTimeout time.Duration // default 5s: a client slower than this is cut off
	StreamPing         time.Duration // default 15s
	StreamQueue        int           // messages queued per stream, default 16
	// SessionIdle closes a session socket that sent no request and had
	// none in flight for this long, default 5 minutes.
	SessionIdle time.Duration
}

func (c *Config) defaults() {
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
	if c.MemoryBudget <= 0 {
		c.MemoryBudget = 1 << 30
	}
	if c.HeapLimit <= 0 {
		c.HeapLimit = c.MemoryBudget / 4 * 5
	}
	if c.SessionIdle <= 0 {
		c.SessionIdle = 5 * time.Minute
	}
	if c.MaxBodyBytes <= 0 {
		c.MaxBodyBytes = 1 << 20
	}
	if c.MaxTraceBytes <= 0 {
		c.MaxTraceBytes = 64 << 20
	}
	if c.MaxRunSteps <= 0 {
		c.MaxRunSteps = max(1_000_000, largestPreset(c.Registry))
	}
	if c.RunSlots <= 0 {
		c.RunSlots = 2 * runtime.GOMAXPROCS(0)
	}
	if c.TimelineBytes <= 0 {
		c.TimelineBytes = c.MemoryBudget / 2
	}
	if c.SearchWorkers <= 0 {
		c.SearchWorkers = runtime.GOMAXPROCS(0)
	}
	if c.SearchQueue <= 0 {
		c.SearchQueue = 64
	}
	if c.MaxSearchSeconds <= 0 {
		c.MaxSearchSeconds = 300
	}
	if c.MaxSearchStates <= 0 {
		c.MaxSearchStates = 100_000_000
	}
	if c.MaxSearchRuns <= 0 {
		c.MaxSearchRuns = 1_000_000
	}
	if c.ExportSlots <= 0 {
		c.ExportSlots = runtime.GOMAXPROCS(0)
	}
	if c.MaxStreams <= 0 {
		c.MaxStreams = 4096
	}
	if c.StreamWriteTimeout <= 0 {
		c.StreamWriteTimeout = 5 * time.Second
	}
	if c.StreamPing <= 0 {
		c.StreamPing = 15 * time.Second
	}
	if c.StreamQueue <= 0 {
		c.StreamQueue = 16
	}
}

// Server serves the v1 API. Build it with New, serve Handler, and call
// Shutdown when done.
type Server struct {
	cfg     Config
	reg     *scenario.Registry
	store   *Store
	log     *slog.Logger
	metrics *metrics
	handler http.Handler

	// rules validates specs and searches with the server's limits
	// (Normalize and Plan, which are safe for concurrent use).
	rules       *session.Session
	runSlots    chan struct{}
	exportSlots chan struct{}
	mem         *memBudget
	// runsRunning are the runs being recorded, for the memory watchdog.
	runsMu      sync.Mutex
	runsRunning map[*watchedRun]struct{}
	timelines   *timelineCache
	searches    *searchPool

	// streamCtx is cancelled by Shutdown: every open stream then closes
	// with a going-away status.
	streamCtx    context.Context
	stopStreams  context.CancelFunc
	streamsWG    sync.WaitGroup
	openStreams  atomic.Int64
	shutdownOnce sync.Once
}

// New builds a server and starts its search workers; searches that a
// previous process left unfinished are queued again.
func New(cfg Config) (*Server, error) {
	if cfg.Registry == nil || cfg.Store == nil {
		return nil, errors.New("api: Config needs a Registry and a Store")
	}
	cfg.defaults()
	if err := cfg.admitsEveryPreset(); err != nil {
		return nil, err
	}
	s := &Server{
		cfg:      cfg,
		reg:      cfg.Registry,
		store:    cfg.Store,
		log:      cfg.Logger,
		metrics:  newMetrics(),
		runSlots: make(chan struct{}, cfg.RunSlots),

		runsRunning: map[*watchedRun]struct{}{},

		exportSlots: make(chan struct{}, cfg.ExportSlots),
	}
	s.rules = session.New(session.Config{Registry: cfg.Registry, Limits: s.sessionLimits()})
	s.streamCtx, s.stopStreams = context.WithCancel(context.Background())
	s.mem = newMemBudget(cfg.MemoryBudget, s.metrics.reg)
	s.metrics.exportsAborted = prometheus.NewCounter(prometheus.CounterOpts{
		Name: "racetrack_exports_aborted_total", Help: "Exports whose body could not be completed: the connection was aborted (never a truncated 200).",
	})
	s.metrics.reg.MustRegister(s.metrics.exportsAborted)
	s.timelines = newTimelineCache(min(cfg.TimelineBytes, cfg.MemoryBudget), s.metrics.cacheBytes)
	s.mem.evict = s.timelines.evict
	s.searches = newSearchPool(s)
	if err := s.searches.resume(); err != nil {
		s.searches.stop()
		return nil, fmt.Errorf("api: resume searches: %w", err)
	}
	heap := prometheus.NewGauge(prometheus.GaugeOpts{Name: "racetrack_memory_heap_bytes", Help: "Live Go heap after the last garbage collection, as the memory watchdog last read it."})
	s.metrics.reg.MustRegister(heap)
	s.streamsWG.Add(1)
	go func() {
		defer s.streamsWG.Done()
		s.watchMemory(s.streamCtx, 250*time.Millisecond, heap)
	}()
	s.handler = s.routes()
	return s, nil
}

// largestPreset is the largest default step budget of any preset.
func largestPreset(reg *scenario.Registry) int {
	n := 0
	for _, sc := range reg.List() {
		for _, p := range sc.Presets {
			n = max(n, p.MaxSteps)
		}
	}
	return n
}

// admitsEveryPreset fails when a limit would refuse a shipped preset run
// with its own defaults: every preset runs everywhere, so such a limit is
// a configuration error, found at startup rather than by a user.
func (c *Config) admitsEveryPreset() error {
	for _, sc := range c.Registry.List() {
		for _, p := range sc.Presets {
			if p.MaxSteps > c.MaxRunSteps {
				return fmt.Errorf("api: MaxRunSteps %d is below the default maxSteps %d of preset %s/%s; raise it to at least %d",
					c.MaxRunSteps, p.MaxSteps, sc.ID, p.ID, largestPreset(c.Registry))
			}
		}
	}
	return nil
}

// Handler is the root handler: API, streams, metrics and static files.
func (s *Server) Handler() http.Handler { return s.handler }

// Shutdown closes every stream with a going-away status, stops the search
// workers (an interrupted search stays in the store and runs again on the
// next start) and waits for them, or for ctx. It does not close the
// store. Call it after http.Server.Shutdown has drained the requests.
func (s *Server) Shutdown(ctx context.Context) error {
	s.shutdownOnce.Do(func() {
		s.stopStreams()
		s.searches.stop()
	})
	done := make(chan struct{})
	go func() {
		s.streamsWG.Wait()
		s.searches.wait()
		s.searches.park()
		close(done)
	}()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
