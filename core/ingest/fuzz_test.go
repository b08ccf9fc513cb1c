package ingest_test

import (
	"errors"
	"testing"

	"github.com/racetrack-sim/racetrack/core/ingest"
)

// checkExecutions asserts what every accepted log must give: steps in an
// order consistent with happens-before, each process's own clock entry
// counting its steps, messages received after they are sent, and fields,
// lines and labels for every step.
func checkExecutions(t *testing.T, l *ingest.Log) {
	t.Helper()
	for _, x := range l.Executions {
		if x.Len() == 0 || len(x.Lines) != x.Len() || len(x.Fields) != x.Len() {
			t.Fatalf("execution with %d steps, %d lines, %d field lists", x.Len(), len(x.Lines), len(x.Fields))
		}
		count := make([]uint32, x.Width())
		for i, s := range x.Steps {
			count[s.Proc]++
			if c := x.Clock(i); c[s.Proc] != count[s.Proc] {
				t.Fatalf("step %d: own entry %d, the process's step %d", i, c[s.Proc], count[s.Proc])
			}
			if s.Parent >= 0 && (int(s.Parent) >= i || !x.HappensBefore(int(s.Parent), i)) {
				t.Fatalf("step %d follows %d, which is not in its past", i, s.Parent)
			}
			if int(s.Label) >= len(x.Labels) {
				t.Fatalf("step %d label %d of %d", i, s.Label, len(x.Labels))
			}
			for j := i + 1; j < x.Len() && j < i+8; j++ {
				if x.HappensBefore(j, i) {
					t.Fatalf("step %d happens before the earlier step %d", j, i)
				}
			}
		}
		for _, m := range x.Messages {
			if m.RecvStep >= 0 && (m.RecvStep <= m.SentStep || !x.HappensBefore(int(m.SentStep), int(m.RecvStep))) {
				t.Fatalf("message %d received at %d, sent at %d", m.ID, m.RecvStep, m.SentStep)
			}
		}
	}
}

// refusedCleanly fails unless err is one of the package's errors.
func refusedCleanly(t *testing.T, err error) {
	t.Helper()
	var e *ingest.Error
	if !errors.As(err, &e) && !errors.Is(err, ingest.ErrTooLarge) {
		t.Fatalf("refused with %T %v, want an *ingest.Error", err, err)
	}
}

func FuzzShiViz(f *testing.F) {
	f.Add([]byte(groupedByHost), "", "")
	f.Add([]byte(twoExecutions), "", `^=== (?<trace>.*) ===$`)
	f.Add([]byte(hostFirstFile), "", "")
	f.Add([]byte("a x\na {\"a\":1, \"b\":1}\nb y\nb {\"b\":1, \"a\":1}\n"), "", "")
	f.Add([]byte("a x\na {\"a\":1}\nb y\nb {\"b\":1, \"a\":2}\n"), `(?<event>.*)\n(?<host>\S*) (?<clock>{.*})`, "")
	f.Fuzz(func(t *testing.T, log []byte, parser, delim string) {
		l, err := ingest.ShiViz(log, ingest.Options{Parser: parser, Delimiter: delim, MaxBytes: 64 << 20})
		if err != nil {
			refusedCleanly(t, err)
			return
		}
		checkExecutions(t, l)
	})
}

func FuzzNDJSON(f *testing.F) {
	f.Add([]byte(deadlockTrace))
	f.Add([]byte("{\"node\":\"a\",\"kind\":\"send\",\"msg\":\"m\",\"to\":\"b\"}\n{\"node\":\"b\",\"kind\":\"receive\",\"msg\":\"m\"}\n"))
	f.Add([]byte("{\"node\":\"a\",\"kind\":\"crash\"}\n{\"node\":\"a\",\"kind\":\"restart\"}\n{\"node\":\"a\",\"kind\":\"lock\",\"obj\":\"m\",\"fields\":{\"x\":[1]}}\n"))
	f.Fuzz(func(t *testing.T, trace []byte) {
		l, err := ingest.NDJSON(trace, ingest.Options{MaxBytes: 64 << 20})
		if err != nil {
			refusedCleanly(t, err)
			return
		}
		checkExecutions(t, l)
	})
}

func FuzzJSON(f *testing.F) {
	f.Add([]byte(`{"nodes":[{"name":"n"}],"procs":[{"name":"p","node":0},{"name":"q","node":0}],"mutexes":["m"],` +
		`"steps":[{"index":0,"proc":0,"kind":"lock","object":"m","parent":-1},{"index":1,"proc":0,"kind":"unlock","object":"m","parent":-1},` +
		`{"index":2,"proc":1,"kind":"receive","msg":1,"parent":0,"time":1}],` +
		`"messages":[{"id":1,"from":0,"to":1,"label":"x","sentStep":0,"recvStep":2}]}`))
	f.Add([]byte(`{"procs":[],"steps":[]}`))
	f.Fuzz(func(t *testing.T, doc []byte) {
		l, err := ingest.JSON(doc, ingest.Options{MaxBytes: 64 << 20})
		if err != nil {
			refusedCleanly(t, err)
			return
		}
		checkExecutions(t, l)
	})
}
