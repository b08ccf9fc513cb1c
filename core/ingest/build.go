package ingest

import "github.com/racetrack-sim/racetrack/core/sim"

// builder appends steps in an order consistent with happens-before and
// computes each step's vector clock the way the kernel does: the
// process's previous clock, joined with the clocks of the steps it
// follows, with its own entry counted up.
type builder struct {
	x        *Execution
	labelIDs map[string]sim.LabelID
	last     []int32 // the last step of each process, or -1
}

func newBuilder(x *Execution, events int) *builder {
	b := &builder{x: x, labelIDs: map[string]sim.LabelID{}, last: make([]int32, len(x.Procs))}
	for i := range b.last {
		b.last[i] = -1
	}
	x.Steps = make([]sim.Step, 0, events)
	x.Lines = make([]int32, 0, events)
	x.Fields = make([][]Field, 0, events)
	x.clocks = make([]uint32, 0, events*len(x.Procs))
	return b
}

func (b *builder) intern(s string) sim.LabelID {
	if id, ok := b.labelIDs[s]; ok {
		return id
	}
	id := sim.LabelID(len(b.x.Labels))
	b.x.Labels = append(b.x.Labels, s)
	b.labelIDs[s] = id
	return id
}

// add appends step s (its Parent, if any, among after) and returns its
// index; after lists every earlier step on another process that s
// directly follows.
func (b *builder) add(s sim.Step, label string, after []int32, line int32, fields []Field) int32 {
	x := b.x
	i := int32(len(x.Steps))
	s.Label = b.intern(label)
	x.Steps = append(x.Steps, s)
	x.Lines = append(x.Lines, line)
	x.Fields = append(x.Fields, fields)
	w := len(x.Procs)
	x.clocks = append(x.clocks, make([]uint32, w)...)
	vc := x.clocks[int(i)*w:]
	if prev := b.last[s.Proc]; prev >= 0 {
		copy(vc, x.Clock(int(prev)))
	}
	for _, a := range after {
		for k, c := range x.Clock(int(a)) {
			if c > vc[k] {
				vc[k] = c
			}
		}
	}
	vc[s.Proc]++
	b.last[s.Proc] = i
	return i
}
