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
// The package performs no I/O; the state is small and its hash canonical,
// so that the untimed lock-level preset can be explored exhaustively.
package vitess
