package session

import (
	"maps"

	"github.com/racetrack-sim/racetrack/core/scenario"
	"github.com/racetrack-sim/racetrack/core/timeline"
	"github.com/racetrack-sim/racetrack/core/viz"
)

// StepArgs names a step of a run.
type StepArgs struct {
	RunArgs
	Step int `json:"step"`
}

// StepsArgs asks for a page of steps.
type StepsArgs struct {
	RunArgs
	From int `json:"from"`
	// Limit is the page size: 0 means DefaultStepsPage, at most
	// timeline.MaxStepsPage.
	Limit int `json:"limit"`
}

// DefaultStepsPage is the size of a steps page that names none.
const DefaultStepsPage = 1000

// StepsPage is a page of steps.
type StepsPage struct {
	Total int                 `json:"total"`
	From  int                 `json:"from"`
	Steps []timeline.StepView `json:"steps"`
}

// Steps returns the steps [from, from+limit) of a run.
func Steps(tl *timeline.Timeline, from, limit int) (StepsPage, error) {
	switch {
	case limit == 0:
		limit = DefaultStepsPage
	case limit < 0 || limit > timeline.MaxStepsPage:
		return StepsPage{}, errorf(CodeInvalid, "limit", "limit is %d, outside [1, %d]", limit, timeline.MaxStepsPage)
	}
	if from < 0 || from > tl.Len() {
		return StepsPage{}, errorf(CodeInvalid, "from", "from is %d, outside [0, %d]", from, tl.Len())
	}
	list, err := tl.Steps(from, limit)
	if err != nil {
		return StepsPage{}, err
	}
	return StepsPage{Total: tl.Len(), From: from, Steps: list}, nil
}

// FindArgs asks for the next (or, with Back, the previous) step of a kind
// from Step: "message", "lock", "violation", "choice", "proc=P", or ""
// (any step).
type FindArgs struct {
	RunArgs
	Step int    `json:"step"`
	Kind string `json:"kind"`
	Back bool   `json:"back,omitempty"`
}

// Found is the answer of find: the step, or Found false when no step of
// the kind lies in that direction.
type Found struct {
	Step  int  `json:"step"`
	Found bool `json:"found"`
}

// Find is the step filter, backed by the timeline's index.
func Find(tl *timeline.Timeline, a FindArgs) (Found, error) {
	f, err := timeline.ParseFilter(a.Kind)
	if err != nil {
		return Found{}, errorf(CodeInvalid, "kind", "%v", err)
	}
	if a.Step < -1 || a.Step > tl.Len() {
		return Found{}, errorf(CodeInvalid, "step", "step is %d, outside [-1, %d]", a.Step, tl.Len())
	}
	var i int
	var ok bool
	if a.Back {
		i, ok = tl.PrevEvent(a.Step, f)
	} else {
		i, ok = tl.NextEvent(a.Step, f)
	}
	if !ok {
		return Found{Step: a.Step, Found: false}, nil
	}
	return Found{Step: i, Found: true}, nil
}

// State is the inspector's view of a step: the state with the fields the
// step changed flagged, the properties there, and the decisions made at
// the step (without fork specs, whose schedules grow with the step: fork
// takes an option by its index, alternatives lists the specs).
type State struct {
	timeline.StateView
	Alternatives []timeline.Alternative `json:"alternatives"`
}

// StateAt returns the state after a step.
func StateAt(tl *timeline.Timeline, step int) (State, error) {
	return stateWith(tl, step, tl.Alternatives, tl.StateAt)
}

// stateWith builds a State from a source of alternatives and of state
// views (a timeline's, or a cursor's), asking for the alternatives first:
// a cursor answers both from the world before the step.
func stateWith(tl *timeline.Timeline, step int, alternatives func(int) ([]timeline.Alternative, error),
	at func(int) (timeline.StateView, error)) (State, error) {
	alts, err := alternatives(step)
	if err != nil {
		return State{}, err
	}
	sv, err := at(step)
	if err != nil {
		return State{}, err
	}
	return State{StateView: sv, Alternatives: alts}, nil
}

// Alternative is a decision at a step with, for every option not taken,
// the spec of the run that takes it.
type Alternative struct {
	timeline.Alternative
	Options []Option `json:"options"`
}

// Option is one option of a decision with its fork.
type Option struct {
	timeline.Option
	// Spec is the run that takes this option (absent for the one taken).
	Spec *scenario.RunSpec `json:"spec,omitempty"`
}

