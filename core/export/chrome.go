package export

import (
	"encoding/json"
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

// Chrome writes the run as Chrome trace event JSON, for Perfetto
// (ui.perfetto.dev) and chrome://tracing. Each node is a process and each
// simulated process a thread track; every step is a complete ("X") slice
// on its track (a thread's local work lasts until its next step); lock
// holds and waits are async slices ("b"/"e", one id per hold); delivered
// messages are flows ("s" at the send, "f" at the receipt); lost messages
// and violations are instant events. Timestamps are virtual microseconds;
// in an untimed run, where every step happens at time zero, the step
// index stands for the time (otherData.timebase says which).
func Chrome(tl *timeline.Timeline) ([]byte, error) {
	tr := tl.Trace()
	procs := tl.Procs()
	timebase := "virtual time"
	ts := func(i int) float64 { return float64(tr.Step(i).Time) / 1000 }
	if tl.Untimed() {
		timebase = "step index"
		ts = func(i int) float64 { return float64(i) }
	}
	end := 0.0
	if tr.Len() > 0 {
		end = ts(tr.Len() - 1)
	}
	pid := func(p sim.ProcID) int { return int(procs[p].Node) + 1 }
	tid := func(p sim.ProcID) int { return int(p) + 1 }
	var evs []ChromeEvent
	for _, n := range tl.Nodes() {
		evs = append(evs, ChromeEvent{Name: "process_name", Ph: "M", Pid: int(n.ID) + 1, Args: map[string]any{"name": n.Name}})
	}
	for _, p := range procs {
		name := p.Name
		if p.Shard >= 0 {
			name += " [shard " + strconv.Itoa(p.Shard) + "]"
		}
		evs = append(evs, ChromeEvent{Name: "thread_name", Ph: "M", Pid: pid(p.ID), Tid: tid(p.ID), Args: map[string]any{"name": name}},
			ChromeEvent{Name: "thread_sort_index", Ph: "M", Pid: pid(p.ID), Tid: tid(p.ID), Args: map[string]any{"sort_index": int(p.ID)}})
	}
	for p := range procs {
		steps := tl.ProcSteps(sim.ProcID(p))
		for k, s32 := range steps {
			i := int(s32)
			st := tr.Step(i)
			dur := 0.0
			if st.Kind == sim.StepLocal && procs[p].Kind == sim.Thread && k+1 < len(steps) {
				dur = ts(int(steps[k+1])) - ts(i)
			}
			evs = append(evs, ChromeEvent{Name: tr.Label(st.Label), Cat: st.Kind.String(), Ph: "X", Ts: ts(i), Dur: &dur,
				Pid: pid(st.Proc), Tid: tid(st.Proc), Args: map[string]any{"step": i}})
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
		evs = append(evs,
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
			evs = append(evs,
				ChromeEvent{Name: label, Cat: "message", Ph: "s", Ts: ts(int(m.SentStep)), Pid: pid(m.From), Tid: tid(m.From), ID: fid},
				ChromeEvent{Name: label, Cat: "message", Ph: "f", Bp: "e", Ts: ts(int(m.RecvStep)), Pid: pid(m.To), Tid: tid(m.To), ID: fid})
		case m.Dropped:
			evs = append(evs, ChromeEvent{Name: "lost: " + label, Cat: "message", Ph: "i", Scope: "t", Ts: ts(int(m.SentStep)),
				Pid: pid(m.From), Tid: tid(m.From), Args: map[string]any{"to": procs[m.To].Name, "reason": m.DropReason.String()}})
		}
	}
	for _, v := range tl.Violations() {
		if v.Step < 0 || v.Step >= tr.Len() {
			continue
		}
		p := tr.Step(v.Step).Proc
		evs = append(evs, ChromeEvent{Name: "violation: " + v.Property, Cat: "violation", Ph: "i", Scope: "g", Ts: ts(v.Step),
			Pid: pid(p), Tid: tid(p), Args: map[string]any{"message": v.Message, "step": v.Step}})
	}
	out := ChromeTrace{TraceEvents: evs, DisplayTimeUnit: "ms", OtherData: map[string]any{
		"run": tl.ID(), "scenario": tl.Spec().Scenario, "variant": tl.Spec().Variant, "seed": tl.Spec().Seed, "timebase": timebase}}
	return json.Marshal(out)
}
