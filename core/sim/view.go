package sim

import "strconv"

// View is a display-ready picture of a model's state at one step: groups
// (a node, a shard, a process, a coordinator's beliefs) of named fields.
type View struct {
	Groups []Group `json:"groups"`
}

// Group is one box of the state inspector.
type Group struct {
	ID     string  `json:"id"`
	Title  string  `json:"title"`
	Node   NodeID  `json:"node"`
	Fields []Field `json:"fields"`
}

// Field is one named value. Changed is set by the timeline when the value
// differs from the previous step's.
type Field struct {
	Name    string `json:"name"`
	Value   string `json:"value"`
	Unit    string `json:"unit,omitempty"`
	Changed bool   `json:"changed,omitempty"`
}

// SeriesID names a series defined in Init.
type SeriesID int32

// SeriesDef describes a time series a model samples.
type SeriesDef struct {
	Name  string `json:"name"`
	Unit  string `json:"unit,omitempty"`
	Group string `json:"group,omitempty"`
}

// Point is one sample of a series.
type Point struct {
	Step  int32   `json:"step"`
	Time  Time    `json:"time"`
	Value float64 `json:"value"`
}

// DescribeProc says, for the state inspector, what process p is doing:
// its status, and the mutex or condition variable it waits for.
func (w *World) DescribeProc(p ProcID) string {
	pr := &w.procs[p]
	state := pr.Status.String()
	switch pr.Status {
	case Blocked:
		state += " on " + w.mutexes[pr.BlockedOn].Name
	case Waiting:
		state += " on " + w.conds[pr.WaitingOn].Name
	}
	return state
}

// DescribeMutex says who holds m and who waits for it ("held by a;
// 2 waiting: b c").
func (w *World) DescribeMutex(id MutexID) string {
	m := &w.mutexes[id]
	val := "free"
	if m.Holder != None {
		val = "held by " + w.ProcName(m.Holder)
	}
	if len(m.Waiters) > 0 {
		val += "; " + strconv.Itoa(len(m.Waiters)) + " waiting:"
		for _, q := range m.Waiters {
			val += " " + w.ProcName(q)
		}
	}
	return val
}
