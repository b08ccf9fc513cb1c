package timeline_test

import (
	"runtime"
	"testing"

	"github.com/racetrack-sim/racetrack/core/timeline"
	"github.com/racetrack-sim/racetrack/core/timeline/timelinetest"
)

const benchSteps = 1_000_000

var benchTL *timeline.Timeline

func millionSteps(b *testing.B) *timeline.Timeline {
	if benchTL == nil {
		tl, err := timeline.Record(timelinetest.Registry(), timelinetest.Spec(benchSteps, 1), timeline.Options{})
		if err != nil {
			b.Fatal(err)
		}
		if tl.Len() != benchSteps {
			b.Fatalf("recorded %d steps, want %d", tl.Len(), benchSteps)
		}
		benchTL = tl
		runtime.GC() // the recording's garbage is not the seek's cost
	}
	return benchTL
}

// BenchmarkSeek seeks to pseudo-random steps of a 1,000,000-step
// timeline (snapshots every 1024 steps).
func BenchmarkSeek(b *testing.B) {
	tl := millionSteps(b)
	x := uint64(12345)
	for b.Loop() {
		x = x*6364136223846793005 + 1442695040888963407
		i := int(x>>33) % tl.Len()
		if _, err := tl.Seek(i); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/1000/float64(b.N), "ms/seek")
}

// BenchmarkSeekWorst seeks to the last step before a snapshot: K-1
// replayed steps.
func BenchmarkSeekWorst(b *testing.B) {
	tl := millionSteps(b)
	k := tl.SnapshotEvery()
	i := 0
	for b.Loop() {
		i = (i + 7*k) % (tl.Len() - k)
		s := i - i%k + k - 2
		if _, err := tl.Seek(s); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/1000/float64(b.N), "ms/seek")
}

// BenchmarkStateAt is a seek plus two views.
func BenchmarkStateAt(b *testing.B) {
	tl := millionSteps(b)
	x := uint64(99)
	for b.Loop() {
		x = x*6364136223846793005 + 1442695040888963407
		if _, err := tl.StateAt(int(x>>33) % tl.Len()); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkRecordMillion(b *testing.B) {
	for b.Loop() {
		if _, err := timeline.Record(timelinetest.Registry(), timelinetest.Spec(benchSteps, 2), timeline.Options{}); err != nil {
			b.Fatal(err)
		}
	}
}
