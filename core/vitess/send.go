package vitess

import (
	"strconv"

	"github.com/racetrack-sim/racetrack/core/sim"
)

// runSend holds mu except inside cond.Wait and its yield, and hands each
// batch to the receiver's send goroutine. The program counters are
// declared in model.go.
var runSend = sim.Program[*Manager]{
	sLock: {In: "runSend", Says: "takes mu", Do: func(m *Manager, w *sim.World, p *sim.Proc) sim.Action {
		p.PC = sLoop
		return sim.Lock(m.mu, "runSend: mu.Lock()")
	}},
	sLoop: {In: "runSend", Says: "pops a batch for the current receiver, or waits on cond", Do: func(m *Manager, w *sim.World, p *sim.Proc) sim.Action {
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
			return sim.Signal(m.recvCond[r], say(w, "runSend: go send(", name, ")"))
		}
		p.PC = sLock
		return sim.Unlock(m.mu, say(w, "runSend: go send(", name, "); mu.Unlock()"))
	}},
	sYield: {In: "runSend", Says: "releases mu", Do: func(m *Manager, w *sim.World, p *sim.Proc) sim.Action {
		p.PC = sLock
		return sim.Unlock(m.mu, "runSend: mu.Unlock()")
	}},
	sExit: {In: "runSend", Says: "returns", Do: func(*Manager, *sim.World, *sim.Proc) sim.Action {
		return sim.Exit("runSend returned")
	}},
}

// send is the send goroutine of one receiver. Upstream runSend starts a
// new goroutine per batch; here one thread per receiver waits for its
// batch on the receiver's cond (bound to mu) between sends.
var send = sim.Program[*Manager]{
	dLock: {In: "send (idle)", Says: "waits for a batch", Do: func(m *Manager, w *sim.World, p *sim.Proc) sim.Action {
		p.PC = dIdle
		return sim.Lock(m.mu, "send: wait for a batch; mu.Lock()")
	}},
	dIdle: {In: "send (idle)", Says: "takes its batch", Do: func(m *Manager, w *sim.World, p *sim.Proc) sim.Action {
		i := m.sender(p.ID)
		if m.batch[i] > 0 {
			m.sending[i], m.batch[i] = m.batch[i], 0
			p.PC = dWrite
			return sim.Unlock(m.mu, say(w, "go send(): ", strconv.Itoa(m.sending[i]), " row(s); mu.Unlock()"))
		}
		if !m.isOpen {
			p.PC = dExit
			return sim.Unlock(m.mu, "send: manager closed; mu.Unlock()")
		}
		return sim.Wait(m.recvCond[i], "send: wait for a batch")
	}},
	dWrite: {In: "send → receiver.Send", Says: "writes to the client", Do: func(m *Manager, w *sim.World, p *sim.Proc) sim.Action {
		p.PC = dDone
		return sim.Local("send: receiver.Send(rows); postpone", m.cfg.SendCost)
	}},
	dDone: {In: "send (deferred busy reset)", Says: "takes mu to reset busy", Do: func(m *Manager, w *sim.World, p *sim.Proc) sim.Action {
		// The client acks what it received; a cancelled receiver's Send
		// returns io.EOF and the rows stay in the table.
		i := m.sender(p.ID)
		if m.subscribed[i] && m.isOpen {
			m.delivered += m.sending[i]
			m.progressSince = w.Now()
		} else {
			m.sendFailed[i] = true
		}
		p.PC = dBusy
		return sim.Lock(m.mu, "send (deferred busy reset): mu.Lock()")
	}},
	dBusy: {In: "send (deferred busy reset)", Says: "resets busy", Do: func(m *Manager, w *sim.World, p *sim.Proc) sim.Action {
		m.busy[m.sender(p.ID)] = false
		if m.curReceiver == -1 && m.rescan(-1) && m.waiting(w, m.cond) {
			p.PC = dBusyUnlock
			return sim.Broadcast(m.cond, "send: busy = false; rescanReceivers: cond.Broadcast()")
		}
		p.PC = dDiscardLock
		return sim.Unlock(m.mu, "send: busy = false; mu.Unlock()")
	}},
	dBusyUnlock: {In: "send (deferred busy reset)", Says: "releases mu", Do: func(m *Manager, w *sim.World, p *sim.Proc) sim.Action {
		p.PC = dDiscardLock
		return sim.Unlock(m.mu, "send: mu.Unlock()")
	}},
	dDiscardLock: {In: "send (deferred cache.Discard)", Describe: func(m *Manager, w *sim.World, _ *sim.Proc, who string) string {
		return who + " takes " + m.streamName(w) + " for cache.Discard"
	}, Do: func(m *Manager, w *sim.World, p *sim.Proc) sim.Action {
		p.PC = dDiscard
		return sim.Lock(m.stream, say(w, "send (deferred cache.Discard): ", m.streamName(w), ".Lock()"))
	}},
	dDiscard: {In: "send (deferred cache.Discard)", Describe: func(m *Manager, w *sim.World, _ *sim.Proc, who string) string {
		return who + " discards the rows and releases " + m.streamName(w)
	}, Do: func(m *Manager, w *sim.World, p *sim.Proc) sim.Action {
		i := m.sender(p.ID)
		if m.polling && m.sending[i] > 0 {
			m.readDirty = true // cache.Discard between the poller's read and its Add
		}
		if m.sendFailed[i] {
			m.stored += m.sending[i]
		}
		m.sending[i], m.sendFailed[i] = 0, false
		p.PC = dLock
		return sim.Unlock(m.stream, say(w, "send: cache.Discard(ids); ", m.streamName(w), ".Unlock()"))
	}},
	dExit: {In: "returned", Says: "ends", Do: func(*Manager, *sim.World, *sim.Proc) sim.Action {
		return sim.Exit("send goroutines end with the manager")
	}},
}
