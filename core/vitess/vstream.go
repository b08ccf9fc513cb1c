package vitess

import (
	"strconv"

	"github.com/racetrack-sim/racetrack/core/sim"
)

// vstream is the binlog: each row event commits rows to the message
// table; while a vstream runs, its runOneVStream callback processes them.
// The program counters are declared in model.go.
var vstream = sim.Program[*Manager]{
	rEvent: {In: "binlog (between events)", Describe: func(m *Manager, w *sim.World, _ *sim.Proc, _ string) string {
		return "a row event commits; the vstream callback takes " + m.streamName(w)
	}, Do: func(m *Manager, w *sim.World, p *sim.Proc) sim.Action {
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
			return sim.Local(say(w, "binlog: ", strconv.Itoa(rows), " row(s) committed; no vstream runs"), m.eventGap(w))
		}
		m.evRows, m.evPending, m.evCtxDone = rows, 0, false
		if m.cfg.Delivery {
			m.evPending = rows
		}
		p.PC = rCheck
		// runOneVStream's callback: mm.streamMu.Lock(); defer Unlock
		return sim.Lock(m.stream, say(w, "runOneVStream: ", m.streamName(w), ".Lock()"))
	}},
	rCheck: {In: "runOneVStream", Says: "checks ctx; Add takes mu", Do: func(m *Manager, w *sim.World, p *sim.Proc) sim.Action {
		if m.evCtxDone {
			return m.endCallback(w, p, say(w, "runOneVStream: ctx done, return io.EOF; ", m.streamName(w), ".Unlock()"))
		}
		return m.nextRow(p)
	}},
	rRow: {In: "runOneVStream → processRowEvent", Says: "processes the next row", Do: func(m *Manager, w *sim.World, p *sim.Proc) sim.Action {
		return m.nextRow(p)
	}},
	rAddLock: {In: "runOneVStream → processRowEvent", Describe: fixedText("Add takes mu"), Do: func(m *Manager, w *sim.World, p *sim.Proc) sim.Action {
		p.PC = rAdd
		return sim.Lock(m.mu, "Add: mu.Lock()")
	}},
	rAdd: {In: "runOneVStream → processRowEvent → Add", Describe: fixedText("Add puts the row in the cache"), Do: func(m *Manager, w *sim.World, p *sim.Proc) sim.Action {
		// Add: if len(receivers) == 0 return false; cache.Add(row)
		m.evRows--
		if m.evStale && m.receivers() > 0 {
			m.stale = "the vstream callback adds a row of an event older than the lastPollPosition the poller set while it was past mustSkip: a stale requeue"
		}
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
	}},
	rAddUnlock: {In: "runOneVStream → processRowEvent → Add", Describe: fixedText("Add releases mu"), Do: func(m *Manager, w *sim.World, p *sim.Proc) sim.Action {
		return m.afterAdd(p, "Add: mu.Unlock()")
	}},
	rStreamUnlock: {In: "runOneVStream", Describe: func(m *Manager, w *sim.World, _ *sim.Proc, who string) string {
		return who + " releases " + m.streamName(w)
	}, Do: func(m *Manager, w *sim.World, p *sim.Proc) sim.Action {
		return m.endCallback(w, p, say(w, "runOneVStream: ", m.streamName(w), ".Unlock()"))
	}},
	rExit: {In: "ended", Describe: fixedText("the binlog ends for this manager"), Do: func(*Manager, *sim.World, *sim.Proc) sim.Action {
		return sim.Exit("binlog: no more row events for this manager")
	}},
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
	m.evRows, m.evPending, m.evCtxDone, m.evStale = 0, 0, false, false
	p.PC = rEvent
	return unlockAfter(m.stream, label, m.eventGap(w))
}
