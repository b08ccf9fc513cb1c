package api

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/racetrack-sim/racetrack/core/sim"
)

func view(fields ...string) []sim.Group {
	g := sim.Group{ID: "g"}
	for i := 0; i+1 < len(fields); i += 2 {
		g.Fields = append(g.Fields, sim.Field{Name: fields[i], Value: fields[i+1]})
	}
	return []sim.Group{g}
}

func TestFieldStateReportsWhatChanged(t *testing.T) {
	var s fieldState
	assert.Len(t, s.update(view("a", "1", "b", "2"), true), 2, "a full frame carries every field")
	assert.Empty(t, s.update(view("a", "1", "b", "2"), false))
	assert.Equal(t, []ChangedField{{Group: "g", Name: "b", Value: "3"}}, s.update(view("a", "1", "b", "3"), false))
	// A new layout is compared by name.
	assert.Equal(t, []ChangedField{{Group: "g", Name: "c", Value: "9"}}, s.update(view("b", "3", "c", "9", "a", "1"), false))
}

func TestFrameMergeKeepsNewestValuesAndBoundsEdges(t *testing.T) {
	f := &Frame{Step: 1, Changed: []ChangedField{{Group: "g", Name: "a", Value: "1"}, {Group: "g", Name: "b", Value: "1"}}}
	for i := range maxFrameEdges {
		f.Edges = append(f.Edges, Edge{From: i, To: i + 1})
	}
	g := &Frame{Step: 7, End: true, Changed: []ChangedField{{Group: "g", Name: "b", Value: "2"}, {Group: "g", Name: "c", Value: "2"}},
		Edges: []Edge{{From: 500, To: 501}}, Violations: nil}
	f.merge(g)
	assert.Equal(t, 7, f.Step)
	assert.True(t, f.End)
	assert.Equal(t, 1, f.Coalesced)
	assert.Equal(t, []ChangedField{{Group: "g", Name: "a", Value: "1"}, {Group: "g", Name: "b", Value: "2"}, {Group: "g", Name: "c", Value: "2"}}, f.Changed)
	assert.Len(t, f.Edges, maxFrameEdges)
	assert.Equal(t, 1, f.EdgesDropped)
	assert.Equal(t, 500, f.Edges[len(f.Edges)-1].From, "the newest edges are kept")
}

func TestOutboxCoalescesFramesAndOverflows(t *testing.T) {
	o := newOutbox(2)
	assert.True(t, o.push(&Frame{Step: 1}))
	assert.True(t, o.push(&Frame{Step: 2}), "a frame merges into a waiting frame")
	assert.True(t, o.push(streamError{Type: "error"}))
	assert.False(t, o.push(streamError{Type: "error"}), "a full queue refuses")
	items := o.take()
	assert.Len(t, items, 2)
	assert.Equal(t, 2, items[0].(*Frame).Step)
}
