package ingest

import (
	"github.com/racetrack-sim/racetrack/core/sim"
	"github.com/racetrack-sim/racetrack/core/timeline"
)

// Timeline makes the execution a timeline that every view of a run
// reads (steps, layout, find, slices, wait-for cycles, exports), with id
// as its run id; its state inspector shows the logged fields.
func (e *Execution) Timeline(id string) *timeline.Timeline {
	tr := sim.NewTrace(e.Width())
	fields := make([][]sim.Field, len(e.Steps))
	for i, s := range e.Steps {
		tr.AddStep(s, e.StepLabel(i), e.Clock(i))
		for _, f := range e.Fields[i] {
			fields[i] = append(fields[i], sim.Field{Name: f.Name, Value: f.Value})
		}
	}
	for _, m := range e.Messages {
		tr.AddMessage(m, e.Labels[m.Label])
	}
	return timeline.Imported(timeline.ImportedRun{ID: id, Trace: tr, Nodes: e.Nodes, Procs: e.Procs, Mutexes: e.Mutexes,
		Conds: e.Conds, Violations: e.Violations, Fields: fields, Untimed: e.Untimed})
}
