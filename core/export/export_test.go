package export_test

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/racetrack-sim/racetrack/core/catalog"
	"github.com/racetrack-sim/racetrack/core/export"
	"github.com/racetrack-sim/racetrack/core/scenario"
	"github.com/racetrack-sim/racetrack/core/sim"
	"github.com/racetrack-sim/racetrack/core/timeline"
	"github.com/racetrack-sim/racetrack/core/timeline/timelinetest"
)

func workload(t *testing.T) *timeline.Timeline {
	t.Helper()
	tl, err := timeline.Record(timelinetest.Registry(), timelinetest.Spec(500, 1), timeline.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return tl
}

func deadlock(t *testing.T) *timeline.Timeline {
	t.Helper()
	tl, err := timeline.Record(catalog.New(), scenario.RunSpec{Scenario: "dining-philosophers", Preset: "lock-level", Seed: 16}, timeline.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(tl.Violations()) == 0 {
		t.Fatal("seed 16 no longer deadlocks")
	}
	return tl
}

// TestShiVizParses applies the expression the log carries, as ShiViz does, to
// the log after its two header lines, and checks what ShiViz checks: each
// host's own clock entry starts at 1 and grows by one per event.
func TestShiVizParses(t *testing.T) {
	for _, tl := range []*timeline.Timeline{workload(t), deadlock(t)} {
		out, err := export.ShiViz(tl)
		if err != nil {
			t.Fatal(err)
		}
		text := string(out)
		header, body, ok := strings.Cut(text, "\n\n")
		if !ok || header != export.ShiVizRegex {
			t.Fatalf("header %q, want the regex then an empty delimiter line", header)
		}
		re, matches := applyShiViz(t, header, body)
		if len(matches) != tl.Len() {
			t.Fatalf("%d events parsed, want %d", len(matches), tl.Len())
		}
		hi, ci, ei := re.SubexpIndex("host"), re.SubexpIndex("clock"), re.SubexpIndex("event")
		own := map[string]int{}
		hosts := map[sim.ProcID]string{}
		for i, m := range matches {
			var clock map[string]int
			if err := json.Unmarshal([]byte(m[ci]), &clock); err != nil {
				t.Fatalf("event %d clock %q: %v", i, m[ci], err)
			}
			host := m[hi]
			own[host]++
			if clock[host] != own[host] {
				t.Fatalf("event %d: host %s own clock %d, want %d", i, host, clock[host], own[host])
			}
			p := tl.Trace().Step(i).Proc
			if h, ok := hosts[p]; ok && h != host {
				t.Fatalf("process %d appears as %s and %s", p, h, host)
			}
			hosts[p] = host
			for q, c := range tl.Trace().Clock(i) {
				if name, ok := hosts[sim.ProcID(q)]; ok && clock[name] != int(c) {
					t.Fatalf("event %d: %s entry %d, trace says %d", i, name, clock[name], c)
				}
			}
			if !strings.Contains(m[ei], tl.Trace().StepLabel(i)) {
				t.Fatalf("event %d text %q lacks the label %q", i, m[ei], tl.Trace().StepLabel(i))
			}
		}
		v := tl.Violations()[0]
		if !strings.Contains(matches[v.Step][ei], "VIOLATES "+v.Property) {
			t.Fatalf("violating event %q does not say so", matches[v.Step][ei])
		}
	}
}

func TestChromeTraceIsBalanced(t *testing.T) {
	for _, tl := range []*timeline.Timeline{workload(t), deadlock(t)} {
		out, err := export.Chrome(tl)
		if err != nil {
			t.Fatal(err)
		}
		var doc struct {
			TraceEvents []tefEvent     `json:"traceEvents"`
			OtherData   map[string]any `json:"otherData"`
		}
		if err := json.Unmarshal(out, &doc); err != nil {
			t.Fatal(err)
		}
		threads := map[int]string{}
		open := map[string]tefEvent{}
		starts, finishes := map[string]float64{}, map[string]float64{}
		complete, instants := 0, 0
		for _, e := range doc.TraceEvents {
			if e.Ph != "M" && e.Ts == nil {
				t.Fatalf("%s event %q without ts", e.Ph, e.Name)
			}
			switch e.Ph {
			case "M":
				if e.Name == "thread_name" {
					threads[e.Tid] = e.Args["name"].(string)
				}
			case "X":
				complete++
				if e.Dur == nil || *e.Dur < 0 {
					t.Fatalf("complete event %q without a duration", e.Name)
				}
			case "b":
				if _, dup := open[e.Cat+e.ID]; dup {
					t.Fatalf("async slice %s opened twice", e.ID)
				}
				open[e.Cat+e.ID] = e
			case "e":
				b, ok := open[e.Cat+e.ID]
				if !ok || b.Name != e.Name || b.Pid != e.Pid || *e.Ts < *b.Ts {
					t.Fatalf("async end %s %q does not close an earlier begin", e.ID, e.Name)
				}
				delete(open, e.Cat+e.ID)
			case "s":
				if _, dup := starts[e.ID]; dup {
					t.Fatalf("flow %s starts twice", e.ID)
				}
				starts[e.ID] = *e.Ts
			case "f":
				if _, dup := finishes[e.ID]; dup || e.Bp != "e" {
					t.Fatalf("flow %s finishes twice or without bp=e", e.ID)
				}
				finishes[e.ID] = *e.Ts
			case "i":
				instants++
			default:
				t.Fatalf("unexpected phase %q", e.Ph)
			}
		}
		if len(open) != 0 {
			t.Fatalf("%d async slices never closed", len(open))
		}
		for id, s := range starts {
			f, ok := finishes[id]
			if !ok || f < s {
				t.Fatalf("flow %s: start %v, finish %v (ok %v)", id, s, f, ok)
			}
		}
		if len(finishes) != len(starts) {
			t.Fatalf("%d flow finishes for %d starts", len(finishes), len(starts))
		}
		if len(threads) != len(tl.Procs()) || complete != tl.Len() {
			t.Fatalf("%d threads for %d processes, %d slices for %d steps", len(threads), len(tl.Procs()), complete, tl.Len())
		}
		delivered, lost := 0, 0
		tr := tl.Trace()
		for id := 1; id <= tr.NumMessages(); id++ {
			m := tr.Message(sim.MsgID(id))
			if m.RecvStep >= 0 {
				delivered++
			} else if m.Dropped {
				lost++
			}
		}
		if len(starts) != delivered || instants != lost+len(tl.Violations()) {
			t.Fatalf("%d flows for %d delivered messages; %d instants for %d lost and %d violations", len(starts), delivered, instants, lost, len(tl.Violations()))
		}
		t.Logf("%s: %d events, %d flows, %d lock slices, timebase %v", tl.Spec().Scenario, len(doc.TraceEvents), len(starts), len(tl.Spans()), doc.OtherData["timebase"])
	}
}

func TestJSONHoldsTheWholeRun(t *testing.T) {
	tl := workload(t)
	out, err := export.JSON(tl)
	if err != nil {
		t.Fatal(err)
	}
	// Kinds are written as names; a reader needs only plain types.
	var run struct {
		ID       string           `json:"id"`
		Spec     scenario.RunSpec `json:"spec"`
		Schedule []int            `json:"schedule"`
		Steps    []struct {
			Index int    `json:"index"`
			Kind  string `json:"kind"`
			Label string `json:"label"`
		} `json:"steps"`
		Messages   []export.MessageInfo  `json:"messages"`
		Violations []scenario.Violation  `json:"violations"`
		Series     []timeline.SeriesView `json:"series"`
		Procs      []export.ProcInfo     `json:"procs"`
	}
	if err := json.Unmarshal(out, &run); err != nil {
		t.Fatal(err)
	}
	if run.ID != tl.ID() || len(run.Steps) != tl.Len() || !slices.Equal(run.Schedule, tl.Schedule()) || len(run.Messages) != tl.Trace().NumMessages() {
		t.Fatalf("id %s steps %d schedule %d messages %d", run.ID, len(run.Steps), len(run.Schedule), len(run.Messages))
	}
	if len(run.Violations) != len(tl.Violations()) || len(run.Series) != 2 || len(run.Procs) != len(tl.Procs()) {
		t.Fatalf("violations %d series %d procs %d", len(run.Violations), len(run.Series), len(run.Procs))
	}
	// The spec and the schedule replay the run exactly.
	spec := run.Spec
	spec.Schedule = run.Schedule
	again, err := timeline.Record(timelinetest.Registry(), spec, timeline.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if c := timeline.Compare(tl, again); c.Diverge != -1 {
		t.Fatalf("replay of the exported spec and schedule diverges at step %d", c.Diverge)
	}
	for i, s := range run.Steps {
		if s.Index != i || s.Label != tl.Trace().StepLabel(i) || s.Kind != tl.Trace().Step(i).Kind.String() {
			t.Fatalf("step %d: %+v", i, s)
		}
	}
}
