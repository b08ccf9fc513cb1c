package session

import (
	"github.com/racetrack-sim/racetrack/core/scenario"
	"github.com/racetrack-sim/racetrack/core/sim"
	"github.com/racetrack-sim/racetrack/core/timeline"
)

// Play speeds, in steps per second.
const (
	DefaultSpeed = 20.0
	MaxSpeed     = 100_000.0
)

// PlayArgs starts playing a run from a step at a speed (0: DefaultSpeed).
type PlayArgs struct {
	RunArgs
	Step  int     `json:"step"`
	Speed float64 `json:"speed,omitempty"`
}

// Play starts playing a run; the session plays one run at a time, so a
// playback already running stops. The transport sends First, then paces
// Advance by Speed until Stopped.
func (s *Session) Play(id string, a PlayArgs) (*Player, error) {
	tl, err := s.Timeline(a.Run)
	if err != nil {
		return nil, err
	}
	if n := tl.Len(); a.Step < 0 || a.Step >= max(n, 1) {
		return nil, errorf(CodeInvalid, "step", "step is %d, outside [0, %d]", a.Step, max(n-1, 0))
	}
	speed := a.Speed
	switch {
	case speed == 0:
		speed = DefaultSpeed
	case !(speed > 0 && speed <= MaxSpeed):
		return nil, errorf(CodeInvalid, "speed", "speed is %v steps per second, outside (0, %v]", speed, MaxSpeed)
	}
	if s.player != nil {
		s.player.stopped = true
	}
	p := &Player{id: id, tl: tl, world: newCursor(tl), cur: a.Step, speed: speed, fields: &fieldState{},
		violations: tl.Summary().Violations}
	s.player = p
	return p, nil
}

// Paused answers pause: the playback it stopped, if any, and its step.
type Paused struct {
	ID      string `json:"id"`
	Step    int    `json:"step"`
	Stopped bool   `json:"stopped"`
}

// Pause stops the playback.
func (s *Session) Pause() Paused {
	p := s.player
	if p == nil || p.stopped {
		return Paused{}
	}
	p.stopped = true
	s.player = nil
	return Paused{ID: p.id, Step: p.cur, Stopped: true}
}

// Player is a playback: the cursor, the state the client holds, and the
// frames that move it. Frames are built here; only their pacing is the
// transport's.
type Player struct {
	id         string
	tl         *timeline.Timeline
	world      *cursor
	cur        int
	speed      float64
	fields     *fieldState
	started    bool
	stopped    bool
	carry      float64 // fractional steps owed by the pacing
	violations []scenario.Violation
}

// Stopped reports whether the playback ended (last step, pause, or a new
// play).
func (p *Player) Stopped() bool { return p.stopped }

// First is the first frame: the cursor on the start step, every field.
func (p *Player) First() (*Frame, error) { return p.frame(p.cur) }

// Advance moves the cursor n steps forward (stopping at the last step)
// and returns the frame for it.
func (p *Player) Advance(n int) (*Frame, error) {
	return p.frame(min(p.cur+max(n, 0), max(p.tl.Len()-1, 0)))
}

// Frame is one picture of a playing run: where the cursor is, what
// changed in the state view since the previous frame, the causal edges
// into the steps moved over and the violations among them.
type Frame struct {
	Step    int     `json:"step"`
	Time    float64 `json:"time"` // ms
	Playing bool    `json:"playing"`
	// End is set on the last step; the playback stops there.
	End bool `json:"end"`
	// Full is set when Changed holds every field (the first frame).
	Full       bool                 `json:"full,omitempty"`
	Changed    []ChangedField       `json:"changed"`
	Edges      []Edge               `json:"edges"`
	Violations []scenario.Violation `json:"violations,omitempty"`
	// Coalesced counts frames merged into this one because the client
	// read slower than they were made.
	Coalesced    int `json:"coalesced,omitempty"`
	EdgesDropped int `json:"edgesDropped,omitempty"`
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

// maxFrameEdges bounds the edges one frame carries; a frame that covers
// more keeps the latest and counts the rest in EdgesDropped.
const maxFrameEdges = 256

func (p *Player) frame(target int) (*Frame, error) {
	tl := p.tl
	n := tl.Len()
	if n == 0 {
		p.stopped = true
		return &Frame{End: true, Full: true, Changed: []ChangedField{}, Edges: []Edge{}}, nil
	}
	if err := p.world.moveTo(target); err != nil {
		return nil, err
	}
	end := target == n-1
	if end {
		p.stopped = true
	}
	f := &Frame{Step: target, Time: tl.Trace().Step(target).Time.Millis(), Playing: !p.stopped, End: end, Full: !p.started,
		Edges: []Edge{}}
	f.Changed = p.fields.update(p.world.view(), !p.started)
	lo, hi := target, target
	if p.started && target > p.cur {
		lo = p.cur + 1
	} else if !p.started {
		lo = 0
	}
	if hi-lo+1 > maxFrameEdges {
		f.EdgesDropped = hi - lo + 1 - maxFrameEdges
		lo = hi - maxFrameEdges + 1
	}
	tr := tl.Trace()
	for i := lo; i <= hi; i++ {
		st := tr.Step(i)
		if st.Parent < 0 {
			continue
		}
		e := Edge{From: int(st.Parent), To: i, Kind: "causal", Label: tr.Label(st.Label)}
		switch st.Kind {
		case sim.StepReceive:
			e.Kind, e.Msg = "message", int(st.Msg)
		case sim.StepLock:
			e.Kind = "lock"
		}
		f.Edges = append(f.Edges, e)
	}
	if p.started && target > p.cur {
		for _, v := range p.violations {
			if v.Step > p.cur && v.Step <= target {
				f.Violations = append(f.Violations, v)
			}
		}
	}
	p.cur, p.started = target, true
	return f, nil
}

// Merge folds a newer frame g into f, for a transport whose client reads
// slower than frames are made: the cursor and flags are g's, the changed
// fields keep the newest value of each, edges and violations add up
// (edges bounded).
func (f *Frame) Merge(g *Frame) {
	f.Step, f.Time, f.Playing, f.End = g.Step, g.Time, g.Playing, g.End
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

// fieldState is the state view a client holds, as the flat list of its
// fields in view order.
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
		return append([]ChangedField{}, next...) // [] even when the view has no field (a log)
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
