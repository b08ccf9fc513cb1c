package broker

import "github.com/racetrack-sim/racetrack/core/sim"

// capabilities is what the model offers beyond sim.Model, declared once:
// the compiler checks each method named here.
var capabilities = sim.Capabilities[*Broker]{
	Restart:      (*Broker).Restart,
	Describe:     (*Broker).Describe,
	View:         (*Broker).View,
	PayloadTypes: (*Broker).PayloadTypes,
	Logs:         []sim.LogMap[*Broker]{brokerLog},
}
