// Package vitess models the lock-order deadlock of the Vitess message
// manager (vitessio/vitess issue #9936, fixed by PR #10132) on the kernel's
// mutexes: go/vt/vttablet/tabletserver/messager/message_manager.go, as of
// v13 (buggy) and v14 (fixed).
//
// Every goroutine of the message manager that takes a lock is a kernel
// thread with a program counter: one thread per client (Subscribe, think,
// unsubscribe, think, ...), the poller (runPoller on the pollerTicks
// timer), the vstream callback (runOneVStream: one binlog row event at a
// time), runSend, one send goroutine per receiver, and Close (the tablet
// transition that PlannedReparentShard waits for). Each step of a thread is
// one lock, unlock, wait, broadcast or modelled cost of the upstream code,
// and its label reads like that code ("unsubscribe: mu.Lock()",
// "stopVStream: streamMu.Lock()").
//
// Before the fix, two paths take mu then streamMu (Subscribe of the first
// receiver and unsubscribe of the last call startVStream/stopVStream under
// mu; in v13 Close does too) and two take streamMu then mu (runPoller after
// readPending, the row-event callback's Add): the kernel finds the cycle.
// After the fix, streamMu is cacheManagementMu, start/stopVStream take no
// lock, and every path takes cacheManagementMu before mu.
//
// A third variant, unlocked-poller, is a wrong fix: v13 with streamMu
// dropped from runPoller. It removes the poller's half of the cycle, and
// with it what streamMu protects (its comment upstream: the poller's
// snapshot and lastPollPosition must not interleave with a cache.Discard
// or a vstream event older than that position). The Always property
// no-stale-requeue catches it: a send's Discard between the poller's
// readPending and its cache.Add, or a vstream Add of a row whose event
// predates a lastPollPosition set after the callback's mustSkip check.
//
// # Where the model departs from upstream, and why
//
//   - Buggy is v13 (the release of #9936): Close calls stopVStream while
//     holding mu (PR #8965), which adds the Close-vs-row-event cycle. The
//     spec's older order (unlock mu, then stopVStream) is v8-v12.
//   - pollerTicks.Stop is the mutex "pollerTicks", held by the timer
//     goroutine while runPoller runs: Stop returns only once an in-flight
//     runPoller has returned, as the timer's unbuffered stop channel does.
//   - The first Subscribe cannot meet a row event upstream (a cancelled
//     stream's callback returns at its ctx check under streamMu, before
//     Add); the model keeps that check, so the subscribe-vs-rowevent preset
//     is built on the real pair that closes on the row event: Close (v13).
//     The lock-level preset reaches exactly the four upstream cycles.
//   - runSend starts a goroutine per batch upstream; here each receiver has
//     one send thread that waits for its batch on a condition variable
//     bound to mu, so an idle sender takes mu once more than upstream.
//   - The messager Engine's own mutex (engine.mu: Engine.Subscribe holds
//     it across the manager's Subscribe, Engine.Close across its Close) is
//     a kernel mutex only when engineMutex is set; then a stuck Subscribe
//     stops the tablet transition at Engine.Close, before the manager.
//   - What close-completes covers on the fixed variant stops at those
//     locks. The schema engine's notifier is not modelled: Engine.Close
//     holds engine.mu and calls the schema engine's UnregisterNotifier,
//     which takes notifierMu, while a schema broadcast holds notifierMu
//     and calls the messager's schemaChanged, which takes engine.mu. That
//     cycle is a later bug, vitessio/vitess#17229 (November 2024, fixed
//     by PR #17230), though both halves are older than #9936's fix
//     (schemaChanged locks engine.mu in the messager's engine.go of that
//     era, and issue #8909's analysis of 2021 has Close unregister the
//     notifiers under it). The model cannot show it, so close-completes
//     holding on the fixed variant says only that the message manager's
//     own lock order no longer blocks Close.
//   - Subscribe's receiver.Send(fieldResult) runs under mu upstream; it
//     is a step only when fieldSendCost is set (a slow client then holds
//     mu for that long, in both versions).
//   - Not modelled: runSend's
//     pollerTicks.Trigger, purge, postpone back-off (a client acks what it
//     receives; rows of a cancelled receiver go back to the table). Rows
//     are counts, the poller's snapshot is taken when it adds them, and
//     rescanReceivers walks clients in index order.
//   - wg.Wait has no kernel counterpart: timed runs poll it every
//     millisecond; untimed runs skip it (it takes no lock).
//
// The package performs no I/O; the state is small and its hash canonical,
// so that the untimed lock-level preset can be explored exhaustively.
package vitess
