package tracer_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"
	"sync"
	"testing"

	"github.com/racetrack-sim/racetrack/core/ingest"
	"github.com/racetrack-sim/racetrack/core/sim"
	"github.com/racetrack-sim/racetrack/tracer"
)

// TestConcurrentTraceImports has workers pass a token around a ring of
// channels and share one mutex; the trace they write concurrently must
// import as a valid execution with every message matched and every lock
// ordered after the previous unlock.
func TestConcurrentTraceImports(t *testing.T) {
	var buf bytes.Buffer
	tr := tracer.New(&buf)
	const workers, rounds = 6, 50
	type token struct {
		id tracer.MsgID
		n  int
	}
	ring := make([]chan token, workers)
	for i := range ring {
		ring[i] = make(chan token, 1)
	}
	var mu sync.Mutex
	shared := 0
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			l := tr.Node(fmt.Sprintf("n%d", w))
			for r := range rounds {
				if w == 0 && r == 0 {
					ring[0] <- token{id: l.Send("start", "n0")}
				}
				tok := <-ring[w]
				l.Receive(tok.id, "token", tracer.F("n", tok.n))
				l.Lock(&mu, "shared")
				shared++
				l.State("shared", tracer.F("shared", shared))
				l.Unlock(&mu, "shared")
				if w == workers-1 && r == rounds-1 {
					return
				}
				next := (w + 1) % workers
				ring[next] <- token{id: l.Send("pass", fmt.Sprintf("n%d", next)), n: tok.n + 1}
			}
		}()
	}
	wg.Wait()
	if err := tr.Err(); err != nil {
		t.Fatal(err)
	}
	l, err := ingest.NDJSON(buf.Bytes(), ingest.Options{})
	if err != nil {
		t.Fatal(err)
	}
	x := l.Executions[0]
	const events = workers * rounds
	if x.Width() != workers || len(x.Messages) != events || x.Untimed {
		t.Fatalf("%d lanes, %d messages; want %d, %d, timed", x.Width(), len(x.Messages), workers, events)
	}
	locks, receives := 0, 0
	for i, s := range x.Steps {
		switch s.Kind {
		case sim.StepLock:
			locks++
		case sim.StepReceive:
			receives++
			if !x.HappensBefore(int(s.Parent), i) {
				t.Fatalf("receive %d does not follow its send", i)
			}
		}
	}
	if locks != events || receives != events {
		t.Fatalf("%d locks, %d receives; want %d each", locks, receives, events)
	}
	// Each round is receive, lock, state, unlock, send; the last worker's
	// last round sends nothing.
	steps := make([]int, workers)
	for _, s := range x.Steps {
		steps[s.Proc]++
	}
	for p, n := range steps {
		want := rounds * 5
		if x.Procs[p].Name == fmt.Sprintf("n%d", workers-1) {
			want--
		} else if x.Procs[p].Name == "n0" {
			want++ // the first send
		}
		if n != want {
			t.Fatalf("%s logged %d steps, want %d", x.Procs[p].Name, n, want)
		}
	}
}

func TestFieldsAreJSON(t *testing.T) {
	var buf bytes.Buffer
	tr := tracer.New(&buf, tracer.WithoutTimes())
	tr.Node("n\"1\n").Thread("t\x00").Local("say \"hi\"\t\xff",
		tracer.F("s", "a\u2028b"), tracer.F("i", -3), tracer.F("u", uint64(math.MaxUint64)), tracer.F("f", 0.5),
		tracer.F("nan", math.NaN()), tracer.F("b", true), tracer.F("nil", nil), tracer.F("err", errors.New("boom")),
		tracer.F("list", []int{1, 2}))
	var got map[string]any
	if err := json.Unmarshal(buf.Bytes(), &got); err != nil {
		t.Fatalf("%q: %v", buf.String(), err)
	}
	f := got["fields"].(map[string]any)
	if got["node"] != "n\"1\n" || got["label"] != "say \"hi\"\t\ufffd" || f["s"] != "a\u2028b" || f["i"] != -3.0 ||
		f["nan"] != "NaN" || f["b"] != true || f["nil"] != nil || f["err"] != "boom" || f["list"] != "[1 2]" {
		t.Fatalf("decoded %v", got)
	}
	if !strings.Contains(buf.String(), `"u":18446744073709551615`) {
		t.Fatalf("uint64 written as %q", buf.String())
	}
	if _, err := ingest.NDJSON(buf.Bytes(), ingest.Options{}); err != nil {
		t.Fatal(err)
	}
}