// Alternatives lists the decisions made at a step, each option not taken
// with the spec of its fork (timeline.Fork's spec, built from this one
// listing instead of a replay per option).
func Alternatives(tl *timeline.Timeline, step int) ([]Alternative, error) {
	alts, err := tl.Alternatives(step)
	if err != nil {
		return nil, err
	}
	return withForks(tl, alts), nil
}

func withForks(tl *timeline.Timeline, alts []timeline.Alternative) []Alternative {
	out := make([]Alternative, 0, len(alts))
	for _, a := range alts {
		x := Alternative{Alternative: a, Options: make([]Option, 0, len(a.Options))}
		for _, o := range a.Options {
			opt := Option{Option: o}
			if !o.Picked {
				spec := tl.Spec()
				spec.Params = maps.Clone(spec.Params)
				spec.Schedule = append(append(make([]int, 0, a.Choice+1), tl.Schedule()[:a.Choice]...), o.Index)
				opt.Spec = &spec
			}
			x.Options = append(x.Options, opt)
		}
		out = append(out, x)
	}
	return out
}

// Slice is what the debugger highlights for a step: its causal past, with
// the ways into every wait still open after it (so a deadlock's slice
// holds its whole cycle), or at an Eventually violation the obligation's
// start and the steps that could have met it (timeline.SliceAt).
type Slice = timeline.Slice

// CausalSlice returns the slice the debugger shows for a step.
func CausalSlice(tl *timeline.Timeline, step int) (Slice, error) {
	if step < 0 || step >= tl.Len() {
		return Slice{}, errorf(CodeInvalid, "step", "step %d is outside [0, %d)", step, tl.Len())
	}
	return tl.SliceAt(step)
}

// LayoutArgs asks for the diagram of the steps [From, To) (To 0: to the
// end; at most MaxLayoutSteps).
type LayoutArgs struct {
	RunArgs
	From int `json:"from"`
	To   int `json:"to"`
}

// ChartsArgs asks for the charts at the width the page paints them.
type ChartsArgs struct {
	RunArgs
	Width float64 `json:"width"`
}

// The diagram is laid out at pxPerStep pixels per step (within bounds);
// the page zooms and pans from there.
const (
	pxPerStep = 14
	minWidth  = 1200
	maxWidth  = 100_000

	minChartWidth = 320
	maxChartWidth = 4000

	// MaxLayoutSteps bounds one window of the diagram (the page's "fit"
	// lays out a whole run up to this length; denser windows carry
	// aggregate marks).
	MaxLayoutSteps = 40_000
)

func diagramWidth(steps int) float64 {
	return float64(min(maxWidth, max(minWidth, steps*pxPerStep)))
}

// Layout lays out the diagram of the steps [from, to) as a display list.
func Layout(tl *timeline.Timeline, from, to int) (*viz.Display, error) {
	n := tl.Len()
	if to == 0 {
		to = min(n, from+MaxLayoutSteps)
	}
	switch {
	case n == 0:
		return nil, errorf(CodeInvalid, "run", "the run has no steps to draw")
	case from < 0 || from >= n:
		return nil, errorf(CodeInvalid, "from", "from is %d, outside [0, %d]", from, n-1)
	case to <= from || to > n:
		return nil, errorf(CodeInvalid, "to", "to is %d, outside [%d, %d]", to, from+1, n)
	case to-from > MaxLayoutSteps:
		return nil, errorf(CodeInvalid, "to", "the window [from, to) spans %d steps, more than the %d one diagram may show", to-from, MaxLayoutSteps)
	}
	return viz.Layout(tl, viz.Options{From: from, To: to, Width: diagramWidth(to - from)})
}

// Charts draws every series of the whole run at the width the page paints
// it (0: viz's default); the page draws its own cursor.
func Charts(tl *timeline.Timeline, width float64) (*viz.Display, error) {
	if !(width >= 0 && width <= 1e6) {
		return nil, errorf(CodeInvalid, "width", "width is %v, outside [0, 1000000]", width)
	}
	if tl.Len() == 0 || len(tl.Series()) == 0 {
		return &viz.Display{Kind: "charts", Styles: []viz.Style{}, Shapes: []viz.Shape{}}, nil
	}
	width = min(max(width, minChartWidth), maxChartWidth)
	return viz.Charts(tl, viz.ChartOptions{Cursor: -1, Width: width})
}
