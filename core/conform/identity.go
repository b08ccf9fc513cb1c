package conform

import "github.com/racetrack-sim/racetrack/core/sim"

// Identity names the mapping every model has: a log that is the model's
// own run (a Racetrack export imported back) maps to it by name, each
// lane to the process of its name, each event to a model step of its
// kind on the mutex of its name. Every model step of a named process is
// then observable.
const Identity = "identity"

// identity is the Identity mapping.
func identity() *sim.LogMap[sim.Model] {
	lm := &sim.LogMap[sim.Model]{Name: Identity, Help: "a model's own exported run: lanes, kinds and mutexes by name",
		Lane: func(_ sim.Model, w *sim.World, node, name string) (sim.ProcID, bool) {
			for _, p := range w.Procs() {
				if p.Name == name && w.Node(p.Node).Name == node {
					return p.ID, true
				}
			}
			return sim.None, false
		}}
	for k := sim.StepReceive; k <= sim.StepExit; k++ {
		lm.Events = append(lm.Events, sim.LogRule[sim.Model]{Kind: k, Step: &sim.ModelStep[sim.Model]{Kind: k},
			Says: "the model's own " + k.String() + " step"})
	}
	return lm
}