// TestBlockIsLogged: a Lock that finds the mutex held logs a block, then
// the lock once the holder lets go.
func TestBlockIsLogged(t *testing.T) {
	var buf bytes.Buffer
	var wmu sync.Mutex
	tr := tracer.New(lockedWriter{&buf, &wmu}, tracer.WithoutTimes())
	a, b := tr.Node("n").Thread("a"), tr.Node("n").Thread("b")
	var mu sync.Mutex
	a.Lock(&mu, "mu")
	done := make(chan struct{})
	go func() {
		b.Lock(&mu, "mu")
		b.Unlock(&mu, "mu")
		close(done)
	}()
	for {
		wmu.Lock()
		blocked := strings.Contains(buf.String(), `"kind":"block"`)
		wmu.Unlock()
		if blocked {
			break
		}
	}
	a.Unlock(&mu, "mu")
	<-done
	want := `{"node":"n","thread":"a","kind":"lock","obj":"mu"}
{"node":"n","thread":"b","kind":"block","obj":"mu"}
{"node":"n","thread":"a","kind":"unlock","obj":"mu"}
{"node":"n","thread":"b","kind":"lock","obj":"mu"}
{"node":"n","thread":"b","kind":"unlock","obj":"mu"}
`
	if buf.String() != want {
		t.Fatalf("trace:\n%s\nwant:\n%s", buf.String(), want)
	}
}

type lockedWriter struct {
	b  *bytes.Buffer
	mu *sync.Mutex
}

func (w lockedWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.Write(p)
}

type failingWriter struct{ n int }

func (w *failingWriter) Write(p []byte) (int, error) {
	w.n++
	return 0, errors.New("disk full")
}

func TestWriteErrorIsKeptAndLaterEventsDropped(t *testing.T) {
	w := &failingWriter{}
	tr := tracer.New(w)
	n := tr.Node("n")
	n.Local("a")
	n.Local("b")
	if err := tr.Err(); err == nil || err.Error() != "disk full" || w.n != 1 {
		t.Fatalf("err %v after %d writes", err, w.n)
	}
}

func TestOffStillLocksAndAllocatesNothing(t *testing.T) {
	var tr *tracer.Tracer = tracer.New(nil)
	l := tr.Node("n").Thread("t")
	if l != nil || tr.Err() != nil {
		t.Fatal("an off tracer gives nil loggers and no error")
	}
	var mu sync.Mutex
	allocs := testing.AllocsPerRun(100, func() { offPath(l, &mu) })
	if allocs != 0 {
		t.Fatalf("%v allocations per off event", allocs)
	}
	l.Lock(&mu, "mu")
	if mu.TryLock() {
		t.Fatal("an off Lock did not lock")
	}
	l.Unlock(&mu, "mu")
	if !mu.TryLock() {
		t.Fatal("an off Unlock did not unlock")
	}
}

func offPath(l *tracer.Logger, mu *sync.Mutex) {
	id := l.Send("request", "server")
	l.Receive(id, "request", tracer.F("size", 512))
	l.Lock(mu, "mu")
	l.State("receivers", tracer.F("receivers", 3), tracer.F("name", "c1"))
	l.Unlock(mu, "mu")
	l.Local("poll")
}

// BenchmarkOff is the cost of instrumentation that is off: six events
// (send, receive, lock, state, unlock, local) with fields.
func BenchmarkOff(b *testing.B) {
	var l *tracer.Logger
	var mu sync.Mutex
	b.ReportAllocs()
	for b.Loop() {
		offPath(l, &mu)
	}
}

// BenchmarkOn is the same six events written to memory.
func BenchmarkOn(b *testing.B) {
	var buf bytes.Buffer
	l := tracer.New(&buf).Node("n")
	var mu sync.Mutex
	b.ReportAllocs()
	for b.Loop() {
		buf.Reset()
		offPath(l, &mu)
	}
}
