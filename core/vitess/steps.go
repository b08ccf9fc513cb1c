package vitess

import (
	"strconv"

	"github.com/racetrack-sim/racetrack/core/sim"
)

// Handle runs the next step of goroutine p.
func (m *Manager) Handle(w *sim.World, p *sim.Proc, _ *sim.Event) sim.Action {
	var a sim.Action
	m.window = ""
	switch p.ID {
	case m.poller:
		a = m.stepPoller(w, p)
	case m.vstream:
		a = m.stepVStream(w, p)
	case m.closer:
		a = m.stepClose(w, p)
	case m.runSend:
		a = m.stepRunSend(w, p)
	default:
		if i := m.client(p.ID); i >= 0 {
			a = m.stepClient(w, p, i)
		} else {
			a = m.stepSend(w, p, m.sender(p.ID))
		}
	}
	m.afterStep(w)
	return a
}

// think draws how long a client stays subscribed, or away.
func (m *Manager) think(w *sim.World) sim.Time {
	t := m.cfg.ThinkTime
	return w.Between(t/2, t+t/2, sim.Millisecond, "think time")
}

// eventGap draws the time to the next binlog row event.
func (m *Manager) eventGap(w *sim.World) sim.Time {
	if !m.cfg.Timed || m.cfg.RowEventRate <= 0 {
		return 0
	}
	mean := sim.Time(float64(sim.Second) / m.cfg.RowEventRate)
	return w.Between(0, 2*mean, sim.Millisecond, "row event gap")
}

func (m *Manager) waiting(w *sim.World, c sim.CondID) bool { return len(w.Conds()[c].Waiters) > 0 }

func (m *Manager) streamName(w *sim.World) string { return w.Mutex(m.stream).Name }

// unlockAfter releases l and runs the thread's next step after d.
func unlockAfter(l sim.MutexID, label string, d sim.Time) sim.Action {
	a := sim.Unlock(l, label)
	a.Cost = d
	return a
}

// startVStream: the stream's cancel func is set and runVStream starts.
func (m *Manager) startVStream() { m.streaming = true }

// stopVStream: streamCancel() — a callback in progress sees ctx done at
// its next check.
func (m *Manager) stopVStream(w *sim.World) {
	m.streaming = false
	if pc := w.Proc(m.vstream).PC; pc != rEvent && pc != rExit {
		m.evCtxDone = true
	}
}

// clearCache is cache.Clear(): the rows stay in the table.
func (m *Manager) clearCache() {
	m.stored += m.cached
	m.cached = 0
}

// rescanReceivers(start): the next receiver after start that is not busy
// becomes current (in client order; upstream uses subscription order).
// It reports whether upstream would Broadcast (none was current before).
func (m *Manager) rescan(start int) bool {
	n := len(m.subscribed)
	cur := start
	for k := 0; k < n; k++ {
		cur = (cur + 1 + n) % n
		if m.subscribed[cur] && !m.busy[cur] {
			was := m.curReceiver
			m.curReceiver = cur
			return was == -1
		}
	}
	m.curReceiver = -1
	return false
}

