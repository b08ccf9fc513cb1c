package vitess

import "github.com/racetrack-sim/racetrack/core/sim"

// closer is Close, as called by the tablet's state transition (what
// PlannedReparentShard waits for). The program counters are declared in
// model.go.
var closer = sim.Program[*Manager]{
	kStop: {In: "Close", Says: "stops pollerTicks", Do: func(m *Manager, w *sim.World, p *sim.Proc) sim.Action {
		if !m.closeStarted {
			m.closeStarted = true
			m.closeStartAt = w.Now()
		}
		if e := len(m.clients); m.cfg.EngineMutex && !m.inEngine[e] {
			// Engine.Close: me.mu.Lock(); defer me.mu.Unlock(), then the
			// manager's Close (this step again).
			m.inEngine[e] = true
			return sim.Lock(m.engine, "Engine.Close: engine.mu.Lock()")
		}
		p.PC = kStopped
		return sim.Lock(m.ticks, "Close: pollerTicks.Stop()")
	}},
	kStopped: {In: "Close → pollerTicks.Stop", Says: "releases the timer", Do: func(m *Manager, w *sim.World, p *sim.Proc) sim.Action {
		m.pollerStopped = true
		p.PC = kLock
		return sim.Unlock(m.ticks, "Close: pollerTicks.Stop() returned; purgeTicks.Stop()")
	}},
	kLock: {In: "Close", Says: "takes mu", Do: func(m *Manager, w *sim.World, p *sim.Proc) sim.Action {
		p.PC = kClose
		return sim.Lock(m.mu, "Close: mu.Lock()")
	}},
	kClose: {In: "Close", Says: "closes: cancels receivers, clears the cache", Do: func(m *Manager, w *sim.World, p *sim.Proc) sim.Action {
		m.isOpen = false
		for i := range m.subscribed {
			m.subscribed[i] = false
		}
		m.curReceiver = -1
		m.clearCache()
		return m.closeNext(w, p, "Close: isOpen = false; cancel receivers; cache.Clear(); ")
	}},
	kWake: {In: "Close", Says: "wakes the goroutines waiting on cond", Do: func(m *Manager, w *sim.World, p *sim.Proc) sim.Action {
		return m.closeNext(w, p, "Close: ")
	}},
	kStreamStop: {In: "Close → stopVStream", Says: "cancels the vstream and releases streamMu", Do: func(m *Manager, w *sim.World, p *sim.Proc) sim.Action {
		m.stopVStream(w)
		p.PC = kUnlock
		return sim.Unlock(m.stream, "stopVStream: streamCancel(); streamMu.Unlock()")
	}},
	kUnlock: {In: "Close", Says: "releases mu", Do: func(m *Manager, w *sim.World, p *sim.Proc) sim.Action {
		p.PC = kWait
		return sim.Unlock(m.mu, "Close: mu.Unlock()")
	}},
	kWait: {In: "Close → wg.Wait", Says: "waits for wg", Do: func(m *Manager, w *sim.World, p *sim.Proc) sim.Action {
		// wg.Wait() for runSend and in-flight sends. The kernel has no
		// WaitGroup: timed runs poll it every millisecond; untimed runs
		// skip it (it takes no lock).
		if m.cfg.Timed && !m.wgDone(w) {
			return sim.Sleep(sim.Millisecond, "Close: wg.Wait()")
		}
		m.closeReturned = true
		p.PC = kReturned
		if m.cfg.EngineMutex {
			m.inEngine[len(m.clients)] = false
			return sim.Unlock(m.engine, "Engine.Close returns: engine.mu.Unlock()")
		}
		return sim.Exit("Close returned")
	}},
	kReturned: {In: "returned", Says: "has returned", Do: func(*Manager, *sim.World, *sim.Proc) sim.Action {
		return sim.Exit("Close returned")
	}},
}

// closeNext wakes runSend and the cancelled receivers' sends, then stops
// the vstream: v13 takes streamMu while holding mu; v14 takes no lock.
func (m *Manager) closeNext(w *sim.World, p *sim.Proc, label string) sim.Action {
	p.PC = kWake
	if m.waiting(w, m.cond) {
		return sim.Broadcast(m.cond, say(w, label, "cond.Broadcast()"))
	}
	for i, c := range m.recvCond {
		if m.waiting(w, c) {
			return sim.Broadcast(c, say(w, label, "receiver ", clientName(i), " cancelled"))
		}
	}
	if m.cfg.Fixed {
		m.stopVStream(w)
		p.PC = kWait
		return sim.Unlock(m.mu, say(w, label, "stopVStream(); mu.Unlock()"))
	}
	p.PC = kStreamStop
	return sim.Lock(m.stream, "stopVStream: streamMu.Lock()")
}
