package export

import (
	"io"
	"strconv"

	"github.com/racetrack-sim/racetrack/core/sim"
	"github.com/racetrack-sim/racetrack/core/timeline"
)

// ChromeEvent is one entry of the Chrome trace event format.
type ChromeEvent struct {
	Name  string         `json:"name"`
	Cat   string         `json:"cat,omitempty"`
	Ph    string         `json:"ph"`
	Ts    float64        `json:"ts"`
	Dur   *float64       `json:"dur,omitempty"`
	Pid   int            `json:"pid"`
	Tid   int            `json:"tid"`
	ID    string         `json:"id,omitempty"`
	Bp    string         `json:"bp,omitempty"`
	Scope string         `json:"s,omitempty"`
	Args  map[string]any `json:"args,omitempty"`
}

// ChromeTrace is the JSON object format of a Chrome trace.
type ChromeTrace struct {
	TraceEvents     []ChromeEvent  `json:"traceEvents"`
	DisplayTimeUnit string         `json:"displayTimeUnit"`
	OtherData       map[string]any `json:"otherData"`
}

// Spacing of the trace's time axis, in nanoseconds. Perfetto reads ts in
// microseconds and rounds it to whole nanoseconds; it nests slices that
// begin at one ts into staircases and binds a flow event to whichever
// slice encloses its ts, so steps that share a virtual instant must not
// share a ts.
const (
	// stepGap is the least distance between two consecutive steps.
	stepGap = 4
	// stepDur is the length of a step's slice (a thread's local work
	// lasts until 1 ns before its next step instead).
	stepDur = 3
	// flowAt places a flow's start (at the send) and end (at the
	// receipt) strictly inside the step's slice; lostAt places the
	// instant of a lost message there too, apart from the flows.
	flowAt = 1
	lostAt = 2
)

// displayTimes is each step's place on the trace's time axis, in ns: its
// virtual time (the step index times 1 µs in an untimed run), except that
// a step is never less than stepGap after the step before it. Steps at
// one virtual instant are so spread 4 ns apart in step order; a step
// moves later only while earlier steps crowd its instant, by at most 4 ns
// per step. The exact virtual time is each slice's args.time_ns.
func displayTimes(tl *timeline.Timeline) []int64 {
	tr := tl.Trace()
	out := make([]int64, tr.Len())
	prev := int64(-stepGap)
	for i := range out {
		t := int64(tr.Step(i).Time)
		if tl.Untimed() {
			t = int64(i) * 1000
		}
		t = max(t, prev+stepGap)
		out[i], prev = t, t
	}
	return out
}

// Chrome writes the run as Chrome trace event JSON, for Perfetto
// (ui.perfetto.dev) and chrome://tracing. Each node is a process and each
// simulated process a thread track; every step is a complete ("X") slice
// on its track (a thread's local work lasts until its next step); lock
// holds and waits are async slices ("b"/"e", one id per hold); delivered
// messages are flows ("s" inside the sending step's slice, "f" with
// bp "e" inside the receiving step's slice); lost messages and violations
// are instant events. Timestamps are virtual microseconds, spread so that
// no two steps share one (see displayTimes); in an untimed run, where
// every step happens at time zero, the step index stands for the time in
// µs (otherData.timebase says which).
func Chrome(tl *timeline.Timeline) ([]byte, error) { return collect(WriteChrome, tl) }

