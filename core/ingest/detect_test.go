package ingest_test

import (
	"testing"

	"github.com/racetrack-sim/racetrack/core/ingest"
)

func TestDetect(t *testing.T) {
	cases := map[string]ingest.Format{
		groupedByHost:                            ingest.FormatShiViz,
		hostFirstFile:                            ingest.FormatShiViz,
		deadlockTrace:                            ingest.FormatNDJSON,
		"\n {\"kind\":\"local\",\"node\":\"a\"}": ingest.FormatNDJSON,
		`{"id":"r1","spec":{},"steps":[]}`:       ingest.FormatJSON,
		"{not json":                              ingest.FormatJSON,
		"":                                       ingest.FormatShiViz,
	}
	for in, want := range cases {
		if got := ingest.Detect([]byte(in)); got != want {
			t.Errorf("Detect(%.30q) = %s, want %s", in, got, want)
		}
	}
}

func TestLogIDDependsOnEverythingImported(t *testing.T) {
	log := []byte(groupedByHost)
	a := ingest.LogID(ingest.FormatShiViz, ingest.Options{}, log)
	if a != ingest.LogID(ingest.FormatShiViz, ingest.Options{}, log) || len(a) != len("log-")+16 {
		t.Fatalf("id %q is not stable", a)
	}
	for _, b := range []string{
		ingest.LogID(ingest.FormatShiViz, ingest.Options{Delimiter: "x"}, log),
		ingest.LogID(ingest.FormatShiViz, ingest.Options{Parser: "x"}, log),
		ingest.LogID(ingest.FormatNDJSON, ingest.Options{}, log),
		ingest.LogID(ingest.FormatShiViz, ingest.Options{}, log[1:]),
	} {
		if b == a {
			t.Fatal("two different imports share an id")
		}
	}
}
