// Package tracer records what a real Go program does, in Racetrack's
// NDJSON trace format (docs/trace-format.md), so that the run can be
// opened in Racetrack's debugger like a simulated one: one lane per node
// or thread, message arrows from each send to its receive, lock bars, and
// the wait-for cycle of a deadlock.
//
// # Setting up
//
// Create one Tracer per trace file and one Logger per node (a process, a
// server, a component) with Node, and per goroutine role with Thread:
//
//	f, _ := os.Create("run.ndjson")
//	tr := tracer.New(f)
//	tablet := tr.Node("tablet")
//	poller := tablet.Thread("poller")
//
// The Tracer writes one line per event straight to the writer, under its
// own mutex, in the order the events happen; give it a file or a buffer
// (a bufio.Writer must be flushed by the program before the trace is
// read). Err reports the first write error; later events are dropped.
//
// # Turning it off
//
// A nil *Tracer is off, and so are the Loggers it gives (nil too): every
// method returns at once, allocates nothing and, for Lock and Unlock,
// still locks and unlocks the mutex. Keep the calls in production code
// and pass nil:
//
//	var tr *tracer.Tracer // off
//	if *traceFile != "" {
//		tr = tracer.New(f)
//	}
//
// # Messages
//
// Send returns a message id; carry it inside the program's own message
// and hand it to Receive where the message is taken:
//
//	id := client.Send("subscribe", "tablet")
//	requests <- request{traceID: id, ...}
//	...
//	r := <-requests
//	server.Receive(r.traceID, "subscribe")
//
// Log the send before the message leaves and the receive after it
// arrives, so that the trace's order is one the program could have had.
//
// # Locks
//
// Lock and Unlock take the program's mutex (a *sync.Mutex, or anything
// with Lock, Unlock and TryLock) and its name. Lock first tries the mutex;
// if it is held, it logs a "block" before waiting, then a "lock" once it
// holds it. Unlock logs before releasing. A goroutine stuck for ever in
// Lock has its block in the trace: the debugger draws the wait and finds
// the cycle.
//
//	poller.Lock(&m.mu, "mu")
//	defer poller.Unlock(&m.mu, "mu")
//
// # State and local events
//
// Local logs a step with a label; State logs named state fields (shown
// in the debugger's inspector); both take fields made with F:
//
//	poller.State("readPending", tracer.F("rows", n), tracer.F("receivers", len(m.receivers)))
//
// Crash and Restart mark a node going down and coming back.
//
// # Limits
//
// One Tracer orders the events of one process. A system of several
// processes writes one trace per process; their messages can be followed
// only within one trace. A mutex must be unlocked by the Logger (lane)
// that locked it: Go allows another goroutine to unlock it, but the
// trace then reads as an unlock of a mutex the lane does not hold, which
// the importer refuses.
package tracer
