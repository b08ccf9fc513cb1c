package api

import (
	"net/http"
	"runtime"
	"runtime/debug"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// metrics live in a registry of their own per Server, so that several
// servers (tests) never collide.
type metrics struct {
	reg        *prometheus.Registry
	requests   *prometheus.CounterVec
	latency    *prometheus.HistogramVec
	runs       *prometheus.CounterVec
	searches   *prometheus.CounterVec
	streams    *prometheus.GaugeVec
	frames     prometheus.Counter
	slowClosed prometheus.Counter
	queue      prometheus.Gauge
	cacheBytes prometheus.Gauge
	buildInfo  *prometheus.GaugeVec

	exportsAborted prometheus.Counter // registered by New
}

func newMetrics() *metrics {
	m := &metrics{
		reg: prometheus.NewRegistry(),
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "racetrack_http_requests_total", Help: "HTTP requests by route pattern, method and status code.",
		}, []string{"route", "method", "code"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "racetrack_http_request_duration_seconds", Help: "HTTP request latency by route pattern and method.",
			Buckets: []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10},
		}, []string{"route", "method"}),
		runs: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "racetrack_runs_total", Help: "Runs executed (created, recomputed after eviction, or rejected).",
		}, []string{"result"}),
		searches: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "racetrack_searches_total", Help: "Search jobs by final state (and rejected ones).",
		}, []string{"state"}),
		streams: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "racetrack_streams_open", Help: "Open WebSocket streams by kind.",
		}, []string{"kind"}),
		frames: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "racetrack_stream_messages_sent_total", Help: "WebSocket messages written to clients.",
		}),
		slowClosed: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "racetrack_stream_slow_clients_closed_total", Help: "Streams closed because the client could not keep up.",
		}),
		queue: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "racetrack_search_queue_length", Help: "Search jobs waiting for a worker.",
		}),
		cacheBytes: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "racetrack_timeline_cache_bytes", Help: "Estimated memory held by cached timelines.",
		}),
		buildInfo: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "racetrack_build_info", Help: "Always 1: the version and commit of this binary, and the Go release it was built with.",
		}, []string{"version", "revision", "goversion"}),
	}
	m.buildInfo.WithLabelValues(buildVersion()).Set(1)
	for _, kind := range []string{"run", "search"} {
		m.streams.WithLabelValues(kind)
	}
	m.reg.MustRegister(m.requests, m.latency, m.runs, m.searches, m.streams, m.frames, m.slowClosed, m.queue, m.cacheBytes, m.buildInfo,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

func (m *metrics) handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{})
}

// buildVersion is the module version, VCS commit and Go release of this
// binary ("unknown" where the build did not record them).
func buildVersion() (version, revision, goVersion string) {
	version, revision, goVersion = "unknown", "unknown", runtime.Version()
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return
	}
	if bi.Main.Version != "" {
		version = bi.Main.Version
	}
	for _, s := range bi.Settings {
		if s.Key == "vcs.revision" && s.Value != "" {
			revision = s.Value
		}
	}
	return
}
