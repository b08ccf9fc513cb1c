// Package check answers "can this property be violated?" for a scenario:
// it searches the schedules of a run and returns either a counterexample
// (a scenario.RunSpec with the schedule that replays it, shrunk to a
// locally minimal one) or, when an exhaustive search completes, the
// statement that no schedule of that configuration violates the property.
//
// Strategies: random (a swarm over seeds, optionally over parameter
// ranges), pct (probabilistic concurrency testing, Burckhardt et al.,
// ASPLOS 2010), bfs (shortest counterexample) and dfs, both with
// canonical state hashing. bfs and dfs enumerate every value a step draws
// (at most MaxValueOptions options) and every combination of the values a
// preset draws while it is set up (one initial state each); a timed
// preset, whose durations and latencies have more options, is searched
// with ValueSamples (each such value tried at a few evenly spread
// options: real counterexamples, no proof) and a virtual-time horizon
// (Budget.HorizonMs). The state hash takes pending events' times
// relative to the current time, so equal situations at different times
// are one state. Reductions, each of which can be
// switched off: sleep sets; persistent sets (stubborn sets when the model
// says which mutexes each process may still touch, see LockSets);
// stateless dynamic partial-order reduction for dfs; and symmetry
// reduction for models with interchangeable processes (see Symmetric).
// The independence they rely on: steps of different threads that touch
// different kernel mutexes commute, i.e. threads share model state only
// under the kernel's mutexes. A model states which it is
// (UnlockedSharing); one that says nothing is taken to share state
// outside them (the safe default). If it shares state and declares which
// shared variables each step reads and writes (SharedAccess), steps are
// independent when they touch different mutexes and no variable one
// writes and the other touches, and sleep sets and persistent sets apply
// (DPOR does not: it is not proven there); if it declares nothing it
// gets symmetry reduction only. Persistent sets and
// DPOR preserve deadlocks and end states, not every intermediate state,
// so they are applied only when the searched property is no-deadlock or
// an Eventually property (checked at the end of an untimed run); the
// Result lists the reductions actually applied.
//
// Sleep sets meet the visited set as in Godefroid's state caching: a
// state reached again with a sleep set that is not a superset of the one
// it was stored with is expanded again, for the steps asleep the first
// time only, and stored with the intersection. Under symmetry the stored
// sleep masks name the processes as the canonical state does (the
// renaming that gave the least hash maps them there and back), so masks
// reached through different members of an orbit compare process for
// process; sleep sets then prune steps and never states (on vitess fixed
// C=3 ITER=2: 1,473,247 states, 3.6 M transitions against 5.2 M
// without sleep sets). A distributed bfs (Expander) applies the same
// rule at each state's owner: a BFSState carries its renaming and the
// processes it is expanded for.
//
// A search for a Sometimes property (sim.Sometimes) looks for a run that
// reaches it instead: the result is reached (with the schedule that gets
// there, shrunk the same way), not reached within budget, or, when an
// exhaustive search completes, unreachable.
//
// States are stored as 64-bit fingerprints of their canonical encoding
// (hash compaction; the probability that a collision hid a state is at
// most n²/2^65 for n states and is reported with the result) or, with
// Storage exact, as the encoding itself. bfs keeps no world between
// levels: each state found records its parent and the choices of its
// step, and the worlds of a level are rebuilt by replay (bfs.go), so a
// stored state costs a few tens of bytes. A bfs level is expanded and
// merged as independent tasks that a driver outside core may run on
// several goroutines (Explorer.Tasks; package internal/parallel); every
// decision is taken in task order, so results do not depend on the
// number of workers. A dfs split among workers (Explorer.PlanWorkers)
// runs their stacks as the tasks, sharing the visited set under locks the
// driver gives it (Locks); it keeps its result only when it explored
// everything, which does not depend on the order, and otherwise starts
// over on one goroutine (dfs.go).
//
// A counterexample is the RunSpec of the search plus the schedule (the
// list of choices) that replays it with scenario.Registry.Execute; it is
// then shrunk by delta debugging (ddmin) to a locally minimal schedule that
// violates the same property.
//
// An Explorer is driven in slices by its caller: Step(budget) does at most
// budget units of work (runs, or states) and returns the progress, so the
// server or the wasm bridge can stop it by its own clock, draw a progress
// bar and cancel. Like the rest of core it reads no clock, starts no
// goroutine and performs no I/O. An Explorer is not safe for concurrent
// use.
package check
