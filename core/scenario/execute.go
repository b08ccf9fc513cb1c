package scenario

import (
	"errors"
	"fmt"

	"github.com/racetrack-sim/racetrack/core/sim"
)

// Options control one execution.
type Options struct {
	Trace           bool
	StopOnViolation bool
}

// Run is a finished (or stopped) execution of a normalised spec.
type Run struct {
	ID       string
	Spec     RunSpec
	Scenario *Scenario
	World    *sim.World
}

// Build validates spec and returns the normalised spec, its scenario and a
// fresh world at step 0, ready to step. The chooser replays the spec's
// schedule, then draws from the seed.
func (r *Registry) Build(spec RunSpec, opt Options) (RunSpec, *Scenario, *sim.World, error) {
	n, err := r.Check(spec)
	if err != nil {
		return spec, nil, nil, err
	}
	w, err := n.World(opt)
	if err != nil {
		return spec, nil, nil, err
	}
	return n.spec, n.sc, w, nil
}

// Limits are the budgets of a normalised spec.
func (s RunSpec) Limits() sim.Limits {
	return sim.Limits{MaxSteps: s.MaxSteps, MaxTime: sim.FromMillis(s.MaxTime)}
}

// Execute runs spec to its end. A schedule that does not fit the run is
// an error naming the schedule field.
func (r *Registry) Execute(spec RunSpec, opt Options) (*Run, error) {
	ns, sc, w, err := r.Build(spec, opt)
	if err != nil {
		return nil, err
	}
	if err := w.Run(ns.Limits()); err != nil {
		if errors.Is(err, sim.ErrScheduleMismatch) {
			return nil, &FieldError{Field: "schedule", Msg: err.Error()}
		}
		return nil, fmt.Errorf("scenario %s: %w", sc.ID, err)
	}
	if rc, ok := replayRemaining(w); ok && rc > 0 && !opt.StopOnViolation {
		return nil, &FieldError{Field: "schedule", Msg: fmt.Sprintf("%v: the run ended (%s) with %d of its %d choices unused",
			sim.ErrScheduleMismatch, w.Stop(), rc, len(ns.Schedule))}
	}
	return &Run{ID: ns.ID(), Spec: ns, Scenario: sc, World: w}, nil
}

func replayRemaining(w *sim.World) (int, bool) {
	rc, ok := w.ChooserOf().(*sim.ReplayChooser)
	if !ok {
		return 0, false
	}
	return rc.Remaining(), true
}

// Violation is the JSON shape of a violation (times in milliseconds).
type Violation struct {
	Property string  `json:"property"`
	Step     int     `json:"step"`
	Time     float64 `json:"time"`
	Message  string  `json:"message"`
}

// Summary is what a client first sees of a run.
type Summary struct {
	ID         string      `json:"id"`
	Spec       RunSpec     `json:"spec"`
	Steps      int         `json:"steps"`
	EndTime    float64     `json:"endTime"`
	Stop       string      `json:"stop"`
	Violations []Violation `json:"violations"`
	Series     []string    `json:"series"`
	Schedule   int         `json:"scheduleLength"`
}

// Summary describes the run.
func (r *Run) Summary() Summary {
	w := r.World
	s := Summary{ID: r.ID, Spec: r.Spec, Steps: w.Steps(), EndTime: w.Now().Millis(), Stop: w.Stop().String(),
		Violations: []Violation{}, Series: []string{}, Schedule: len(w.Schedule())}
	for _, v := range w.Violations() {
		s.Violations = append(s.Violations, Violation{Property: v.Property, Step: v.Step, Time: v.Time.Millis(), Message: v.Message})
	}
	for _, d := range w.SeriesDefs() {
		s.Series = append(s.Series, d.Name)
	}
	return s
}
