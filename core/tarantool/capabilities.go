package tarantool

import "github.com/racetrack-sim/racetrack/core/sim"

// capabilities is what the model offers beyond sim.Model, declared once:
// the compiler checks each method named here.
var capabilities = sim.Capabilities[*Model]{
	Restart:  (*Model).Restart,
	Describe: (*Model).Describe,
	View:     (*Model).View,

	PayloadTypes: (*Model).PayloadTypes,
	Logs:         []sim.LogMap[*Model]{instanceLog},
}
