package scenario

import (
	"errors"
	"fmt"

	"github.com/racetrack-sim/racetrack/core/sim"
)

// Normal is a spec the registry has normalised, with its scenario. Only
// Registry.Check makes one (its fields are unexported), so a function
// that takes a Normal trusts it and checks nothing again: a request's
// spec is validated once, as etcd raft validates its Config once in
// newRaft, and the recording, the memory estimate and the model built
// from it follow.
type Normal struct {
	spec RunSpec
	sc   *Scenario
}

// ErrNotChecked is returned for a Normal that Registry.Check did not make
// (the zero value).
var ErrNotChecked = errors.New("scenario: a spec used before Registry.Check normalised it")

// Check normalises s (Normalize) into a Normal. Errors name the field.
func (r *Registry) Check(s RunSpec) (Normal, error) {
	ns, sc, err := r.Normalize(s)
	if err != nil {
		return Normal{}, err
	}
	return Normal{spec: ns, sc: sc}, nil
}

// Spec is the normalised spec. Its Params and Schedule are shared: do
// not change them.
func (n Normal) Spec() RunSpec { return n.spec }

// Scenario is the spec's scenario (nil for the zero Normal).
func (n Normal) Scenario() *Scenario { return n.sc }

// ID is the run id (the hash of the normalised spec).
func (n Normal) ID() string { return n.spec.ID() }

// World builds the model and a fresh world at step 0, ready to step:
// the chooser replays the spec's schedule, then draws from the seed.
func (n Normal) World(opt Options) (*sim.World, error) {
	var ch sim.Chooser = sim.NewRandomChooser(n.spec.Seed)
	if len(n.spec.Schedule) > 0 {
		ch = sim.NewReplayChooser(n.spec.Schedule, ch)
	}
	return n.WorldWith(ch, opt)
}

// WorldWith is World with the given chooser making every choice, those
// of the model's Init included (a search that decides them itself).
func (n Normal) WorldWith(ch sim.Chooser, opt Options) (*sim.World, error) {
	if n.sc == nil {
		return nil, ErrNotChecked
	}
	m, err := n.sc.New(n.spec.Variant, Values(n.spec.Params))
	if err != nil {
		// The schema's ranges and rules admitted these values: a model that
		// still refuses them is missing a rule. Name the parameters rather
		// than fail as the server's fault.
		var fe *FieldError
		if errors.As(err, &fe) {
			return nil, fe
		}
		return nil, &FieldError{Field: "params", Msg: fmt.Sprintf("scenario %s cannot build this combination: %v", n.sc.ID, err)}
	}
	return sim.NewWorld(m, n.spec.Seed, ch, sim.Options{Trace: opt.Trace, StopOnViolation: opt.StopOnViolation, Capabilities: n.sc.Capabilities}), nil
}
