package timeline

import (
	"github.com/racetrack-sim/racetrack/core/scenario"
)

// Memory a timeline holds, per unit. A trace stores steps, messages and
// vector clocks in chunks of 4096 entries (a run of ten steps holds a
// whole chunk); an index and labels come with the steps.
const (
	traceChunk   = 4096
	stepBytes    = 64 // sim.Step plus its share of the index
	messageBytes = 64 // sim.Message
	clockBytes   = 4  // one vector clock entry, per process per step
	choiceBytes  = 40 // a recorded choice
	baseBytes    = 256 << 10
)

// EstimateBytes is the memory the timeline of spec will hold at most,
// computed before it is recorded (Pending.Bytes). The world is built (not
// run) to learn its width; errors are the spec's.
func EstimateBytes(reg *scenario.Registry, spec scenario.RunSpec, every int) (int64, error) {
	n, err := reg.Check(spec)
	if err != nil {
		return 0, err
	}
	p, err := Prepare(n, Options{SnapshotEvery: every})
	if err != nil {
		return 0, err
	}
	return p.Bytes(), nil
}

// Bytes estimates the memory the timeline holds, from what it recorded.
func (tl *Timeline) Bytes() int64 {
	t := tl.trace
	var c scenario.Cost // an imported execution has no world to snapshot
	if tl.sc != nil {
		c = tl.sc.CostOf(scenario.Values(tl.spec.Params))
	}
	return traceBytes(t.Width, t.Len(), t.NumMessages(), len(tl.schedule), tl.every, c)
}

// traceBytes is the cost of a trace of the given counts and its
// snapshots, each a world grown by the steps before it.
func traceBytes(width, steps, messages, choices, every int, c scenario.Cost) int64 {
	chunks := func(n int) int64 { return int64((n + traceChunk - 1) / traceChunk * traceChunk) }
	size := baseBytes + chunks(steps)*(stepBytes+clockBytes*int64(width)) + chunks(messages)*messageBytes + int64(choices)*choiceBytes
	if every <= 0 {
		every = DefaultSnapshotEvery
	}
	n := int64(steps/every) + 1 // snapshots, the first at step 0
	size += (n+1)*c.WorldBytes + int64(c.GrowthPerStep*float64(every)*float64(n*(n+1)/2))
	// The allocator's size classes and the slack of growing slices come
	// on top of what the data needs.
	return size + size/8
}

// WorldBytesAt is the declared memory of the run's world at step i (its
// scenario's Cost): what a view that replays to step i holds besides the
// timeline. 0 for an imported execution, which has no world.
func (tl *Timeline) WorldBytesAt(i int) int64 {
	if tl.imported != nil || tl.sc == nil {
		return 0
	}
	c := tl.sc.CostOf(scenario.Values(tl.spec.Params))
	return c.WorldBytes + int64(c.GrowthPerStep*float64(i))
}