// WriteChrome writes the Chrome trace (the shape of ChromeTrace) one
// event at a time.
func WriteChrome(w io.Writer, tl *timeline.Timeline) error {
	tr := tl.Trace()
	procs := tl.Procs()
	timebase := "virtual time"
	if tl.Untimed() {
		timebase = "step index"
	}
	at := displayTimes(tl)
	us := func(ns int64) float64 { return float64(ns) / 1000 }
	ts := func(i int) float64 { return us(at[i]) }
	end := 0.0
	if n := len(at); n > 0 {
		end = us(at[n-1] + stepDur)
	}
	pid := func(p sim.ProcID) int { return int(procs[p].Node) + 1 }
	tid := func(p sim.ProcID) int { return int(p) + 1 }
	o := &jsonOut{w: w}
	o.raw(`{"traceEvents":[`)
	n := 0
	emit := func(es ...ChromeEvent) {
		for _, e := range es {
			if n > 0 {
				o.raw(",")
			}
			n++
			o.value(e)
		}
	}
	for _, n := range tl.Nodes() {
		emit(ChromeEvent{Name: "process_name", Ph: "M", Pid: int(n.ID) + 1, Args: map[string]any{"name": n.Name}})
	}
	for _, p := range procs {
		name := p.Name
		if p.Shard >= 0 {
			name += " [shard " + strconv.Itoa(p.Shard) + "]"
		}
		emit(ChromeEvent{Name: "thread_name", Ph: "M", Pid: pid(p.ID), Tid: tid(p.ID), Args: map[string]any{"name": name}},
			ChromeEvent{Name: "thread_sort_index", Ph: "M", Pid: pid(p.ID), Tid: tid(p.ID), Args: map[string]any{"sort_index": int(p.ID)}})
	}
	for p := range procs {
		steps := tl.ProcSteps(sim.ProcID(p))
		for k, s32 := range steps {
			i := int(s32)
			st := tr.Step(i)
			dur := us(stepDur)
			if st.Kind == sim.StepLocal && procs[p].Kind == sim.Thread && k+1 < len(steps) {
				dur = us(at[steps[k+1]] - 1 - at[i])
			}
			emit(ChromeEvent{Name: tr.Label(st.Label), Cat: st.Kind.String(), Ph: "X", Ts: ts(i), Dur: &dur,
				Pid: pid(st.Proc), Tid: tid(st.Proc), Args: map[string]any{"step": i, "time_ns": int64(st.Time)}})
		}
	}
	mutexes := tl.Mutexes()
	for k, s := range tl.Spans() {
		name := "holds " + mutexes[s.Mutex].Name
		switch s.Kind {
		case timeline.SpanWait:
			name = "waits for " + mutexes[s.Mutex].Name
		case timeline.SpanCond:
			name = "waits on " + tl.Conds()[s.Cond].Name
		}
		id := "span" + strconv.Itoa(k)
		stop := end
		if s.End >= 0 {
			stop = ts(s.End)
		}
		emit(
			ChromeEvent{Name: name, Cat: "lock", Ph: "b", Ts: ts(s.Start), Pid: pid(s.Proc), Tid: tid(s.Proc), ID: id, Args: map[string]any{"step": s.Start}},
			ChromeEvent{Name: name, Cat: "lock", Ph: "e", Ts: stop, Pid: pid(s.Proc), Tid: tid(s.Proc), ID: id})
	}
	for id := 1; id <= tr.NumMessages(); id++ {
		m := tr.Message(sim.MsgID(id))
		label := tr.Label(m.Label)
		if m.SentStep < 0 || int(m.SentStep) >= tr.Len() {
			continue
		}
		switch {
		case m.RecvStep >= 0:
			fid := "msg" + strconv.Itoa(id)
			emit(
				ChromeEvent{Name: label, Cat: "message", Ph: "s", Ts: us(at[m.SentStep] + flowAt), Pid: pid(m.From), Tid: tid(m.From), ID: fid},
				ChromeEvent{Name: label, Cat: "message", Ph: "f", Bp: "e", Ts: us(at[m.RecvStep] + flowAt), Pid: pid(m.To), Tid: tid(m.To), ID: fid})
		case m.Dropped:
			emit(ChromeEvent{Name: "lost: " + label, Cat: "message", Ph: "i", Scope: "t", Ts: us(at[m.SentStep] + lostAt),
				Pid: pid(m.From), Tid: tid(m.From), Args: map[string]any{"to": procs[m.To].Name, "reason": m.DropReason.String()}})
		}
	}
	for _, v := range tl.Violations() {
		if v.Step < 0 || v.Step >= tr.Len() {
			continue
		}
		p := tr.Step(v.Step).Proc
		emit(ChromeEvent{Name: "violation: " + v.Property, Cat: "violation", Ph: "i", Scope: "g", Ts: ts(v.Step),
			Pid: pid(p), Tid: tid(p), Args: map[string]any{"message": v.Message, "step": v.Step}})
	}
	o.raw("]")
	o.field("displayTimeUnit", "ms", false)
	o.field("otherData", map[string]any{
		"run": tl.ID(), "scenario": tl.Spec().Scenario, "variant": tl.Spec().Variant, "seed": tl.Spec().Seed, "timebase": timebase}, false)
	o.raw("}")
	return o.err
}
