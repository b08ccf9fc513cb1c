// Package catalog assembles Racetrack's scenarios into one registry.
package catalog

import (
	"github.com/racetrack-sim/racetrack/core/bank"
	"github.com/racetrack-sim/racetrack/core/philo"
	"github.com/racetrack-sim/racetrack/core/scenario"
	"github.com/racetrack-sim/racetrack/core/scylla"
	"github.com/racetrack-sim/racetrack/core/tarantool"
	"github.com/racetrack-sim/racetrack/core/vitess"
)

// New returns the registry of every scenario.
func New() *scenario.Registry {
	return scenario.NewRegistry(
		bank.Scenario(),
		philo.Scenario(),
		scylla.Scenario(),
		tarantool.Scenario(),
		vitess.Scenario(),
	)
}
