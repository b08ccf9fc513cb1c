package ingest_test

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"github.com/racetrack-sim/racetrack/core/ingest"
)

// shivizLog writes a consistent ShiViz log of n events over hosts hosts:
// every third event receives the latest event of the host before it.
func shivizLog(n, hosts int) []byte {
	clocks := make([][]int, hosts)
	for h := range clocks {
		clocks[h] = make([]int, hosts)
	}
	var b strings.Builder
	for i := range n {
		h := i % hosts
		c := clocks[h]
		if i%3 == 0 {
			from := clocks[(h+hosts-1)%hosts]
			for k := range c {
				c[k] = max(c[k], from[k])
			}
		}
		c[h]++
		b.WriteString("2026-12-02 08:00:00,000 INFO handled request " + strconv.Itoa(i) + " {ok}\n")
		b.WriteString("host" + strconv.Itoa(h) + " {")
		first := true
		for k, v := range c {
			if v == 0 {
				continue
			}
			if !first {
				b.WriteString(", ")
			}
			first = false
			key, _ := json.Marshal("host" + strconv.Itoa(k))
			b.Write(key)
			b.WriteString(": " + strconv.Itoa(v))
		}
		b.WriteString("}\n")
	}
	return []byte(b.String())
}

func TestGeneratedLogImports(t *testing.T) {
	l, err := ingest.ShiViz(shivizLog(3000, 8), ingest.Options{})
	if err != nil {
		t.Fatal(err)
	}
	x := l.Executions[0]
	if x.Len() != 3000 || x.Width() != 8 || len(x.Messages) != 999 {
		t.Fatalf("%d events, %d hosts, %d messages; want 3000, 8, 999 (event 0 has nothing to receive)", x.Len(), x.Width(), len(x.Messages))
	}
	checkExecutions(t, l)
}

// BenchmarkShiViz100k imports a 100,000-event ShiViz log (8 hosts, a
// message every third event) with ShiViz's default parser.
func BenchmarkShiViz100k(b *testing.B) {
	log := shivizLog(100_000, 8)
	b.SetBytes(int64(len(log)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ingest.ShiViz(log, ingest.Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkNDJSON100k imports a 100,000-event trace (sends, receives,
// locks and unlocks with fields) and makes its timeline.
func BenchmarkNDJSON100k(b *testing.B) {
	log := ndjsonLog(100_000)
	b.SetBytes(int64(len(log)))
	b.ReportAllocs()
	for b.Loop() {
		l, err := ingest.NDJSON(log, ingest.Options{})
		if err != nil {
			b.Fatal(err)
		}
		l.Executions[0].Timeline("bench")
	}
}
