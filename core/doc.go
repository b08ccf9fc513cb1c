// Package core is the pure heart of Racetrack: the simulation kernel
// (core/sim), the models of real production bugs (core/scylla, core/vitess,
// core/tarantool, core/philo), the run contract (core/scenario), recorded
// timelines (core/timeline), the space-time diagram layout (core/viz),
// exports (core/export) and the schedule explorers (core/check).
//
// What core never does, and why: it reads no clock, sleeps never, starts no
// goroutine, opens no channel, draws no global randomness, performs no I/O
// (no os, net, syscall/js, log) and never lets map iteration order reach
// its output. Time enters as data (virtual time advanced by the kernel's
// event queue); every nondeterministic decision goes through one Chooser,
// seeded from the RunSpec; effects leave as data (traces, views, display
// lists) for the caller — the server or the wasm bridge — to carry. That is
// what makes a run reproducible bit for bit from its RunSpec and its
// schedule, natively and in the browser. TestImportRules enforces it.
//
// # Writing a model
//
// A model is a sim.Model: Init creates nodes and processes and schedules
// their first events; Handle runs one step of one process (a delivered
// message or a fired timer for an actor, the next atomic step of a thread)
// and returns what the step does (lock, unlock, wait, local work with a
// cost, sleep, exit); Clone and Hash make states copyable and comparable;
// Properties names what must hold. The smallest complete example is the
// dining philosophers in core/philo:
//
//	type Table struct {
//		Forks []sim.MutexID
//		Meals []int
//	}
//
//	func (t *Table) Handle(w *sim.World, p *sim.Proc, ev *sim.Event) sim.Action {
//		i := int(p.ID)
//		switch p.PC {
//		case takeFirst:
//			p.PC = takeSecond
//			return sim.Lock(t.Forks[first(i)], "take fork")
//		...
//		}
//	}
//
// Register the model with a scenario.Scenario (parameter schema, variants,
// presets) and `go test` checks it: the property tests run it over many
// seeds, and core/check searches its schedules.
package core