// stepClient runs Subscribe, then unsubscribe, Cycles times.
func (m *Manager) stepClient(w *sim.World, p *sim.Proc, i int) sim.Action {
	switch p.PC {
	case cSubLock: // Subscribe: mm.mu.Lock(); defer mm.mu.Unlock()
		p.PC = cSubCheck
		return sim.Lock(m.mu, "Subscribe: mu.Lock()")
	case cSubCheck:
		if !m.isOpen {
			p.PC = cExit
			return sim.Unlock(m.mu, "Subscribe: !isOpen, return; mu.Unlock()")
		}
		// receiver.Send(fields) happens here, under mu; it is not modelled.
		if m.receivers() == 0 {
			if !m.cfg.Fixed {
				// startVStream (v13): mm.streamMu.Lock(); defer Unlock
				p.PC = cSubStart
				return sim.Lock(m.stream, "startVStream: streamMu.Lock()")
			}
			// startVStream (v14): no lock; mu protects streamCancel.
			m.startVStream()
			return m.subscribeAppend(w, p, i, "Subscribe: startVStream(); receivers = append(..); ")
		}
		return m.subscribeAppend(w, p, i, "Subscribe: receivers = append(..); ")
	case cSubStart:
		m.startVStream()
		p.PC = cSubAppend
		return sim.Unlock(m.stream, "startVStream: go runVStream(); streamMu.Unlock()")
	case cSubAppend:
		return m.subscribeAppend(w, p, i, "Subscribe: receivers = append(..); ")
	case cSubUnlock:
		p.PC = cUnsubLock
		return unlockAfter(m.mu, "Subscribe: mu.Unlock()", m.think(w))
	case cUnsubLock: // unsubscribe: mm.mu.Lock(); defer mm.mu.Unlock()
		p.PC = cUnsubRemove
		return sim.Lock(m.mu, "unsubscribe: mu.Lock()")
	case cUnsubRemove:
		// Remove the receiver (a no-op after Close), rescanReceivers(-1):
		// removing a receiver never makes one ready, so no Broadcast.
		m.subscribed[i] = false
		if m.cfg.Delivery {
			m.rescan(-1)
		}
		if h := w.Mutex(m.stream).Holder; m.receivers() == 0 && (h == m.poller || h == m.vstream) {
			m.window = clientName(i) + " removed the last receiver while " + m.actor(w, w.Proc(h)) + " holds " + m.streamName(w)
		}
		if m.receivers() > 0 {
			return m.endCycle(w, p, i, "unsubscribe: mu.Unlock()")
		}
		if !m.cfg.Fixed {
			// stopVStream (v13): mm.streamMu.Lock(); defer Unlock
			p.PC = cUnsubStop
			return sim.Lock(m.stream, "stopVStream: streamMu.Lock()")
		}
		m.stopVStream(w)
		m.clearCache()
		return m.endCycle(w, p, i, "unsubscribe: stopVStream(); cache.Clear(); mu.Unlock()")
	case cUnsubStop:
		m.stopVStream(w)
		p.PC = cUnsubClear
		return sim.Unlock(m.stream, "stopVStream: streamCancel(); streamMu.Unlock()")
	case cUnsubClear:
		m.clearCache()
		return m.endCycle(w, p, i, "unsubscribe: cache.Clear(); mu.Unlock()")
	}
	return sim.Exit("client stream ends")
}

// subscribeAppend adds receiver i; rescanReceivers(-1) Broadcasts when no
// receiver was ready before.
func (m *Manager) subscribeAppend(w *sim.World, p *sim.Proc, i int, label string) sim.Action {
	m.subscribed[i] = true
	if m.cfg.Delivery && m.curReceiver == -1 && m.rescan(-1) && m.waiting(w, m.cond) {
		p.PC = cSubUnlock
		return sim.Broadcast(m.cond, label+"rescanReceivers: cond.Broadcast()")
	}
	p.PC = cUnsubLock
	return unlockAfter(m.mu, label+"mu.Unlock()", m.think(w))
}

// endCycle ends unsubscribe: mu is released and the client thinks, or
// leaves after its last cycle.
func (m *Manager) endCycle(w *sim.World, p *sim.Proc, i int, label string) sim.Action {
	m.cyclesDone[i]++
	if m.cyclesDone[i] >= m.cfg.Cycles {
		p.PC = cExit
		return sim.Unlock(m.mu, label)
	}
	p.PC = cSubLock
	return unlockAfter(m.mu, label, m.think(w))
}

