package philo

import "github.com/racetrack-sim/racetrack/core/sim"

// capabilities is what the model offers beyond sim.Model, declared once:
// the compiler checks each method named here.
var capabilities = sim.Capabilities[*Table]{
	Describe:            (*Table).Describe,
	View:                (*Table).View,
	CloneInto:           (*Table).CloneInto,
	Symmetries:          (*Table).Symmetries,
	HashPermuted:        (*Table).HashPermuted,
	SharesUnlockedState: (*Table).SharesUnlockedState,
	MayTouch:            (*Table).MayTouch,
}
