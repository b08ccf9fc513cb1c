// Package sim is Racetrack's deterministic simulation kernel: a virtual
// clock and a (time, seq) event queue, processes (message-handling actors
// and program-counter threads), kernel mutexes and condition variables with
// a wait-for graph, a network of links with latency, loss, duplication,
// partitions and node crashes, a trace with vector clocks, and named
// properties checked after every step.
//
// Every nondeterministic decision — which of several events ready at the
// same virtual time runs first, a latency draw, a loss, a workload draw —
// goes through the run's Chooser. The choices with more than one option are
// recorded as the run's schedule; replaying the schedule reproduces the run.
//
// The kernel never reads a clock, sleeps, starts goroutines or performs
// I/O; it must build for GOOS=js GOARCH=wasm.
package sim
