package vitess

import (
	"strconv"
	"strings"

	"github.com/racetrack-sim/racetrack/core/sim"
)

// MessagerLog is the name of the mapping of examples/messager's traces.
const MessagerLog = "messager"

// messagerLog says how a trace of examples/messager (a real Go program of
// the message manager's locking, instrumented with package tracer) maps
// to the model: its goroutines are the model's threads, its locks and
// unlocks are the model's, its other events are conditions on the
// model's state or nothing of it. It is for the untimed configuration
// without delivery (preset lock-level): the program's runSend is a
// goroutine woken over a channel, not the model's runSend and send
// goroutines, so its lane is left out, and the poller's wake-up is
// checked to happen under mu instead.
var messagerLog = sim.LogMap[*Manager]{
	Name: MessagerLog,
	Help: "traces of examples/messager (messager.Run): validate with preset lock-level, clients = Config.Clients and " +
		"iterations at least max(Cycles, Ticks, RowEvents), goMutex on (its mutexes are sync.Mutex); V13 against variant buggy, Fixed and Slip against fixed",
	Lane: (*Manager).messagerLane,
	Events: []sim.LogRule[*Manager]{
		// A goroutine blocks where the program's TryLock failed; the model
		// blocks only there, and may not (with FIFO mutexes, the model's
		// hand-off to its first waiter need not be the program's). A
		// woken waiter's failed try (Go mutexes) waits again inside the
		// same Lock: the program logs no second block.
		{Kind: sim.StepBlock, Step: &sim.ModelStep[*Manager]{Kind: sim.StepBlock, When: lockCall}, Optional: true,
			Says: "the thread finds the mutex held and waits"},
		{Kind: sim.StepLock, Step: &sim.ModelStep[*Manager]{Kind: sim.StepLock}, Says: "the thread takes the mutex"},
		{Kind: sim.StepUnlock, Step: &sim.ModelStep[*Manager]{Kind: sim.StepUnlock}, Says: "the thread releases the mutex"},
		{Sends: true, Label: "cond.Broadcast", Holds: holdsMu,
			Says: "runPoller wakes runSend while it holds mu (its deferred cond.Broadcast runs before its deferred mu.Unlock)"},
		{Kind: sim.StepLocal, Label: "readPending", Holds: (*Manager).holdsStream,
			Says: "runPoller reads the table while it holds streamMu (cacheManagementMu after the fix)"},
		{Kind: sim.StepLocal, Label: "startVStream", Holds: holdsMu, Says: "startVStream runs under mu"},
		{Kind: sim.StepLocal, Label: "stopVStream", Holds: holdsMu, Says: "stopVStream runs under mu"},
		{Kind: sim.StepLocal, Label: "binlog: rows committed; no vstream runs",
			Step: &sim.ModelStep[*Manager]{Kind: sim.StepLocal, When: (*Manager).atRowEvent},
			Says: "a row event finds no vstream running"},
		// Close's pollerTicks.Stop, whether it finds the ticker free or
		// waits for the poller: its attempt at the ticker's mutex.
		{Kind: sim.StepLocal, Label: "Close: pollerTicks.Stop()",
			Step: &sim.ModelStep[*Manager]{Mutex: "pollerTicks", When: (*Manager).stoppingTicker},
			Says: "Close stops the poller's ticker"},
		{Kind: sim.StepLocal, Label: "runOneVStream: ctx done", Holds: (*Manager).callbackCancelled,
			Says: "the vstream callback finds its stream cancelled since the row event"},
		{Kind: sim.StepLocal, Label: "Subscribe: receivers", Skip: true, FieldsAfterNext: true,
			Says: "the receiver count after Subscribe's append"},
		{Kind: sim.StepLocal, Label: "unsubscribe: receiver removed", Skip: true, FieldsAfterNext: true,
			Says: "the receiver count after unsubscribe's removal"},
		// The model counts cached rows as the table's rows (RowsPerEvent
		// per event, the poller adding all stored), not the program's
		// counter: the cache fields are not checked.
		{Kind: sim.StepLocal, Label: "runPoller: rows added to the cache", Skip: true},
		{Kind: sim.StepLocal, Label: "Add: row added to the cache", Skip: true},
	},
	Fields: []sim.LogField[*Manager]{
		{Name: "receivers", Value: func(m *Manager, _ *sim.World, _ sim.ProcID) string { return strconv.Itoa(m.receivers()) }},
	},
}

// messagerLane: clientN is client N, the poller, the vstream and Close
// are the model's; runSend (a channel reader here, the model's runSend
// and send goroutines there) and the watchdog are left out.
func (m *Manager) messagerLane(_ *sim.World, _, name string) (sim.ProcID, bool) {
	switch name {
	case "poller":
		return m.poller, true
	case "vstream":
		return m.vstream, true
	case "close":
		return m.closer, true
	case "runSend", "watchdog":
		return sim.None, true
	}
	if n, ok := strings.CutPrefix(name, "client"); ok {
		if i, err := strconv.Atoi(n); err == nil && i >= 1 && i <= len(m.clients) {
			return m.clients[i-1], true
		}
	}
	return sim.None, false
}

// lockCall: the step is a thread's call of Lock, not a woken waiter's
// try.
func lockCall(_ *Manager, _ *sim.World, ev *sim.Event) bool { return ev.Kind != sim.EvAcquire }

func holdsMu(m *Manager, w *sim.World, p sim.ProcID) bool { return w.Mutex(m.mu).Holder == p }

func (m *Manager) holdsStream(w *sim.World, p sim.ProcID) bool { return w.Mutex(m.stream).Holder == p }

// atRowEvent: the vstream's next step is a row event (rEvent).
func (m *Manager) atRowEvent(w *sim.World, ev *sim.Event) bool {
	return ev.Proc == m.vstream && w.Proc(ev.Proc).PC == rEvent
}

// stoppingTicker: the step is Close's pollerTicks.Stop (kStop), the
// attempt at the ticker's mutex; the poller's own ticks are not logged.
func (m *Manager) stoppingTicker(w *sim.World, ev *sim.Event) bool {
	return ev.Proc == m.closer && w.Proc(ev.Proc).PC == kStop
}

// callbackCancelled: stopVStream ran since the callback's row event.
func (m *Manager) callbackCancelled(_ *sim.World, _ sim.ProcID) bool { return m.evCtxDone }
