package vitess

import (
	"strconv"

	"github.com/racetrack-sim/racetrack/core/sim"
)

// poller is runPoller on every tick of pollerTicks. The program counters
// are declared in model.go.
var poller = sim.Program[*Manager]{
	pTick: {In: "pollerTicks (idle)", Describe: fixedText("pollerTicks fires: runPoller starts"), Do: func(m *Manager, w *sim.World, p *sim.Proc) sim.Action {
		if m.pollerStopped {
			return sim.Exit("pollerTicks stopped: the timer goroutine returned")
		}
		m.tickStart = w.Now()
		p.PC = pFastLock
		return sim.Lock(m.ticks, "pollerTicks: tick; runPoller()")
	}},
	pFastLock: {In: "runPoller", Describe: describeFastLock, Do: func(m *Manager, w *sim.World, p *sim.Proc) sim.Action {
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
	}},
	pFastRead: {In: "runPoller → receiverCount", Says: "reads len(receivers) and releases mu", Do: func(m *Manager, w *sim.World, p *sim.Proc) sim.Action {
		n := m.receivers()
		if n == 0 {
			p.PC = pReturn
			return sim.Unlock(m.mu, "receiverCount: 0 receivers; mu.Unlock(); return")
		}
		// The gap: mu is released before streamMu is taken.
		p.PC = pStreamLock
		if m.cfg.UnlockedPoller {
			p.PC = pRead // the wrong fix: readPending without streamMu
		}
		return sim.Unlock(m.mu, say(w, "receiverCount: ", strconv.Itoa(n), " receivers; mu.Unlock()"))
	}},
	pStreamLock: {In: "runPoller", Says: "takes streamMu", Do: func(m *Manager, w *sim.World, p *sim.Proc) sim.Action {
		p.PC = pRead
		if !m.cfg.Timed {
			p.PC = pMuLock // readPending has no effect of its own untimed
		}
		return sim.Lock(m.stream, "runPoller: streamMu.Lock()")
	}},
	pMuLockFixed: {In: "runPoller", Says: "takes mu", Do: func(m *Manager, w *sim.World, p *sim.Proc) sim.Action {
		p.PC = pCheckFixed
		return sim.Lock(m.mu, "runPoller: mu.Lock()")
	}},
	pCheckFixed: {In: "runPoller", Says: "checks len(receivers)", Do: func(m *Manager, w *sim.World, p *sim.Proc) sim.Action {
		if m.receivers() == 0 {
			p.PC = pStreamUnlock
			return sim.Unlock(m.mu, "runPoller: len(receivers) == 0; mu.Unlock()")
		}
		if !m.cfg.Timed {
			return m.pollerAdd(w, p)
		}
		return m.readPending(w, p)
	}},
	pRead: {In: "runPoller → readPending", Says: "runs readPending", Do: func(m *Manager, w *sim.World, p *sim.Proc) sim.Action {
		return m.readPending(w, p)
	}},
	pMuLock: {In: "runPoller", Says: "takes mu", Do: func(m *Manager, w *sim.World, p *sim.Proc) sim.Action {
		p.PC = pAdd
		return sim.Lock(m.mu, "runPoller: mu.Lock()")
	}},
	pAdd: {In: "runPoller", Says: "adds the rows to the cache", Do: func(m *Manager, w *sim.World, p *sim.Proc) sim.Action {
		return m.pollerAdd(w, p)
	}},
	pMuUnlock: {In: "runPoller", Says: "releases mu", Do: func(m *Manager, w *sim.World, p *sim.Proc) sim.Action {
		p.PC = m.afterPollerMu()
		return sim.Unlock(m.mu, "runPoller: mu.Unlock()")
	}},
	pStreamUnlock: {In: "runPoller", Describe: func(m *Manager, w *sim.World, _ *sim.Proc, who string) string {
		return who + " releases " + m.streamName(w)
	}, Do: func(m *Manager, w *sim.World, p *sim.Proc) sim.Action {
		p.PC = pReturn
		return sim.Unlock(m.stream, say(w, "runPoller: ", m.streamName(w), ".Unlock()"))
	}},
	pReturn: {In: "runPoller", Describe: fixedText("runPoller returns to pollerTicks"), Do: func(m *Manager, w *sim.World, p *sim.Proc) sim.Action {
		p.PC = pTick
		if m.ticksLeft > 0 {
			m.ticksLeft--
			if m.ticksLeft == 0 {
				p.PC = pExit
			}
		}
		// timer.Timer.run is not a ticker: it arms a new time.Timer of
		// one interval after keephouse (runPoller) returns, so a slow
		// poll pushes the next one back.
		return unlockAfter(m.ticks, "runPoller returned", m.cfg.PollerInterval)
	}},
	pExit: {In: "stopped", Describe: fixedText("pollerTicks' goroutine ends"), Do: func(*Manager, *sim.World, *sim.Proc) sim.Action {
		return sim.Exit("pollerTicks stopped: the timer goroutine returned")
	}},
}

// fixedText describes a step in words that do not start with the
// goroutine's name.
func fixedText(s string) func(*Manager, *sim.World, *sim.Proc, string) string {
	return func(*Manager, *sim.World, *sim.Proc, string) string { return s }
}

func describeFastLock(m *Manager, w *sim.World, _ *sim.Proc, who string) string {
	if m.cfg.Fixed {
		return who + " takes " + m.streamName(w)
	}
	return who + " takes mu (receiverCount)"
}

// readPending is the poller's query (buggy: streamMu held; fixed: both
// locks held). Its context times out after one poller interval: then
// runPoller returns and its defers release the locks.
func (m *Manager) readPending(w *sim.World, p *sim.Proc) sim.Action {
	m.snapshot(w)
	if m.cfg.ReadPendingCost >= m.cfg.PollerInterval {
		m.polling = false
		p.PC = m.afterPollerMu()
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
	if !m.polling {
		m.snapshot(w) // untimed: the read and the add are one step
	}
	m.polling = false
	rows := min(m.stored+m.cached, cacheSize)
	if m.cfg.Delivery {
		m.messagesPending = rows >= cacheSize
	}
	if m.receivers() == 0 {
		p.PC = m.afterPollerMu()
		return sim.Unlock(m.mu, "runPoller: len(receivers) == 0 (almost never reachable); mu.Unlock()")
	}
	add := min(m.stored, cacheSize-m.cached)
	if m.readDirty && add > 0 {
		m.stale = "runPoller adds " + strconv.Itoa(add) + " row(s) from a snapshot read before a send's cache.Discard postponed rows: a stale requeue"
	}
	m.readDirty = false
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
	p.PC = m.afterPollerMu()
	return sim.Unlock(m.mu, "runPoller: cache.Add(rows); mu.Unlock()")
}

// afterPollerMu is where runPoller goes once it lets go of mu: release
// the stream lock, or, in the wrong fix that never took it, return.
func (m *Manager) afterPollerMu() int {
	if m.cfg.UnlockedPoller {
		return pReturn
	}
	return pStreamUnlock
}

// snapshot is the poller's read: readPending sets lastPollPosition. A
// vstream callback past its mustSkip check now holds rows older than it.
func (m *Manager) snapshot(w *sim.World) {
	m.polling, m.readDirty = true, false
	switch w.Proc(m.vstream).PC {
	case rRow, rAddLock, rAdd, rAddUnlock:
		m.evStale = m.evRows > 0
	}
}