// stepPoller runs runPoller on every tick of pollerTicks.
func (m *Manager) stepPoller(w *sim.World, p *sim.Proc) sim.Action {
	switch p.PC {
	case pTick:
		if m.pollerStopped {
			return sim.Exit("pollerTicks stopped: the timer goroutine returned")
		}
		m.tickStart = w.Now()
		p.PC = pFastLock
		return sim.Lock(m.ticks, "pollerTicks: tick; runPoller()")
	case pFastLock:
		if m.pollerStopped { // Stop won the timer's mutex first
			p.PC = pExit
			return sim.Unlock(m.ticks, "pollerTicks: stopped")
		}
		if m.cfg.Fixed {
			// runPoller (v14): cacheManagementMu.Lock(), then mu.Lock()
			p.PC = pMuLockFixed
			return sim.Lock(m.stream, "runPoller: cacheManagementMu.Lock()")
		}
		// runPoller (v13) fast path: receiverCount() takes mu alone.
		p.PC = pFastRead
		return sim.Lock(m.mu, "receiverCount: mu.Lock()")
	case pFastRead:
		n := m.receivers()
		if n == 0 {
			p.PC = pReturn
			return sim.Unlock(m.mu, "receiverCount: 0 receivers; mu.Unlock(); return")
		}
		// The gap: mu is released before streamMu is taken.
		p.PC = pStreamLock
		return sim.Unlock(m.mu, "receiverCount: "+strconv.Itoa(n)+" receivers; mu.Unlock()")
	case pStreamLock:
		p.PC = pRead
		if !m.cfg.Timed {
			p.PC = pMuLock // readPending has no effect of its own untimed
		}
		return sim.Lock(m.stream, "runPoller: streamMu.Lock()")
	case pMuLockFixed:
		p.PC = pCheckFixed
		return sim.Lock(m.mu, "runPoller: mu.Lock()")
	case pCheckFixed:
		if m.receivers() == 0 {
			p.PC = pStreamUnlock
			return sim.Unlock(m.mu, "runPoller: len(receivers) == 0; mu.Unlock()")
		}
		if !m.cfg.Timed {
			return m.pollerAdd(w, p)
		}
		return m.readPending(p)
	case pRead:
		return m.readPending(p)
	case pMuLock:
		p.PC = pAdd
		return sim.Lock(m.mu, "runPoller: mu.Lock()")
	case pAdd:
		return m.pollerAdd(w, p)
	case pMuUnlock:
		p.PC = pStreamUnlock
		return sim.Unlock(m.mu, "runPoller: mu.Unlock()")
	case pStreamUnlock:
		p.PC = pReturn
		return sim.Unlock(m.stream, "runPoller: "+m.streamName(w)+".Unlock()")
	case pReturn:
		p.PC = pTick
		if m.ticksLeft > 0 {
			m.ticksLeft--
			if m.ticksLeft == 0 {
				p.PC = pExit
			}
		}
		// A Go ticker keeps one missed tick: the next run starts one
		// interval after this one started, or at once if that has passed.
		next := m.tickStart + m.cfg.PollerInterval - w.Now()
		if next < 0 {
			next = 0
		}
		return unlockAfter(m.ticks, "runPoller returned", next)
	}
	return sim.Exit("pollerTicks stopped: the timer goroutine returned")
}

// readPending is the poller's query (buggy: streamMu held; fixed: both
// locks held). Its context times out after one poller interval: then
// runPoller returns and its defers release the locks.
func (m *Manager) readPending(p *sim.Proc) sim.Action {
	if m.cfg.ReadPendingCost >= m.cfg.PollerInterval {
		p.PC = pStreamUnlock
		if m.cfg.Fixed {
			p.PC = pMuUnlock
		}
		return sim.Local("runPoller: readPending: context deadline exceeded", m.cfg.PollerInterval)
	}
	p.PC = pMuLock
	if m.cfg.Fixed {
		p.PC = pAdd
	}
	return sim.Local("runPoller: readPending", m.cfg.ReadPendingCost)
}

// pollerAdd: with mu held, set messagesPending and add the rows read to
// the cache. The rows read are taken to be the rows in the table at this
// point (the query's snapshot differs only by rows whose own row event
// will add them).
func (m *Manager) pollerAdd(w *sim.World, p *sim.Proc) sim.Action {
	rows := min(m.stored+m.cached, cacheSize)
	if m.cfg.Delivery {
		m.messagesPending = rows >= cacheSize
	}
	if m.receivers() == 0 {
		p.PC = pStreamUnlock
		return sim.Unlock(m.mu, "runPoller: len(receivers) == 0 (almost never reachable); mu.Unlock()")
	}
	add := min(m.stored, cacheSize-m.cached)
	if add < m.stored {
		m.messagesPending = true
	}
	m.stored -= add
	m.cached += add
	m.evPending = min(m.evPending, m.stored)
	if rows > 0 && m.waiting(w, m.cond) {
		p.PC = pMuUnlock
		return sim.Broadcast(m.cond, "runPoller: cache.Add(rows); cond.Broadcast()")
	}
	p.PC = pStreamUnlock
	return sim.Unlock(m.mu, "runPoller: cache.Add(rows); mu.Unlock()")
}

