package timeline

import (
	"errors"
	"strconv"

	"github.com/racetrack-sim/racetrack/core/scenario"
	"github.com/racetrack-sim/racetrack/core/sim"
)

// ErrNoModel is returned by what needs a model to replay (Seek, a
// cursor's world) on an imported execution.
var ErrNoModel = errors.New("timeline: an imported execution has no model to replay")

// ImportedRun is an execution recorded outside the simulator, as
// core/ingest reads it from a real system's log: the kernel's step
// records, vector clocks and messages in Trace, and the tables its ids
// index.
type ImportedRun struct {
	ID      string
	Trace   *sim.Trace
	Nodes   []sim.Node
	Procs   []sim.Proc
	Mutexes []sim.Mutex
	Conds   []sim.Cond
	// Violations the log records (a Racetrack export's), by step.
	Violations []sim.Violation
	// Fields[i] are the named values logged with step i (the state
	// inspector shows each lane's latest), or nil.
	Fields  [][]sim.Field
	Untimed bool
}

type importedRun struct {
	violations []sim.Violation
	fields     [][]sim.Field
}

// Imported makes a timeline of a logged execution: the steps, messages,
// lock spans, wait-for cycles, causal slices and exports of a run, with
// no model behind it. StateAt shows each lane's logged fields; Seek
// answers ErrNoModel; a log records no choices, so a step has no
// alternatives and a fork is refused (ErrChoice).
func Imported(r ImportedRun) *Timeline {
	tl := &Timeline{id: r.ID, every: DefaultSnapshotEvery, trace: r.Trace, procs: r.Procs, nodes: r.Nodes,
		mutexes: r.Mutexes, conds: r.Conds, untimed: r.Untimed,
		imported: &importedRun{violations: r.Violations, fields: r.Fields}}
	tl.idx = buildIndex(tl)
	return tl
}

// IsImported reports whether the timeline is a logged execution.
func (tl *Timeline) IsImported() bool { return tl.imported != nil }

func (tl *Timeline) importedSummary() scenario.Summary {
	s := scenario.Summary{ID: tl.id, Steps: tl.Len(), Stop: "end of log", Violations: []scenario.Violation{}, Series: []string{}}
	if n := tl.Len(); n > 0 {
		s.EndTime = tl.trace.Step(n - 1).Time.Millis()
	}
	for _, v := range tl.imported.violations {
		s.Violations = append(s.Violations, scenario.Violation{Property: v.Property, Step: v.Step, Time: v.Time.Millis(), Message: v.Message})
	}
	return s
}

// importedState is StateAt for a logged execution: one group per lane
// with the latest value of each field it logged up to step i, the
// fields step i logged marked changed.
func (tl *Timeline) importedState(i int) StateView {
	sv := StateView{Step: i, Time: tl.trace.Step(i).Time.Millis(), View: tl.StepView(i), Violations: []scenario.Violation{},
		Properties: []PropertyStatus{}, Groups: []sim.Group{}}
	groups := make([]sim.Group, len(tl.procs))
	index := make([]map[string]int, len(tl.procs))
	for k := 0; k <= i && k < len(tl.imported.fields); k++ {
		p := tl.trace.Step(k).Proc
		for _, f := range tl.imported.fields[k] {
			if index[p] == nil {
				index[p] = map[string]int{}
			}
			f.Changed = k == i
			if at, ok := index[p][f.Name]; ok {
				groups[p].Fields[at] = f
				continue
			}
			index[p][f.Name] = len(groups[p].Fields)
			groups[p].Fields = append(groups[p].Fields, f)
		}
	}
	for p, g := range groups {
		if len(g.Fields) > 0 {
			pr := tl.procs[p]
			g.ID, g.Title, g.Node = "log/"+strconv.Itoa(p), pr.Name, pr.Node
			if node := tl.nodes[pr.Node].Name; node != pr.Name {
				g.Title = node + " / " + pr.Name
			}
			sv.Groups = append(sv.Groups, g)
		}
	}
	for _, v := range tl.imported.violations {
		if v.Step <= i {
			sv.Violations = append(sv.Violations, scenario.Violation{Property: v.Property, Step: v.Step, Time: v.Time.Millis(), Message: v.Message})
		}
	}
	return sv
}
