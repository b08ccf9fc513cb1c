package export_test

import (
	"cmp"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/racetrack-sim/racetrack/core/catalog"
	"github.com/racetrack-sim/racetrack/core/export"
	"github.com/racetrack-sim/racetrack/core/scenario"
	"github.com/racetrack-sim/racetrack/core/sim"
	"github.com/racetrack-sim/racetrack/core/timeline"
)

// This file checks an export against the rules of the Trace Event Format
// as Perfetto's JSON importer applies them (no trace processor can be had
// from a registry here: PyPI is out of reach and npm has none).
//
//   - ts is read in µs and rounded to whole ns;
//   - B/E pairs balance per thread, and a thread's duration events (B, E,
//     X) come in non-decreasing ts;
//   - a thread's slices (X, B..E, thread-scoped instants) nest properly:
//     none begins at the ts where another begins or ends, and one that
//     begins inside another ends inside it (else Perfetto builds
//     staircases or drops the slice);
//   - a flow event binds to the innermost slice enclosing its ts on its
//     thread ("s", and "f" with bp "e"), or to the next slice to begin
//     ("f" without bp); an enclosing slice must hold ts strictly inside,
//     so the binding cannot depend on the order of equal timestamps;
//   - every flow id starts once and finishes once, not before it starts;
//     async b/e balance per (cat, id).

type tefEvent struct {
	Name string         `json:"name"`
	Cat  string         `json:"cat"`
	Ph   string         `json:"ph"`
	Ts   *float64       `json:"ts"`
	Dur  *float64       `json:"dur"`
	Pid  int            `json:"pid"`
	Tid  int            `json:"tid"`
	ID   string         `json:"id"`
	Bp   string         `json:"bp"`
	S    string         `json:"s"`
	Args map[string]any `json:"args"`
}

type thread struct{ pid, tid int }

type slice struct {
	start, end int64 // ns
	ev         *tefEvent
}

// tefReport is what the checker found: rule violations, and for each
// flow id the slices its start and end bind to.
type tefReport struct {
	errs            []string
	flowStart       map[string]*tefEvent
	flowEnd         map[string]*tefEvent
	slices, flows   int
	threads, asyncs int
}

func (r *tefReport) errorf(format string, args ...any) {
	if len(r.errs) < 20 {
		r.errs = append(r.errs, fmt.Sprintf(format, args...))
	}
}

func nsOf(ts float64) int64 { return int64(math.Round(ts * 1000)) }

