// Package core is the pure heart of Racetrack: the simulation kernel
// (core/sim), the models of real production bugs (core/scylla, core/vitess,
// core/tarantool, core/philo), the run contract (core/scenario), recorded
// timelines (core/timeline), the space-time diagram layout (core/viz),
// exports (core/export), logged executions of real systems read into
// timelines (core/ingest) and the schedule explorers (core/check).
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
// message or a fired timer for an actor, the next atomic step of a
// thread) and returns what the step does (lock, unlock, wait, local work
// with a cost, sleep, exit); Clone and Hash make states copyable and
// comparable; Properties returns the model's sim.Props, declared once with
// checks that receive the state. A thread's steps are a sim.Program, one
// entry per program counter with its handler and its words:
//
//	var clerk = sim.Program[*Account]{
//		pcLock: {In: "withdraw", Says: "takes the account lock", Do: func(a *Account, w *sim.World, p *sim.Proc) sim.Action {
//			p.PC = pcCheck
//			return sim.Lock(a.lock, "lock account")
//		}},
//		...
//	}
//
// docs/writing-a-model.md builds that model (core/bank) from nothing.
// Register a model with a scenario.Scenario (parameter schema, variants,
// presets) and `go test` checks it: core/modeltest's conformance suite
// runs over the whole catalog, and core/check searches its schedules.
package core