// stepVStream runs the binlog: each row event commits rows to the message
// table; while a vstream runs, its runOneVStream callback processes them.
func (m *Manager) stepVStream(w *sim.World, p *sim.Proc) sim.Action {
	switch p.PC {
	case rEvent:
		if !m.isOpen || m.eventsLeft == 0 || (m.cfg.Timed && m.cfg.RowEventRate <= 0) {
			p.PC = rExit
			return sim.Exit("binlog: no more row events for this manager")
		}
		if m.eventsLeft > 0 {
			m.eventsLeft--
		}
		rows := m.cfg.RowsPerEvent
		if m.cfg.Delivery {
			m.stored += rows
		}
		if !m.streaming {
			return sim.Local("binlog: "+strconv.Itoa(rows)+" row(s) committed; no vstream runs", m.eventGap(w))
		}
		m.evRows, m.evPending, m.evCtxDone = rows, 0, false
		if m.cfg.Delivery {
			m.evPending = rows
		}
		p.PC = rCheck
		// runOneVStream's callback: mm.streamMu.Lock(); defer Unlock
		return sim.Lock(m.stream, "runOneVStream: "+m.streamName(w)+".Lock()")
	case rCheck:
		if m.evCtxDone {
			return m.endCallback(w, p, "runOneVStream: ctx done, return io.EOF; "+m.streamName(w)+".Unlock()")
		}
		return m.nextRow(p)
	case rRow:
		return m.nextRow(p)
	case rAddLock:
		p.PC = rAdd
		return sim.Lock(m.mu, "Add: mu.Lock()")
	case rAdd:
		// Add: if len(receivers) == 0 return false; cache.Add(row)
		m.evRows--
		if m.receivers() == 0 {
			return m.afterAdd(p, "Add: len(receivers) == 0, return false; mu.Unlock()")
		}
		wasEmpty := m.cached == 0
		if m.evPending > 0 {
			m.evPending--
			if m.cached < cacheSize {
				m.stored--
				m.cached++
			} else {
				m.messagesPending = true
			}
		}
		if wasEmpty && m.waiting(w, m.cond) {
			p.PC = rAddUnlock
			return sim.Broadcast(m.cond, "Add: cache.Add(row); cond.Broadcast()")
		}
		return m.afterAdd(p, "Add: cache.Add(row); mu.Unlock()")
	case rAddUnlock:
		return m.afterAdd(p, "Add: mu.Unlock()")
	case rStreamUnlock:
		return m.endCallback(w, p, "runOneVStream: "+m.streamName(w)+".Unlock()")
	}
	return sim.Exit("binlog: no more row events for this manager")
}

// nextRow: processRowEvent for the next row (it costs RowCost), then Add.
func (m *Manager) nextRow(p *sim.Proc) sim.Action {
	if m.cfg.Timed && m.cfg.RowCost > 0 {
		p.PC = rAddLock
		return sim.Local("runOneVStream: processRowEvent", m.cfg.RowCost)
	}
	p.PC = rAdd
	return sim.Lock(m.mu, "Add: mu.Lock()")
}

func (m *Manager) afterAdd(p *sim.Proc, label string) sim.Action {
	p.PC = rStreamUnlock
	if m.evRows > 0 {
		p.PC = rRow
	}
	return sim.Unlock(m.mu, label)
}

func (m *Manager) endCallback(w *sim.World, p *sim.Proc, label string) sim.Action {
	m.evRows, m.evPending, m.evCtxDone = 0, 0, false
	p.PC = rEvent
	return unlockAfter(m.stream, label, m.eventGap(w))
}