func checkTEF(data []byte) (*tefReport, error) {
	var doc struct {
		TraceEvents []tefEvent `json:"traceEvents"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, err
	}
	r := &tefReport{flowStart: map[string]*tefEvent{}, flowEnd: map[string]*tefEvent{}}
	byThread := map[thread][]slice{}
	lastTs := map[thread]int64{}
	open := map[thread][]*tefEvent{}
	async := map[string]*tefEvent{}
	var flows []*tefEvent
	for k := range doc.TraceEvents {
		e := &doc.TraceEvents[k]
		if e.Ph == "M" {
			continue
		}
		if e.Ts == nil {
			r.errorf("%s event %q has no ts", e.Ph, e.Name)
			continue
		}
		ns := nsOf(*e.Ts)
		th := thread{e.Pid, e.Tid}
		switch e.Ph {
		case "B", "E", "X":
			if last, ok := lastTs[th]; ok && ns < last {
				r.errorf("thread %v: %s %q at %d ns after an event at %d ns", th, e.Ph, e.Name, ns, last)
			}
			lastTs[th] = ns
		}
		switch e.Ph {
		case "X":
			if e.Dur == nil || *e.Dur < 0 {
				r.errorf("X %q without a duration", e.Name)
				continue
			}
			byThread[th] = append(byThread[th], slice{ns, ns + nsOf(*e.Dur), e})
		case "B":
			open[th] = append(open[th], e)
		case "E":
			st := open[th]
			if len(st) == 0 {
				r.errorf("thread %v: E %q at %d ns closes nothing", th, e.Name, ns)
				continue
			}
			b := st[len(st)-1]
			open[th] = st[:len(st)-1]
			if e.Name != "" && e.Name != b.Name {
				r.errorf("thread %v: E %q closes B %q", th, e.Name, b.Name)
			}
			byThread[th] = append(byThread[th], slice{nsOf(*b.Ts), ns, b})
		case "i", "I":
			if e.S == "" || e.S == "t" {
				byThread[th] = append(byThread[th], slice{ns, ns, e})
			}
		case "b":
			key := e.Cat + "/" + e.ID
			if async[key] != nil {
				r.errorf("async %s begins twice", key)
			}
			async[key] = e
			r.asyncs++
		case "e":
			key := e.Cat + "/" + e.ID
			b := async[key]
			if b == nil || nsOf(*b.Ts) > ns {
				r.errorf("async end %s at %d ns closes no earlier begin", key, ns)
			}
			delete(async, key)
		case "s", "t", "f":
			flows = append(flows, e)
		default:
			r.errorf("unknown phase %q", e.Ph)
		}
	}
	for th, st := range open {
		if len(st) > 0 {
			r.errorf("thread %v: %d B events never closed", th, len(st))
		}
	}
	for key := range async {
		r.errorf("async %s never ends", key)
	}
	for th, ss := range byThread {
		slices.SortStableFunc(ss, func(a, b slice) int { return cmp.Compare(a.start, b.start) })
		var stack []slice
		for k, s := range ss {
			if k > 0 && ss[k-1].start == s.start {
				r.errorf("thread %v: %q and %q both begin at %d ns (a staircase)", th, ss[k-1].ev.Name, s.ev.Name, s.start)
			}
			for len(stack) > 0 && stack[len(stack)-1].end < s.start {
				stack = stack[:len(stack)-1]
			}
			if len(stack) > 0 {
				top := stack[len(stack)-1]
				switch {
				case top.end == s.start && top.start != s.start:
					r.errorf("thread %v: %q begins at %d ns where %q ends", th, s.ev.Name, s.start, top.ev.Name)
				case s.end > top.end:
					r.errorf("thread %v: %q [%d, %d] overlaps %q [%d, %d] without nesting", th, s.ev.Name, s.start, s.end, top.ev.Name, top.start, top.end)
				}
			}
			stack = append(stack, s)
		}
		r.slices += len(ss)
	}
	r.threads = len(byThread)
	for _, f := range flows {
		th := thread{f.Pid, f.Tid}
		ns := nsOf(*f.Ts)
		var bound *tefEvent
		if f.Ph == "f" && f.Bp != "e" {
			for _, s := range byThread[th] {
				if s.start >= ns {
					bound = s.ev
					break
				}
			}
		} else {
			// Slices are sorted by start and properly nested (checked
			// above): walking back from the last slice to begin at or
			// before ts meets every slice that could hold ts or end on
			// it before the innermost one that holds it.
			ss := byThread[th]
			k := sort.Search(len(ss), func(k int) bool { return ss[k].start > ns }) - 1
			for ; k >= 0; k-- {
				s := &ss[k]
				if s.start == ns || s.end == ns {
					r.errorf("flow %s %s at %d ns sits on the edge of %q [%d, %d]: its slice depends on event order", f.Ph, f.ID, ns, s.ev.Name, s.start, s.end)
				}
				if s.start < ns && ns < s.end {
					bound = s.ev
					break
				}
			}
		}
		if bound == nil {
			r.errorf("flow %s %s at %d ns on thread %v binds to no slice", f.Ph, f.ID, ns, th)
			continue
		}
		r.flows++
		switch f.Ph {
		case "s":
			if r.flowStart[f.ID] != nil {
				r.errorf("flow %s starts twice", f.ID)
			}
			r.flowStart[f.ID] = bound
		case "f":
			if r.flowEnd[f.ID] != nil {
				r.errorf("flow %s finishes twice", f.ID)
			}
			r.flowEnd[f.ID] = bound
		}
	}
	for id, s := range r.flowStart {
		f := r.flowEnd[id]
		if f == nil {
			r.errorf("flow %s never finishes", id)
		} else if nsOf(*f.Ts) < nsOf(*s.Ts) {
			r.errorf("flow %s finishes before it starts", id)
		}
	}
	for id := range r.flowEnd {
		if r.flowStart[id] == nil {
			r.errorf("flow %s finishes without a start", id)
		}
	}
	return r, nil
}

func stepOf(e *tefEvent) int {
	v, _ := e.Args["step"].(float64)
	return int(v)
}

// TestChromeTraceEventRules exports a run of every preset of every
// scenario, each variant (-short: the first), and checks the Trace Event Format rules above,
// then that every message's flow starts on the step that sent it and ends
// on the step that received it, and every step has its slice.
func TestChromeTraceEventRules(t *testing.T) {
	reg := catalog.New()
	for _, sc := range reg.List() {
		for _, pr := range sc.Presets {
			variants := sc.Variants
			if testing.Short() {
				variants = variants[:1] // the wasm pass under Node: the buggy variant only
			}
			for _, v := range variants {
				// The first 3000 steps: every preset but steady-hot-shard
				// (20,000 steps, the same pattern all along) ends sooner.
				spec := scenario.RunSpec{Scenario: sc.ID, Preset: pr.ID, Variant: v.ID, Seed: 1, MaxSteps: min(pr.MaxSteps, 3000)}
				name := sc.ID + "/" + pr.ID + "/" + v.ID
				tl, err := timeline.Record(reg, spec, timeline.Options{})
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				out, err := export.Chrome(tl)
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				rep, err := checkTEF(out)
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				if len(rep.errs) > 0 {
					t.Errorf("%s breaks the Trace Event Format rules:\n  %s", name, strings.Join(rep.errs, "\n  "))
					continue
				}
				checkBindings(t, name, tl, rep)
			}
		}
	}
}

func checkBindings(t *testing.T, name string, tl *timeline.Timeline, rep *tefReport) {
	t.Helper()
	tr := tl.Trace()
	delivered, wrong := 0, 0
	for id := 1; id <= tr.NumMessages(); id++ {
		m := tr.Message(sim.MsgID(id))
		if m.RecvStep < 0 || m.SentStep < 0 {
			continue
		}
		delivered++
		fid := fmt.Sprintf("msg%d", id)
		s, f := rep.flowStart[fid], rep.flowEnd[fid]
		if s == nil || f == nil || stepOf(s) != int(m.SentStep) || stepOf(f) != int(m.RecvStep) || s.Cat == "" || f.Cat == "" {
			if wrong == 0 {
				t.Errorf("%s: message %d (sent at step %d, received at %d) binds to other steps", name, id, m.SentStep, m.RecvStep)
			}
			wrong++
		}
	}
	if wrong > 0 {
		t.Errorf("%s: %d of %d flows land on the wrong step", name, wrong, delivered)
	}
	if len(rep.flowStart) != delivered {
		t.Errorf("%s: %d flows for %d delivered messages", name, len(rep.flowStart), delivered)
	}
	if rep.slices < tl.Len() {
		t.Errorf("%s: %d slices for %d steps", name, rep.slices, tl.Len())
	}
}

// TestTEFCheckerCatchesStaircases: the checker rejects what the old
// export did — steps at one instant on one thread as zero-length slices
// at one ts, with flows on that ts.
func TestTEFCheckerCatchesStaircases(t *testing.T) {
	bad := `{"traceEvents":[
	 {"name":"a","ph":"X","ts":5,"dur":0,"pid":1,"tid":1,"args":{"step":0}},
	 {"name":"b","ph":"X","ts":5,"dur":0,"pid":1,"tid":1,"args":{"step":1}},
	 {"name":"c","ph":"X","ts":5,"dur":0,"pid":1,"tid":2,"args":{"step":2}},
	 {"name":"m","ph":"s","ts":5,"pid":1,"tid":1,"id":"m1"},
	 {"name":"m","ph":"f","bp":"e","ts":5,"pid":1,"tid":2,"id":"m1"},
	 {"name":"x","ph":"B","ts":9,"pid":1,"tid":3},
	 {"name":"y","ph":"X","ts":8,"dur":1,"pid":1,"tid":3}]}`
	rep, err := checkTEF([]byte(bad))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"both begin at 5000 ns", "sits on the edge", "binds to no slice", "B events never closed", "after an event at 9000 ns"}
	got := strings.Join(rep.errs, "\n")
	for _, w := range want {
		if !strings.Contains(got, w) {
			t.Errorf("the checker missed %q; it said:\n%s", w, got)
		}
	}
}
