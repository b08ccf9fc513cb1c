package ingest_test

import (
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/racetrack-sim/racetrack/core/catalog"
	"github.com/racetrack-sim/racetrack/core/export"
	"github.com/racetrack-sim/racetrack/core/ingest"
	"github.com/racetrack-sim/racetrack/core/scenario"
	"github.com/racetrack-sim/racetrack/core/timeline"
)

// allocated is the memory f allocates (all of it, garbage included).
func allocated(f func()) int64 {
	var a, b runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&a)
	f()
	runtime.ReadMemStats(&b)
	return int64(b.TotalAlloc - a.TotalAlloc)
}

func ndjsonLog(n int) []byte {
	var b strings.Builder
	for i := range n {
		switch i % 4 {
		case 0:
			fmt.Fprintf(&b, `{"node":"n%d","kind":"send","msg":"m%d","t":%d}`+"\n", i%5, i, i)
		case 1:
			fmt.Fprintf(&b, `{"node":"n%d","kind":"receive","msg":"m%d","t":%d}`+"\n", (i+1)%5, i-1, i)
		case 2:
			fmt.Fprintf(&b, `{"node":"n","thread":"t%d","kind":"lock","obj":"mu","t":%d}`+"\n", i%3, i)
		case 3:
			fmt.Fprintf(&b, `{"node":"n","thread":"t%d","kind":"unlock","obj":"mu","t":%d,"fields":{"k":%d}}`+"\n", (i-1)%3, i, i)
		}
	}
	return []byte(b.String())
}

// TestNeedCoversWhatImportsTake: what an import and its timeline
// allocate stays within Need of the input's size, events and processes,
// for each format, on ordinary and on the smallest events; the limits
// the importers check are then real bounds.
func TestNeedCoversWhatImportsTake(t *testing.T) {
	if raceEnabled {
		// Under the race detector sync.Pool drops what is put in it (the
		// regexp package's machines among them) and values move to the
		// heap, so what is allocated is not what a normal build
		// allocates; make test runs this test without it.
		t.Skip("allocations are not measurable under the race detector")
	}
	n := 20000
	tl, err := timeline.Record(catalog.New(), scenario.RunSpec{Scenario: "vitess-messager", Preset: "churn", Seed: 1, MaxSteps: n}, timeline.Options{})
	if err != nil {
		t.Fatal(err)
	}
	exported, err := export.JSON(tl)
	if err != nil {
		t.Fatal(err)
	}
	inputs := []struct {
		format ingest.Format
		data   []byte
	}{
		{ingest.FormatShiViz, shivizLog(n, 8)},
		{ingest.FormatShiViz, []byte(shortShiViz(n))},
		{ingest.FormatNDJSON, ndjsonLog(n)},
		{ingest.FormatNDJSON, []byte(strings.Repeat("{\"node\":\"n\",\"kind\":\"local\"}\n", n))},
		{ingest.FormatJSON, exported},
	}
	for _, in := range inputs {
		var x *ingest.Execution
		var err error
		got := allocated(func() {
			var l *ingest.Log
			if l, err = ingest.Import(in.format, in.data, ingest.Options{}); err == nil {
				x = l.Executions[0]
				x.Timeline("x")
			}
		})
		if err != nil {
			t.Fatal(err)
		}
		need := ingest.Need(in.format, len(in.data), x.Len(), x.Width())
		if got > need {
			t.Errorf("%s: %d bytes, %d events: %d allocated (%d per event), Need %d", in.format, len(in.data), x.Len(), got, got/int64(x.Len()), need)
		} else {
			t.Logf("%s: %d bytes, %d events: %d allocated (%d per event), Need %d, Estimate %d", in.format, len(in.data), x.Len(), got,
				got/int64(x.Len()), need, ingest.Estimate(in.format, len(in.data)))
		}
	}
}

// shortShiViz is n events of about the shortest kind: a one-letter event
// line and a one-host clock.
func shortShiViz(n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "e\nh {\"h\":%d}\n", i+1)
	}
	return b.String()
}
