package messager

import (
	"bytes"
	"testing"
	"time"

	"github.com/racetrack-sim/racetrack/core/conform"
	"github.com/racetrack-sim/racetrack/core/ingest"
)

// BenchmarkValidate10k validates a trace of about 10,000 events of the
// fixed version (one real run: 2 clients, 340 cycles, poller ticks and
// row events each) against the fixed model; the state count and the
// events are reported with the time.
func BenchmarkValidate10k(b *testing.B) {
	var buf bytes.Buffer
	cfg := Config{Version: Fixed, Clients: 2, Cycles: 340, Ticks: 340, RowEvents: 340, MaxDelay: 20 * time.Microsecond,
		ReadPending: 10 * time.Microsecond, Seed: 1, Watchdog: 2 * time.Second, Trace: &buf}
	if res := Run(cfg); res.Deadlocked {
		b.Fatalf("the fixed version stuck: %v", res.Blocked)
	}
	l, err := ingest.NDJSON(buf.Bytes(), ingest.Options{})
	if err != nil {
		b.Fatal(err)
	}
	x := l.Executions[0]
	if x.Len() < 9000 {
		b.Fatalf("only %d events", x.Len())
	}
	n := modelFor(b, cfg)
	var v *conform.Verdict
	for b.Loop() {
		v, err = conform.Validate(n, x, conform.Options{Format: ingest.FormatNDJSON})
		if err != nil {
			b.Fatal(err)
		}
	}
	if !v.Conforms {
		b.Fatalf("the trace leaves the model: %+v", v.At)
	}
	b.ReportMetric(float64(v.States), "states")
	b.ReportMetric(float64(x.Len()), "events")
}
