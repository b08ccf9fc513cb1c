package vitess

import "github.com/racetrack-sim/racetrack/core/sim"

// client is a client's goroutine: Subscribe, then unsubscribe, Cycles
// times. The program counters are declared in model.go.
var client = sim.Program[*Manager]{
	cSubLock: {In: "Subscribe", Describe: describeSubLock, Do: func(m *Manager, w *sim.World, p *sim.Proc) sim.Action {
		if i := m.client(p.ID); m.cfg.EngineMutex && !m.inEngine[i] {
			// Engine.Subscribe: me.mu.Lock(); defer me.mu.Unlock(), then
			// the manager's Subscribe (this step again).
			m.inEngine[i] = true
			return sim.Lock(m.engine, "Engine.Subscribe: engine.mu.Lock()")
		}
		// Subscribe: mm.mu.Lock(); defer mm.mu.Unlock()
		p.PC = cSubCheck
		return sim.Lock(m.mu, "Subscribe: mu.Lock()")
	}},
	cSubCheck: {In: "Subscribe", Describe: describeSubCheck, Do: func(m *Manager, w *sim.World, p *sim.Proc) sim.Action {
		if !m.isOpen {
			p.PC = cExit
			if m.cfg.EngineMutex {
				p.PC = cEngineUnlock
			}
			return sim.Unlock(m.mu, "Subscribe: !isOpen, return; mu.Unlock()")
		}
		if m.cfg.FieldSendCost > 0 {
			// receiver.Send(mm.fieldResult) under mu: a slow client holds
			// mu (and everything waiting for it) for as long as it takes.
			p.PC = cSubFields
			return sim.Local("Subscribe: receiver.Send(fieldResult) (mu held)", m.cfg.FieldSendCost)
		}
		return m.subscribeStart(w, p)
	}},
	cSubFields: {In: "Subscribe → receiver.Send", Describe: describeSubCheck, Do: func(m *Manager, w *sim.World, p *sim.Proc) sim.Action {
		return m.subscribeStart(w, p)
	}},
	cSubStart: {In: "Subscribe → startVStream", Says: "starts the vstream and releases streamMu", Do: func(m *Manager, w *sim.World, p *sim.Proc) sim.Action {
		m.startVStream()
		p.PC = cSubAppend
		return sim.Unlock(m.stream, "startVStream: go runVStream(); streamMu.Unlock()")
	}},
	cSubAppend: {In: "Subscribe", Says: "appends its receiver and releases mu", Do: func(m *Manager, w *sim.World, p *sim.Proc) sim.Action {
		return m.subscribeAppend(w, p, m.client(p.ID), "Subscribe: receivers = append(..); ")
	}},
	cSubUnlock: {In: "Subscribe", Says: "releases mu", Do: func(m *Manager, w *sim.World, p *sim.Proc) sim.Action {
		return m.subscribeReturn(w, p, "Subscribe: mu.Unlock()")
	}},
	cEngineUnlock: {In: "Engine.Subscribe", Says: "returns from Engine.Subscribe and releases engine.mu", Do: func(m *Manager, w *sim.World, p *sim.Proc) sim.Action {
		i := m.client(p.ID)
		m.inEngine[i] = false
		if !m.subscribed[i] { // the manager was closed
			p.PC = cExit
			return sim.Unlock(m.engine, "Engine.Subscribe returns: engine.mu.Unlock()")
		}
		p.PC = cUnsubLock
		return unlockAfter(m.engine, "Engine.Subscribe returns: engine.mu.Unlock()", m.think(w))
	}},
	cUnsubLock: {In: "unsubscribe", Says: "takes mu", Do: func(m *Manager, w *sim.World, p *sim.Proc) sim.Action {
		// unsubscribe: mm.mu.Lock(); defer mm.mu.Unlock()
		p.PC = cUnsubRemove
		return sim.Lock(m.mu, "unsubscribe: mu.Lock()")
	}},
	cUnsubRemove: {In: "unsubscribe", Describe: describeUnsubRemove, Do: func(m *Manager, w *sim.World, p *sim.Proc) sim.Action {
		// Remove the receiver (a no-op after Close), rescanReceivers(-1):
		// removing a receiver never makes one ready, so no Broadcast.
		i := m.client(p.ID)
		m.subscribed[i] = false
		if m.cfg.Delivery {
			m.rescan(-1)
		}
		if h := w.Mutex(m.stream).Holder; m.receivers() == 0 && (h == m.poller || h == m.vstream) {
			m.window = int8(i + 1)
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
	}},
	cUnsubStop: {In: "unsubscribe → stopVStream", Says: "cancels the vstream and releases streamMu", Do: func(m *Manager, w *sim.World, p *sim.Proc) sim.Action {
		m.stopVStream(w)
		p.PC = cUnsubClear
		return sim.Unlock(m.stream, "stopVStream: streamCancel(); streamMu.Unlock()")
	}},
	cUnsubClear: {In: "unsubscribe", Says: "clears the cache and releases mu", Do: func(m *Manager, w *sim.World, p *sim.Proc) sim.Action {
		m.clearCache()
		return m.endCycle(w, p, m.client(p.ID), "unsubscribe: cache.Clear(); mu.Unlock()")
	}},
	cExit: {In: "gone", Says: "goes away", Do: func(*Manager, *sim.World, *sim.Proc) sim.Action {
		return sim.Exit("client stream ends")
	}},
}

// subscribeStart is Subscribe after the field info: the first receiver
// starts the vstream, then the receiver is appended.
func (m *Manager) subscribeStart(w *sim.World, p *sim.Proc) sim.Action {
	i := m.client(p.ID)
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
}

func describeSubCheck(m *Manager, _ *sim.World, _ *sim.Proc, who string) string {
	if !m.isOpen {
		return who + " finds the manager closed and returns"
	}
	if m.receivers() == 0 && !m.cfg.Fixed {
		return who + " is the first receiver: startVStream takes streamMu"
	}
	return who + " appends its receiver and releases mu"
}

func describeUnsubRemove(m *Manager, _ *sim.World, p *sim.Proc, who string) string {
	i := m.client(p.ID)
	if n := m.receivers(); (n == 0 || (n == 1 && m.subscribed[i])) && !m.cfg.Fixed {
		return who + " removes the last receiver: stopVStream takes streamMu"
	}
	return who + " removes its receiver and releases mu"
}

// subscribeAppend adds receiver i; rescanReceivers(-1) Broadcasts when no
// receiver was ready before.
func (m *Manager) subscribeAppend(w *sim.World, p *sim.Proc, i int, label string) sim.Action {
	m.subscribed[i] = true
	if m.cfg.Delivery && m.curReceiver == -1 && m.rescan(-1) && m.waiting(w, m.cond) {
		p.PC = cSubUnlock
		return sim.Broadcast(m.cond, say(w, label, "rescanReceivers: cond.Broadcast()"))
	}
	return m.subscribeReturn(w, p, say(w, label, "mu.Unlock()"))
}

// subscribeReturn ends the manager's Subscribe: mu is released and the
// client stays subscribed for a while, or, with the engine's mutex, first
// returns from Engine.Subscribe.
func (m *Manager) subscribeReturn(w *sim.World, p *sim.Proc, label string) sim.Action {
	if m.cfg.EngineMutex {
		p.PC = cEngineUnlock
		return sim.Unlock(m.mu, label)
	}
	p.PC = cUnsubLock
	return unlockAfter(m.mu, label, m.think(w))
}

func describeSubLock(m *Manager, _ *sim.World, p *sim.Proc, who string) string {
	if m.cfg.EngineMutex && !m.inEngine[m.client(p.ID)] {
		return who + " takes engine.mu (Engine.Subscribe)"
	}
	return who + " takes mu"
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
