package vitess

import "github.com/racetrack-sim/racetrack/core/sim"

// Shared variables: the state that goroutines read or write outside the
// mutex of their step's kernel action (check.SharedAccess). Each is a bit
// of an access mask. State only one goroutine touches (a client's
// cyclesDone, the poller's ticksLeft, the vstream's eventsLeft and
// evRows, Close's flags) is private and needs no declaration.
const (
	varIsOpen        = iota // isOpen
	varStreaming            // streamCancel != nil
	varRows                 // stored and cached: where the rows are
	varEvPending            // rows of the current callback only in the table
	varEvCtxDone            // the current callback's ctx was cancelled
	varPollerStopped        // the timer's stop flag
	varVStreamPC            // the vstream's program counter (stopVStream reads it)
	varSubscribed           // subscribed[0]; client i is bit varSubscribed+i
)

// Pseudo-bits of the tables, expanded per client by Accesses.
const (
	subOwn = 1 << 62 // subscribed[i] of the client taking the step
	subAll = 1 << 63 // subscribed[] of every client (len(receivers))
)

func bits(vs ...int) uint64 {
	var m uint64
	for _, v := range vs {
		m |= 1 << uint(v)
	}
	return m
}

// access is what one step may read and write (a write is also a read).
type access struct{ reads, writes uint64 }

// accessTables holds, per goroutine and program counter, the shared
// variables of the step that program counter runs, in both variants (a
// superset is sound). Steps not listed touch no shared variable.
type accessTables struct {
	client, poller, vstream, close map[int]access
}

var declared = accessTables{
	client: map[int]access{
		cSubCheck:    {reads: bits(varIsOpen) | subAll, writes: bits(varStreaming) | subOwn},
		cSubStart:    {writes: bits(varStreaming)},
		cSubAppend:   {writes: subOwn},
		cUnsubRemove: {reads: bits(varVStreamPC) | subAll, writes: bits(varStreaming, varEvCtxDone, varRows) | subOwn},
		cUnsubStop:   {reads: bits(varVStreamPC), writes: bits(varStreaming, varEvCtxDone)},
		cUnsubClear:  {writes: bits(varRows)},
	},
	poller: map[int]access{
		pTick:       {reads: bits(varPollerStopped)},
		pFastLock:   {reads: bits(varPollerStopped)},
		pFastRead:   {reads: subAll},
		pCheckFixed: {reads: subAll, writes: bits(varRows, varEvPending)},
		pAdd:        {reads: subAll, writes: bits(varRows, varEvPending)},
	},
	vstream: map[int]access{
		rEvent:        {reads: bits(varIsOpen, varStreaming), writes: bits(varVStreamPC, varEvPending, varEvCtxDone, varRows)},
		rCheck:        {writes: bits(varVStreamPC, varEvPending, varEvCtxDone)},
		rRow:          {writes: bits(varVStreamPC)},
		rAddLock:      {writes: bits(varVStreamPC)},
		rAdd:          {reads: subAll, writes: bits(varVStreamPC, varRows, varEvPending)},
		rAddUnlock:    {writes: bits(varVStreamPC)},
		rStreamUnlock: {writes: bits(varVStreamPC, varEvPending, varEvCtxDone)},
		rExit:         {writes: bits(varVStreamPC)},
	},
	close: map[int]access{
		kStopped:    {writes: bits(varPollerStopped)},
		kClose:      {reads: bits(varVStreamPC), writes: bits(varIsOpen, varRows, varStreaming, varEvCtxDone) | subAll},
		kWake:       {reads: bits(varVStreamPC), writes: bits(varStreaming, varEvCtxDone)},
		kStreamStop: {reads: bits(varVStreamPC), writes: bits(varStreaming, varEvCtxDone)},
	},
}

// Accesses declares the shared variables the next step of goroutine p
// may read and write (check.SharedAccess), so that the explorers' sleep
// sets, persistent sets and DPOR treat two steps of different goroutines
// as independent only when they touch different mutexes and no variable
// one of them writes. With delivery on (runSend, the send goroutines and
// their bookkeeping), the Engine mutex, the unlocked-poller variant
// (the poller's snapshot state) or Go mutexes (a woken waiter's try
// races with every Lock of its mutex, which the explorers' reductions,
// taking a thread's acquire of a mutex handed to it as independent, do
// not know) nothing is declared: every step is dependent.
func (m *Manager) Accesses(w *sim.World, p sim.ProcID) (reads, writes uint64, ok bool) {
	return declared.of(m, w, p)
}

func (t *accessTables) of(m *Manager, w *sim.World, p sim.ProcID) (reads, writes uint64, ok bool) {
	if m.cfg.Delivery || m.cfg.EngineMutex || m.cfg.UnlockedPoller || m.cfg.GoMutex || len(m.clients) > 64-varSubscribed-2 {
		return 0, 0, false
	}
	var a access
	client := -1
	pc := w.Proc(p).PC
	switch p {
	case m.poller:
		a = t.poller[pc]
	case m.vstream:
		a = t.vstream[pc]
	case m.closer:
		a = t.close[pc]
	default:
		if client = m.client(p); client < 0 {
			return 0, 0, false
		}
		a = t.client[pc]
	}
	expand := func(mask uint64) uint64 {
		out := mask &^ (subOwn | subAll)
		if mask&subOwn != 0 && client >= 0 {
			out |= 1 << uint(varSubscribed+client)
		}
		if mask&subAll != 0 {
			for i := range m.clients {
				out |= 1 << uint(varSubscribed+i)
			}
		}
		return out
	}
	return expand(a.reads), expand(a.writes), true
}
