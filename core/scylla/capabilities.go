package scylla

import "github.com/racetrack-sim/racetrack/core/sim"

// capabilities is what the model offers beyond sim.Model, declared once:
// the compiler checks each method named here.
var capabilities = sim.Capabilities[*Model]{
	Describe: (*Model).Describe,
	View:     (*Model).View,

	PayloadTypes: (*Model).PayloadTypes,
	Logs:         []sim.LogMap[*Model]{clusterLog},
}
