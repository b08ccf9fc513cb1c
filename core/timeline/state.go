package timeline

import (
	"fmt"

	"github.com/racetrack-sim/racetrack/core/scenario"
	"github.com/racetrack-sim/racetrack/core/sim"
)

// StateView is the state inspector's picture of one step.
type StateView struct {
	Step int      `json:"step"`
	Time float64  `json:"time"`
	View StepView `json:"event"`
	// Groups is the model's view (sim.Viewer) with Changed set on fields
	// that differ from the previous step, followed by the kernel's view
	// of processes and mutexes.
	Groups []sim.Group `json:"groups"`
	// Violations lists the violations that happened at or before Step.
	Violations []scenario.Violation `json:"violations"`
	Properties []PropertyStatus     `json:"properties"`
}

// PropertyStatus is one property's state at a step.
type PropertyStatus struct {
	Name string           `json:"name"`
	Kind sim.PropertyKind `json:"kind"`
	// Status is "ok", "pending" (an Eventually obligation is outstanding)
	// or "violated"; for a Sometimes property "reached" or "not reached".
	Status string `json:"status"`
	// Since is when a pending obligation became outstanding (ms).
	Since float64 `json:"since,omitempty"`
	// Step and Message describe the violation, when violated (the first
	// step that reached it, when reached).
	Step    int    `json:"step,omitempty"`
	Message string `json:"message,omitempty"`
}

// StateAt returns the state after step i with the fields that step i
// changed flagged.
func (tl *Timeline) StateAt(i int) (StateView, error) {
	if err := tl.checkStep(i); err != nil {
		return StateView{}, err
	}
	if tl.imported != nil {
		return tl.importedState(i), nil
	}
	w, _, err := tl.replay(i)
	if err != nil {
		return StateView{}, err
	}
	return tl.stateOf(w, i)
}

// stateOf steps w, the world before step i, over step i and describes it.
func (tl *Timeline) stateOf(w *sim.World, i int) (StateView, error) {
	before := viewOf(w)
	if !w.Step() {
		return StateView{}, fmt.Errorf("%w: step %d did not run again: %v", ErrReplay, i, w.Err())
	}
	after := viewOf(w)
	markChanged(before, after)
	sv := StateView{Step: i, Time: tl.trace.Step(i).Time.Millis(), View: tl.StepView(i), Groups: after.Groups,
		Violations: []scenario.Violation{}}
	for _, v := range tl.final.Violations() {
		if v.Step <= i {
			sv.Violations = append(sv.Violations, scenario.Violation{Property: v.Property, Step: v.Step, Time: v.Time.Millis(), Message: v.Message})
		}
	}
	sv.Properties = tl.propertyStatus(w, i)
	return sv, nil
}

// Cursor answers StateAt for a person stepping forwards: it keeps a world
// of its own and steps it to the next step asked for, instead of replaying
// from the nearest snapshot; a step behind it, or far ahead, is a seek.
// The answers are StateAt's.
type Cursor struct {
	tl *Timeline
	w  *sim.World // the world after n steps
	n  int
}

// Cursor returns a cursor over the timeline.
func (tl *Timeline) Cursor() *Cursor { return &Cursor{tl: tl} }

// Timeline is the cursor's timeline.
func (c *Cursor) Timeline() *Timeline { return c.tl }

// moveTo puts the cursor's world before step i (after i steps).
func (c *Cursor) moveTo(i int) (*sim.World, error) {
	tl := c.tl
	if c.w == nil || i < c.n || i-c.n >= tl.every {
		w, _, err := tl.replay(i)
		if err != nil {
			c.w = nil
			return nil, err
		}
		c.w, c.n = w, i
	}
	for c.n < i {
		if !c.w.Step() {
			err := fmt.Errorf("%w: the cursor's world stopped at step %d: %v", ErrReplay, c.n, c.w.Err())
			c.w = nil
			return nil, err
		}
		c.n++
	}
	return c.w, nil
}

// Alternatives is Timeline.Alternatives.
func (c *Cursor) Alternatives(i int) ([]Alternative, error) {
	return c.tl.alternatives(i, func() (*sim.World, error) { return c.moveTo(i) })
}

// StateAt is Timeline.StateAt.
func (c *Cursor) StateAt(i int) (StateView, error) {
	tl := c.tl
	if err := tl.checkStep(i); err != nil {
		return StateView{}, err
	}
	if tl.imported != nil {
		return tl.importedState(i), nil
	}
	w, err := c.moveTo(i)
	if err != nil {
		return StateView{}, err
	}
	sv, err := tl.stateOf(w, i)
	if err != nil {
		c.w = nil
		return sv, err
	}
	c.n = i + 1
	return sv, nil
}

func (tl *Timeline) propertyStatus(w *sim.World, i int) []PropertyStatus {
	props := w.PropertyList()
	out := make([]PropertyStatus, 0, len(props))
	for k := range props {
		pr := &props[k]
		ps := PropertyStatus{Name: pr.Name, Kind: pr.Kind, Status: "ok"}
		for _, v := range tl.final.Violations() {
			if v.Property == pr.Name && v.Step <= i {
				ps.Status, ps.Step, ps.Message = "violated", v.Step, v.Message
			}
		}
		if pr.Kind == sim.KindSometimes {
			ps.Status = "not reached"
			for _, v := range tl.final.Reached() {
				if v.Property == pr.Name && v.Step <= i {
					ps.Status, ps.Step, ps.Message = "reached", v.Step, v.Message
				}
			}
		}
		if ps.Status == "ok" && pr.Kind == sim.KindEventually {
			if pending, since := pr.Pending(w); pending {
				ps.Status, ps.Since = "pending", since.Millis()
			}
		}
		out = append(out, ps)
	}
	return out
}

// viewOf is the model's view followed by the kernel's.
func viewOf(w *sim.World) sim.View {
	v, _ := w.View()
	v.Groups = append(v.Groups, kernelGroups(w)...)
	return v
}

func kernelGroups(w *sim.World) []sim.Group {
	procs := sim.Group{ID: "kernel/processes", Title: "processes", Node: sim.None}
	for _, p := range w.Procs() {
		procs.Fields = append(procs.Fields, sim.Field{Name: p.Name, Value: w.DescribeProc(p.ID)})
	}
	groups := []sim.Group{procs}
	if ms := w.Mutexes(); len(ms) > 0 {
		locks := sim.Group{ID: "kernel/mutexes", Title: "mutexes", Node: sim.None}
		for i := range ms {
			locks.Fields = append(locks.Fields, sim.Field{Name: ms[i].Name, Value: w.DescribeMutex(ms[i].ID)})
		}
		groups = append(groups, locks)
	}
	return groups
}

// markChanged flags the fields of after whose value differs from before
// (fields new in after count as changed).
func markChanged(before, after sim.View) {
	type key struct{ group, field string }
	old := make(map[key]string)
	for _, g := range before.Groups {
		for _, f := range g.Fields {
			old[key{g.ID, f.Name}] = f.Value
		}
	}
	for gi := range after.Groups {
		g := &after.Groups[gi]
		for fi := range g.Fields {
			f := &g.Fields[fi]
			prev, ok := old[key{g.ID, f.Name}]
			f.Changed = !ok || prev != f.Value
		}
	}
}
