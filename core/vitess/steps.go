package vitess

import (
	"strings"

	"github.com/racetrack-sim/racetrack/core/sim"
)

// program returns goroutine p's program.
func (m *Manager) program(p sim.ProcID) sim.Program[*Manager] {
	switch {
	case p == m.poller:
		return poller
	case p == m.vstream:
		return vstream
	case p == m.closer:
		return closer
	case p == m.runSend:
		return runSend
	case m.client(p) >= 0:
		return client
	}
	return send
}

// Handle runs the next step of goroutine p.
func (m *Manager) Handle(w *sim.World, p *sim.Proc, _ *sim.Event) sim.Action {
	m.window, m.stale = 0, ""
	a := m.program(p.ID).Run(m, w, p)
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

// say joins parts into a step's label, when w records a trace (the
// only place labels go: a search builds none).
func say(w *sim.World, parts ...string) string {
	if !w.Tracing() {
		return ""
	}
	return strings.Join(parts, "")
}

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
