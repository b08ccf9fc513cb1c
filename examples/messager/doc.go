// Package messager is a real Go program to try Racetrack's tracer on: the
// locking of Vitess's message manager (go/vt/vttablet/tabletserver/
// messager/message_manager.go) around Subscribe, unsubscribe, the poller
// and the vstream's row events, written with goroutines, sync.Mutex and
// channels (not Racetrack's model of it, core/vitess), and instrumented
// with package tracer. It comes in three versions:
//
//   - V13, the lock order of Vitess v13: Subscribe and unsubscribe hold mu
//     and take streamMu (startVStream, stopVStream) while the poller and
//     the row events hold streamMu and take mu: the deadlock of Vitess
//     issue #9936;
//   - Fixed, PR #10132's order: cacheManagementMu before mu everywhere,
//     and startVStream and stopVStream take no lock;
//   - Slip, the fixed order with a slip the model does not allow: the
//     poller wakes the sender after releasing mu instead of under it.
//
// mu and the stream mutex are sync.Mutex, as upstream: an Unlock wakes
// a waiter, and a running goroutine may lock the mutex before it does
// (barging). Its traces are validated against the model with goMutex on
// (the kernel's Go mutexes, sim.MutexGo); the model's default FIFO
// hand-off cannot do what barging does, and about one long trace in
// twenty left it (docs/validate.md).
//
// Run runs one execution under real scheduling with random delays and a
// watchdog: when nothing progresses for the watchdog's interval, it ends
// the run, logs which goroutines wait for which mutex, and reports a
// deadlock. The trace (docs/trace-format.md) opens in Racetrack.
//
// It is a package of the main module rather than a module of its own
// (like examples/ownmodel) because it needs nothing but the standard
// library and the tracer: its tests then run with everyone else's,
// under go test ./... and the race detector, with no replace directive
// and no second go.sum to keep.
package messager
