package ingest_test

import (
	"testing"

	"github.com/racetrack-sim/racetrack/core/ingest"
)

func TestOpen(t *testing.T) {
	o, err := ingest.Open("", []byte(twoExecutions), ingest.Options{Delimiter: `^=== (?<trace>.*) ===$`})
	if err != nil {
		t.Fatal(err)
	}
	if o.Format != ingest.FormatShiViz || o.Executions != 2 || o.Events != 3 || o.Hosts != 3 || len(o.Timelines) != 2 ||
		o.Timelines[1].ID() != o.ID+"-2" || o.Timelines[1].Len() != 1 || len(o.Labels) != 2 || o.Labels[1] != "second run" {
		t.Fatalf("opened %+v", o)
	}
	o, err = ingest.Open("", []byte(deadlockTrace), ingest.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if o.Format != ingest.FormatNDJSON || o.Timelines[0].ID() != o.ID || len(o.Timelines[0].Violations()) != 1 {
		t.Fatalf("opened %+v", o)
	}
	if _, err := ingest.Open("", []byte("{\"node\":\"a\"}"), ingest.Options{}); err == nil {
		t.Fatal("a trace event without a kind opened")
	}
}
