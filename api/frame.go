package api

import (
	"github.com/racetrack-sim/racetrack/core/scenario"
	"github.com/racetrack-sim/racetrack/core/sim"
)

// maxFrameEdges bounds the edges one frame carries; a frame that merges
// more keeps the latest and counts the rest in EdgesDropped.
const maxFrameEdges = 256

// Frame is one picture of a playing run on its stream: where the cursor
// is, what changed in the state view since the previous frame, and the
// causal edges into the steps moved over.
type Frame struct {
	Type    string  `json:"type"` // "frame"
	Step    int     `json:"step"`
	Time    float64 `json:"time"` // ms
	Playing bool    `json:"playing"`
	Speed   float64 `json:"speed"` // steps per second
	End     bool    `json:"end"`   // the cursor is on the last step
	// Full is set when Changed holds every field (the first frame).
	Full       bool                 `json:"full,omitempty"`
	Changed    []ChangedField       `json:"changed"`
	Edges      []Edge               `json:"edges"`
	Violations []scenario.Violation `json:"violations,omitempty"`
	// Coalesced counts the frames merged into this one because the
	// client read slower than they were made.
	Coalesced    int `json:"coalesced,omitempty"`
	EdgesDropped int `json:"edgesDropped,omitempty"`
	// Made and SentAt are server clock readings (Unix ns) when the frame
	// was made and written: clients on the same machine measure latency.
	Made   int64 `json:"made"`
	SentAt int64 `json:"sentAt"`
}

// ChangedField is one field of the state view with its new value.
type ChangedField struct {
	Group string `json:"group"`
	Name  string `json:"name"`
	Value string `json:"value"`
	Unit  string `json:"unit,omitempty"`
}

// Edge is a happens-before edge into a step: the send of the message it
// received, or the release of the mutex it acquired.
type Edge struct {
	From  int    `json:"from"`
	To    int    `json:"to"`
	Kind  string `json:"kind"` // message, lock, causal
	Msg   int    `json:"msg,omitempty"`
	Label string `json:"label,omitempty"`
}

// merge folds a newer frame g into f: the cursor and flags are g's, the
// changed fields keep the newest value of each, edges and violations add
// up (edges bounded).
func (f *Frame) merge(g *Frame) {
	f.Step, f.Time, f.Playing, f.Speed, f.End, f.Made = g.Step, g.Time, g.Playing, g.Speed, g.End, g.Made
	f.Full = f.Full || g.Full
	f.Coalesced += 1 + g.Coalesced
	index := make(map[[2]string]int, len(f.Changed))
	for i, c := range f.Changed {
		index[[2]string{c.Group, c.Name}] = i
	}
	for _, c := range g.Changed {
		if i, ok := index[[2]string{c.Group, c.Name}]; ok {
			f.Changed[i] = c
			continue
		}
		index[[2]string{c.Group, c.Name}] = len(f.Changed)
		f.Changed = append(f.Changed, c)
	}
	f.Edges = append(f.Edges, g.Edges...)
	f.EdgesDropped += g.EdgesDropped
	if over := len(f.Edges) - maxFrameEdges; over > 0 {
		f.Edges = append(f.Edges[:0], f.Edges[over:]...)
		f.EdgesDropped += over
	}
	f.Violations = append(f.Violations, g.Violations...)
}

// fieldState is the state view a stream's client holds, as the flat list
// of its fields in view order.
type fieldState struct {
	fields []ChangedField
	spare  []ChangedField // the previous step's list, reused
}

// update takes the view of a new step and returns the fields whose value
// differs from what the client holds (all of them when full). A model's
// view keeps its groups and fields in the same order from step to step,
// so fields are compared by position; a view whose layout changed is
// compared by name.
func (s *fieldState) update(groups []sim.Group, full bool) []ChangedField {
	next := s.spare[:0]
	for _, g := range groups {
		for _, fd := range g.Fields {
			next = append(next, ChangedField{Group: g.ID, Name: fd.Name, Value: fd.Value, Unit: fd.Unit})
		}
	}
	prev := s.fields
	s.fields, s.spare = next, prev
	if full || prev == nil {
		return append([]ChangedField(nil), next...)
	}
	changed := []ChangedField{}
	if sameLayout(prev, next) {
		for i := range next {
			if next[i].Value != prev[i].Value {
				changed = append(changed, next[i])
			}
		}
		return changed
	}
	old := make(map[[2]string]string, len(prev))
	for _, f := range prev {
		old[[2]string{f.Group, f.Name}] = f.Value
	}
	for _, f := range next {
		if v, ok := old[[2]string{f.Group, f.Name}]; !ok || v != f.Value {
			changed = append(changed, f)
		}
	}
	return changed
}

func sameLayout(a, b []ChangedField) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Group != b[i].Group || a[i].Name != b[i].Name {
			return false
		}
	}
	return true
}
