// Package check answers "can this property be violated?" for a scenario:
// it searches the schedules of a run and returns either a counterexample
// (a scenario.RunSpec with the schedule that replays it, shrunk to a
// locally minimal one) or, when an exhaustive search completes, the
// statement that no schedule of that configuration violates the property.
//
// Strategies: random (a swarm over seeds, optionally over parameter
// ranges), pct (probabilistic concurrency testing, Burckhardt et al.,
// ASPLOS 2010), and, on untimed models, bfs (shortest counterexample) and
// dfs, both with canonical state hashing, sleep sets, a persistent-set
// partial-order reduction and symmetry reduction, each of which can be
// switched off.
//
// An Explorer is driven in slices by its caller: Step(budget) does at most
// budget units of work (runs, or states) and returns the progress, so the
// server or the wasm bridge can stop it by its own clock, draw a progress
// bar and cancel. Like the rest of core it reads no clock, starts no
// goroutine and performs no I/O. An Explorer is not safe for concurrent
// use.
package check