// stepRunSend is runSend: it holds mu except inside cond.Wait and its
// yield, and hands each batch to the receiver's send goroutine.
func (m *Manager) stepRunSend(w *sim.World, p *sim.Proc) sim.Action {
	switch p.PC {
	case sLock:
		p.PC = sLoop
		return sim.Lock(m.mu, "runSend: mu.Lock()")
	case sLoop:
		if !m.isOpen {
			p.PC = sExit
			return sim.Unlock(m.mu, "runSend: !isOpen, return; mu.Unlock()")
		}
		// (When the cache is empty and messagesPending is set, upstream
		// also starts go pollerTicks.Trigger(); not modelled.)
		if m.curReceiver == -1 || m.cached == 0 {
			return sim.Wait(m.cond, "runSend: cond.Wait()")
		}
		r := m.curReceiver
		n := min(batchSize, m.cached)
		m.cached -= n
		m.batch[r] += n
		m.busy[r] = true
		m.rescan(r)
		name := clientName(r)
		if m.waiting(w, m.recvCond[r]) {
			p.PC = sYield
			return sim.Signal(m.recvCond[r], "runSend: go send("+name+")")
		}
		p.PC = sLock
		return sim.Unlock(m.mu, "runSend: go send("+name+"); mu.Unlock()")
	case sYield:
		p.PC = sLock
		return sim.Unlock(m.mu, "runSend: mu.Unlock()")
	}
	return sim.Exit("runSend returned")
}

// stepSend is the send goroutine of receiver i. Upstream runSend starts a
// new goroutine per batch; here one thread per receiver waits for its
// batch on the receiver's cond (bound to mu) between sends.
func (m *Manager) stepSend(w *sim.World, p *sim.Proc, i int) sim.Action {
	switch p.PC {
	case dLock:
		p.PC = dIdle
		return sim.Lock(m.mu, "send: wait for a batch; mu.Lock()")
	case dIdle:
		if m.batch[i] > 0 {
			m.sending[i], m.batch[i] = m.batch[i], 0
			p.PC = dWrite
			return sim.Unlock(m.mu, "go send(): "+strconv.Itoa(m.sending[i])+" row(s); mu.Unlock()")
		}
		if !m.isOpen {
			p.PC = dExit
			return sim.Unlock(m.mu, "send: manager closed; mu.Unlock()")
		}
		return sim.Wait(m.recvCond[i], "send: wait for a batch")
	case dWrite:
		p.PC = dDone
		return sim.Local("send: receiver.Send(rows); postpone", m.cfg.SendCost)
	case dDone:
		// The client acks what it received; a cancelled receiver's Send
		// returns io.EOF and the rows stay in the table.
		if m.subscribed[i] && m.isOpen {
			m.delivered += m.sending[i]
			m.progressSince = w.Now()
		} else {
			m.sendFailed[i] = true
		}
		p.PC = dBusy
		return sim.Lock(m.mu, "send (deferred busy reset): mu.Lock()")
	case dBusy:
		m.busy[i] = false
		if m.curReceiver == -1 && m.rescan(-1) && m.waiting(w, m.cond) {
			p.PC = dBusyUnlock
			return sim.Broadcast(m.cond, "send: busy = false; rescanReceivers: cond.Broadcast()")
		}
		p.PC = dDiscardLock
		return sim.Unlock(m.mu, "send: busy = false; mu.Unlock()")
	case dBusyUnlock:
		p.PC = dDiscardLock
		return sim.Unlock(m.mu, "send: mu.Unlock()")
	case dDiscardLock:
		p.PC = dDiscard
		return sim.Lock(m.stream, "send (deferred cache.Discard): "+m.streamName(w)+".Lock()")
	case dDiscard:
		if m.sendFailed[i] {
			m.stored += m.sending[i]
		}
		m.sending[i], m.sendFailed[i] = 0, false
		p.PC = dLock
		return sim.Unlock(m.stream, "send: cache.Discard(ids); "+m.streamName(w)+".Unlock()")
	}
	return sim.Exit("send goroutines end with the manager")
}

