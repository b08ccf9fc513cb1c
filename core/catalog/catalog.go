// Package catalog assembles Racetrack's scenarios into one registry.
package catalog

import (
	"github.com/racetrack-sim/racetrack/core/bank"
	"github.com/racetrack-sim/racetrack/core/broker"
	"github.com/racetrack-sim/racetrack/core/philo"
	"github.com/racetrack-sim/racetrack/core/scenario"
	"github.com/racetrack-sim/racetrack/core/scylla"
	"github.com/racetrack-sim/racetrack/core/tarantool"
	"github.com/racetrack-sim/racetrack/core/vitess"
)

// New returns the registry of every scenario.
func New() *scenario.Registry { return With() }

// With returns the registry of every scenario plus extra: a model of
// another module shown next to the built-in bugs. An id that is already
// taken panics, like any malformed registry.
func With(extra ...*scenario.Scenario) *scenario.Registry {
	return scenario.NewRegistry(append([]*scenario.Scenario{
		bank.Scenario(),
		broker.Scenario(),
		philo.Scenario(),
		scylla.Scenario(),
		tarantool.Scenario(),
		vitess.Scenario(),
	}, extra...)...)
}
