package vitess

import "github.com/racetrack-sim/racetrack/core/sim"

// capabilities is what the model offers beyond sim.Model, declared once:
// the compiler checks each method named here.
var capabilities = sim.Capabilities[*Manager]{
	ProcLabel:           (*Manager).ProcLabel,
	Describe:            (*Manager).Describe,
	View:                (*Manager).View,
	CloneInto:           (*Manager).CloneInto,
	Symmetries:          (*Manager).Symmetries,
	HashPermuted:        (*Manager).HashPermuted,
	ProcSignature:       (*Manager).ProcSignature,
	SharesUnlockedState: (*Manager).SharesUnlockedState,
	Accesses:            (*Manager).Accesses,
	Logs:                []sim.LogMap[*Manager]{messagerLog},
}