// stepClose is Close, as called by the tablet's state transition (what
// PlannedReparentShard waits for).
func (m *Manager) stepClose(w *sim.World, p *sim.Proc) sim.Action {
	switch p.PC {
	case kStop:
		m.closeStarted = true
		m.closeStartAt = w.Now()
		p.PC = kStopped
		return sim.Lock(m.ticks, "Close: pollerTicks.Stop()")
	case kStopped:
		m.pollerStopped = true
		p.PC = kLock
		return sim.Unlock(m.ticks, "Close: pollerTicks.Stop() returned; purgeTicks.Stop()")
	case kLock:
		p.PC = kClose
		return sim.Lock(m.mu, "Close: mu.Lock()")
	case kClose:
		m.isOpen = false
		for i := range m.subscribed {
			m.subscribed[i] = false
		}
		m.curReceiver = -1
		m.clearCache()
		return m.closeNext(w, p, "Close: isOpen = false; cancel receivers; cache.Clear(); ")
	case kWake:
		return m.closeNext(w, p, "Close: ")
	case kStreamStop:
		m.stopVStream(w)
		p.PC = kUnlock
		return sim.Unlock(m.stream, "stopVStream: streamCancel(); streamMu.Unlock()")
	case kUnlock:
		p.PC = kWait
		return sim.Unlock(m.mu, "Close: mu.Unlock()")
	case kWait:
		// wg.Wait() for runSend and in-flight sends. The kernel has no
		// WaitGroup: timed runs poll it every millisecond; untimed runs
		// skip it (it takes no lock).
		if m.cfg.Timed && !m.wgDone(w) {
			return sim.Sleep(sim.Millisecond, "Close: wg.Wait()")
		}
		m.closeReturned = true
		p.PC = kReturned
		return sim.Exit("Close returned")
	}
	return sim.Exit("Close returned")
}

// closeNext wakes runSend and the cancelled receivers' sends, then stops
// the vstream: v13 takes streamMu while holding mu; v14 takes no lock.
func (m *Manager) closeNext(w *sim.World, p *sim.Proc, label string) sim.Action {
	p.PC = kWake
	if m.waiting(w, m.cond) {
		return sim.Broadcast(m.cond, label+"cond.Broadcast()")
	}
	for i, c := range m.recvCond {
		if m.waiting(w, c) {
			return sim.Broadcast(c, label+"receiver "+clientName(i)+" cancelled")
		}
	}
	if m.cfg.Fixed {
		m.stopVStream(w)
		p.PC = kWait
		return sim.Unlock(m.mu, label+"stopVStream(); mu.Unlock()")
	}
	p.PC = kStreamStop
	return sim.Lock(m.stream, "stopVStream: streamMu.Lock()")
}

// wgDone reports whether mm.wg is zero: runSend returned and no send
// goroutine is in flight.
func (m *Manager) wgDone(w *sim.World) bool {
	if m.runSend != sim.None && w.Proc(m.runSend).Status != sim.Done {
		return false
	}
	for i, s := range m.senders {
		if m.batch[i] > 0 {
			return false
		}
		if pc := w.Proc(s).PC; pc != dLock && pc != dIdle && pc != dExit {
			return false
		}
	}
	return true
}

// afterStep tracks when delivery became due and samples the series.
func (m *Manager) afterStep(w *sim.World) {
	due := m.deliveryDue(w)
	if due && !m.progressDue {
		m.progressSince = w.Now()
	}
	m.progressDue = due
	if w.Trace() == nil {
		return
	}
	for k, id := range [2]sim.MutexID{m.mu, m.stream} {
		h := w.Mutex(id).Holder
		if h != m.holder[k] {
			m.holder[k], m.holdSince[k] = h, w.Now()
		}
		v := 0.0
		if h != sim.None {
			v = (w.Now() - m.holdSince[k]).Millis()
		}
		w.Sample([2]sim.SeriesID{m.sMu, m.sStream}[k], v)
	}
	blocked := 0
	for _, q := range w.Procs() {
		if q.Status == sim.Blocked {
			blocked++
		}
	}
	w.Sample(m.sBlocked, float64(blocked))
	w.Sample(m.sDelivered, float64(m.delivered))
}

// deliveryDue: clients are subscribed (or inside Subscribe: a client
// stuck there is owed messages too) and rows wait to be sent. Every cycle
// closes while the receiver count moves to or from zero, so counting only
// subscribed receivers would never see delivery stop.
func (m *Manager) deliveryDue(w *sim.World) bool {
	if !m.cfg.Delivery || !m.isOpen || m.stored+m.cached == 0 {
		return false
	}
	return m.wanting(w) > 0
}
