package timeline

import (
	"sort"

	"github.com/racetrack-sim/racetrack/core/sim"
)

// index holds what the queries need, computed once when a run is recorded.
type index struct {
	// sendStart[i]..sendStart[i+1] indexes sends: the messages sent by
	// step i.
	sendStart []int32
	sends     []sim.MsgID
	// procSteps[p] lists the steps of process p in order.
	procSteps [][]int32
	// messageSteps lists the steps that send or receive a message;
	// lockSteps those that lock, block, unlock, wait or signal;
	// violationSteps those at which a property failed (deduplicated).
	messageSteps   []int32
	lockSteps      []int32
	violationSteps []int32
	// choiceSteps lists the steps at which the chooser picked among
	// several options (what Alternatives lists).
	choiceSteps []int32
	spans       []Span
}

// SpanKind separates holding a mutex from waiting for one.
type SpanKind uint8

// Span kinds.
const (
	SpanHold SpanKind = iota + 1 // from acquiring a mutex to releasing it
	SpanWait                     // from blocking on a mutex to acquiring it
	SpanCond                     // from waiting on a condition variable to holding its mutex again
)

var spanKindNames = [...]string{"", "hold", "wait", "cond"}

func (k SpanKind) String() string { return spanKindNames[k] }

// MarshalText makes span kinds readable in JSON.
func (k SpanKind) MarshalText() ([]byte, error) { return []byte(k.String()), nil }

// Span is an interval of one process's life around a mutex: a hold (lock
// to unlock), a wait (block to acquire) or a wait on a condition variable
// (wait to reacquiring its mutex). End is -1 when the run ended before it
// closed.
type Span struct {
	Kind  SpanKind    `json:"kind"`
	Proc  sim.ProcID  `json:"proc"`
	Mutex sim.MutexID `json:"mutex"`
	// Cond is the condition variable of a SpanCond, -1 otherwise.
	Cond  sim.CondID `json:"cond"`
	Start int        `json:"start"`
	End   int        `json:"end"`
}

func buildIndex(tl *Timeline) index {
	tr := tl.trace
	n := tr.Len()
	var x index
	x.procSteps = make([][]int32, len(tl.procs))
	counts := make([]int32, n+1)
	for id := 1; id <= tr.NumMessages(); id++ {
		m := tr.Message(sim.MsgID(id))
		if m.SentStep >= 0 && int(m.SentStep) < n {
			counts[m.SentStep+1]++
		}
	}
	x.sendStart = make([]int32, n+1)
	for i := 1; i <= n; i++ {
		x.sendStart[i] = x.sendStart[i-1] + counts[i]
	}
	x.sends = make([]sim.MsgID, x.sendStart[n])
	fill := make([]int32, n)
	copy(fill, x.sendStart[:n])
	for id := 1; id <= tr.NumMessages(); id++ {
		m := tr.Message(sim.MsgID(id))
		if m.SentStep >= 0 && int(m.SentStep) < n {
			x.sends[fill[m.SentStep]] = sim.MsgID(id)
			fill[m.SentStep]++
		}
	}

	// open[p*M+m] is the index in spans of p's open hold or wait of m, +1.
	nm := len(tl.mutexes)
	openHold := make([]int32, len(tl.procs)*nm)
	openWait := make([]int32, len(tl.procs)*nm)
	closeSpan := func(open []int32, p sim.ProcID, m int32, at int) {
		k := int(p)*nm + int(m)
		if open[k] > 0 {
			x.spans[open[k]-1].End = at
			open[k] = 0
		}
	}
	openSpan := func(open []int32, kind SpanKind, p sim.ProcID, m int32, at int) {
		x.spans = append(x.spans, Span{Kind: kind, Proc: p, Mutex: sim.MutexID(m), Cond: sim.None, Start: at, End: -1})
		open[int(p)*nm+int(m)] = int32(len(x.spans))
	}
	for i := 0; i < n; i++ {
		s := tr.Step(i)
		x.procSteps[s.Proc] = append(x.procSteps[s.Proc], int32(i))
		if s.Kind == sim.StepReceive || x.sendStart[i+1] > x.sendStart[i] {
			x.messageSteps = append(x.messageSteps, int32(i))
		}
		switch s.Kind {
		case sim.StepLock:
			x.lockSteps = append(x.lockSteps, int32(i))
			closeSpan(openWait, s.Proc, s.Obj, i)
			openSpan(openHold, SpanHold, s.Proc, s.Obj, i)
		case sim.StepBlock:
			x.lockSteps = append(x.lockSteps, int32(i))
			openSpan(openWait, SpanWait, s.Proc, s.Obj, i)
		case sim.StepUnlock:
			x.lockSteps = append(x.lockSteps, int32(i))
			closeSpan(openHold, s.Proc, s.Obj, i)
		case sim.StepWait:
			x.lockSteps = append(x.lockSteps, int32(i))
			if s.Obj >= 0 && int(s.Obj) < len(tl.conds) {
				m := int32(tl.conds[s.Obj].L)
				closeSpan(openHold, s.Proc, m, i)
				openSpan(openWait, SpanCond, s.Proc, m, i)
				x.spans[len(x.spans)-1].Cond = sim.CondID(s.Obj)
			}
		case sim.StepSignal:
			x.lockSteps = append(x.lockSteps, int32(i))
		}
	}
	for _, v := range tl.Violations() {
		x.violationSteps = append(x.violationSteps, int32(v.Step))
	}
	sort.Slice(x.violationSteps, func(a, b int) bool { return x.violationSteps[a] < x.violationSteps[b] })
	x.violationSteps = dedup(x.violationSteps)
	for _, c := range tr.Choices {
		x.choiceSteps = append(x.choiceSteps, c.Step)
	}
	x.choiceSteps = dedup(x.choiceSteps)
	return x
}

func dedup(s []int32) []int32 {
	out := s[:0]
	for i, v := range s {
		if i == 0 || v != s[i-1] {
			out = append(out, v)
		}
	}
	return out
}

// Spans lists every lock hold and wait of the run, ordered by start step.
// Callers must not modify it.
func (tl *Timeline) Spans() []Span { return tl.idx.spans }

// Sends lists the messages sent by step i (nil for a bad index).
func (tl *Timeline) Sends(i int) []sim.MsgID {
	if i < 0 || i >= tl.Len() {
		return nil
	}
	return tl.idx.sends[tl.idx.sendStart[i]:tl.idx.sendStart[i+1]]
}

// ProcSteps lists the steps of process p in order (nil for a bad id).
// Callers must not modify it.
func (tl *Timeline) ProcSteps(p sim.ProcID) []int32 {
	if p < 0 || int(p) >= len(tl.idx.procSteps) {
		return nil
	}
	return tl.idx.procSteps[p]
}
