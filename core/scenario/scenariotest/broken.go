// Package scenariotest holds scenarios that the tests of several packages
// (the session, the server) share.
package scenariotest

import (
	"github.com/racetrack-sim/racetrack/core/scenario"
	"github.com/racetrack-sim/racetrack/core/sim"
)

// Broken is base under another id whose model panics with msg at its
// first step, as a model with a bug would: the request or search that
// meets it must fail, and nothing else.
func Broken(base *scenario.Scenario, id, msg string) *scenario.Scenario {
	sc := *base
	sc.ID = id
	// The wrapper offers only sim.Model's methods, as before the model
	// declared capabilities.
	sc.Capabilities = nil
	sc.New = func(variant string, v scenario.Values) (sim.Model, error) {
		m, err := base.New(variant, v)
		return panicking{m, msg}, err
	}
	return &sc
}

type panicking struct {
	sim.Model
	msg string
}

func (p panicking) Handle(*sim.World, *sim.Proc, *sim.Event) sim.Action { panic(p.msg) }
