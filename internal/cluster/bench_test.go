package cluster

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/racetrack-sim/racetrack/core/catalog"
	"github.com/racetrack-sim/racetrack/core/check"
)

// BenchmarkBFS reports the states a distributed bfs stores per second
// with 1, 2 and 4 in-process workers (each on its own connection to an
// embedded NATS server), and with 1, 2 and 4 worker processes on its TCP
// port, and the bytes its tasks publish per state:
//
//	go test ./internal/cluster -run '^$' -bench BFS -benchtime 1x
func BenchmarkBFS(b *testing.B) {
	cfg := check.Config{Scenario: "vitess-messager", Preset: "lock-level", Variant: "fixed",
		Params: map[string]any{"clients": 2, "iterations": 1}, Strategy: check.BFS, Reductions: check.DefaultReductions(check.BFS)}
	b.Run("local", func(b *testing.B) {
		states := 0
		start := time.Now()
		for i := 0; i < b.N; i++ {
			x, err := check.New(catalog.New(), cfg)
			if err != nil {
				b.Fatal(err)
			}
			states += x.Run().States
		}
		b.ReportMetric(float64(states)/time.Since(start).Seconds(), "states/s")
	})
	for _, workers := range []int{1, 2, 4} {
		b.Run(fmt.Sprintf("workers=%d", workers), func(b *testing.B) {
			c := startClusterWith(b, 0, Options{})
			for i := 0; i < workers; i++ {
				c.addWorker()
			}
			var states int
			var bytes int64
			start := time.Now()
			for i := 0; i < b.N; i++ {
				r, err := c.coord.Search(context.Background(), cfg, nil)
				if err != nil || !r.Exhaustive {
					b.Fatalf("%v %+v", err, r)
				}
				states += r.States
				bytes += c.coord.LastBFSBytes()
			}
			b.ReportMetric(float64(states)/time.Since(start).Seconds(), "states/s")
			b.ReportMetric(float64(bytes)/float64(states), "B/state")
		})
	}
	// Worker processes (the test binary re-executed as `racetrack worker
	// -workers 1`) on the embedded server's TCP port.
	for _, workers := range []int{1, 2, 4} {
		b.Run(fmt.Sprintf("processes=%d", workers), func(b *testing.B) {
			emb, err := StartEmbedded(EmbeddedOptions{Dir: b.TempDir(), Listen: "127.0.0.1:0"})
			if err != nil {
				b.Fatal(err)
			}
			defer emb.Shutdown()
			nc, err := emb.Connect("coordinator")
			if err != nil {
				b.Fatal(err)
			}
			defer nc.Close()
			coord, err := NewCoordinator(nc, catalog.New(), testOptions)
			if err != nil {
				b.Fatal(err)
			}
			var redelivered atomic.Int64
			for i := 0; i < workers; i++ {
				p := startWorkerProcess(b, emb, false, &redelivered)
				defer p.kill()
			}
			var states int
			var bytes int64
			b.ResetTimer()
			start := time.Now()
			for i := 0; i < b.N; i++ {
				r, err := coord.Search(context.Background(), cfg, nil)
				if err != nil || !r.Exhaustive {
					b.Fatalf("%v %+v", err, r)
				}
				states += r.States
				bytes += coord.LastBFSBytes()
			}
			b.ReportMetric(float64(states)/time.Since(start).Seconds(), "states/s")
			b.ReportMetric(float64(bytes)/float64(states), "B/state")
		})
	}
}
