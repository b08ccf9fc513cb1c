package vitess

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/racetrack-sim/racetrack/core/sim"
)

// properties are the manager's properties, declared once: the kernel
// checks them (Properties) and the catalog lists them (Scenario).
var properties = sim.Props[*Manager]{
	sim.NoDeadlockProp[*Manager]("no cycle of goroutines each holding the mutex the next one waits for, and no goroutine blocked forever"),
	sim.Eventually(CloseCompletes, "Close returns within closeDeadline after it starts (PlannedReparentShard waits for it). Bounded to the message manager's locks and, with engineMutex, engine.mu around Subscribe and Close: the schema engine's notifier (notifierMu, schemaChanged) is not modelled, so the later Engine.Close vs schemaChanged deadlock (vitessio/vitess#17229, fixed by PR #17230) is outside what the fixed variant is shown to avoid",
		func(m *Manager) sim.Time { return m.cfg.CloseDeadline },
		func(_ *sim.World, m *Manager) (bool, sim.Time) {
			return m.closeStarted && !m.closeReturned, m.closeStartAt
		},
		func(w *sim.World, m *Manager) string {
			return fmt.Sprintf("Close started at %s and is still blocked at %s (PlannedReparentShard hangs): %s",
				m.closeStartAt, w.Now(), m.stuck(w, w.Proc(m.closer)))
		}),
	sim.Eventually(DeliveryProgress, "while clients are subscribed (or subscribing) and rows wait in the table or the cache, a message is delivered within 2 poller intervals + readPending + 2 s",
		func(m *Manager) sim.Time { return m.cfg.DeliverDeadline },
		func(_ *sim.World, m *Manager) (bool, sim.Time) { return m.progressDue, m.progressSince },
		func(w *sim.World, m *Manager) string {
			return fmt.Sprintf("%d receiver(s) subscribed or subscribing and %d row(s) waiting, but nothing delivered for %s: %s",
				m.wanting(w), m.stored+m.cached, w.Now()-m.progressSince, m.stuck(w, m.proc(w, m.runSend)))
		}),
	sim.Always(NoStaleRequeue, "the poller's snapshot and its cache.Add are not separated by a send's cache.Discard, and no vstream row older than lastPollPosition is added: what streamMu (cacheManagementMu) protects",
		func(_ *sim.World, m *Manager) bool { return m.stale == "" },
		func(_ *sim.World, m *Manager) string { return m.stale }),
	sim.Sometimes(LastLeavesUnderStream, "the last receiver leaves while runPoller or the vstream callback holds streamMu (cacheManagementMu): the situation #9936 needs, in every variant",
		func(_ *sim.World, m *Manager) bool { return m.window != 0 },
		func(w *sim.World, m *Manager) string { return m.windowText(w) }),
}

// Properties: no lock cycle, Close returns, messages keep flowing, and
// the last receiver can leave while the stream lock is held.
func (m *Manager) Properties() []sim.Property { return properties.Of(m) }

// proc returns process id, or nil for sim.None.
func (m *Manager) proc(w *sim.World, id sim.ProcID) *sim.Proc {
	if id == sim.None {
		return nil
	}
	return w.Proc(id)
}

// Property names.
const (
	CloseCompletes   = "close-completes"
	DeliveryProgress = "delivery-progress"
	// NoStaleRequeue is what the stream lock protects.
	NoStaleRequeue = "no-stale-requeue"
	// LastLeavesUnderStream is the Sometimes property of the bug's window.
	LastLeavesUnderStream = "last-leaves-under-stream-lock"
)

// actor names goroutine p by what it runs now: "unsubscribe(c2)",
// "runPoller", "runOneVStream".
// windowText describes the step that opened the window (m.window): the
// stream lock's holder is still the one it removed the last receiver
// under, as the text is read of the state that step left.
func (m *Manager) windowText(w *sim.World) string {
	if m.window == 0 {
		return ""
	}
	h := w.Mutex(m.stream).Holder
	return clientName(int(m.window-1)) + " removed the last receiver while " + m.actor(w, w.Proc(h)) + " holds " + m.streamName(w)
}

func (m *Manager) actor(w *sim.World, p *sim.Proc) string {
	if i := m.client(p.ID); i >= 0 {
		switch {
		case p.PC >= cSubLock && p.PC <= cEngineUnlock:
			return "Subscribe(" + clientName(i) + ")"
		case p.PC >= cUnsubLock && p.PC <= cUnsubClear:
			return "unsubscribe(" + clientName(i) + ")"
		}
		return clientName(i)
	}
	if p.ID == m.vstream && p.PC != rEvent && p.PC != rExit {
		return "runOneVStream"
	}
	return p.Name
}

// ProcLabel names goroutines in the kernel's deadlock reports by what
// they run now, so that a cycle reads "unsubscribe(c2) holds mu, waits for
// streamMu; runPoller holds streamMu, waits for mu".
func (m *Manager) ProcLabel(w *sim.World, p sim.ProcID) string { return m.actor(w, w.Proc(p)) }

// Explain describes the first lock cycle in the model's words, or the
// goroutines still blocked, or "" when none is.
func (m *Manager) Explain(w *sim.World) string {
	var blocked []string
	for i := range w.Procs() {
		p := &w.Procs()[i]
		if p.Status != sim.Blocked {
			continue
		}
		if c := m.cycle(w, p); c != "" {
			return c
		}
		blocked = append(blocked, m.stuck(w, p))
	}
	return strings.Join(blocked, " | ")
}

// cycle returns the wait-for cycle through p, or "".
func (m *Manager) cycle(w *sim.World, p *sim.Proc) string {
	var parts []string
	q := p
	for range w.Procs() {
		if q.Status != sim.Blocked {
			return ""
		}
		mx := w.Mutex(q.BlockedOn)
		parts = append(parts, m.actor(w, q)+" holds "+m.held(w, q.ID)+", waits for "+mx.Name)
		if mx.Holder == sim.None {
			return ""
		}
		if mx.Holder == p.ID {
			return strings.Join(parts, "; ")
		}
		q = w.Proc(mx.Holder)
	}
	return ""
}

// function is the upstream function goroutine p is in (for a blocked
// goroutine: the one whose lock it waits for).
func (m *Manager) function(w *sim.World, p *sim.Proc) string {
	if p.Status == sim.Done {
		return "returned"
	}
	return m.program(p.ID).In(p.PC)
}

// stuck says why goroutine p cannot go on, following the chain of lock
// holders in the model's words ("unsubscribe(c2) holds mu, waits for
// streamMu; runPoller holds streamMu, waits for mu").
func (m *Manager) stuck(w *sim.World, p *sim.Proc) string {
	if p == nil || p.Status != sim.Blocked {
		if p != nil && p.Status == sim.Waiting {
			return m.actor(w, p) + " waits on " + w.Conds()[p.WaitingOn].Name
		}
		if p != nil {
			return m.actor(w, p) + " is in " + m.function(w, p)
		}
		return "no runSend in this configuration"
	}
	var parts []string
	seen := map[sim.ProcID]bool{}
	q := p
	for q != nil && q.Status == sim.Blocked && !seen[q.ID] {
		seen[q.ID] = true
		mx := w.Mutex(q.BlockedOn)
		held := m.held(w, q.ID)
		s := m.actor(w, q)
		if held != "" {
			s += " holds " + held + ","
		}
		s += " waits for " + mx.Name + " in " + m.function(w, q)
		parts = append(parts, s)
		if mx.Holder == sim.None {
			break
		}
		q = w.Proc(mx.Holder)
	}
	if q != nil && q.Status != sim.Blocked {
		parts = append(parts, m.actor(w, q)+" holds "+m.held(w, q.ID)+" in "+m.function(w, q))
	}
	return strings.Join(parts, "; ")
}

// held lists the mutexes p holds.
func (m *Manager) held(w *sim.World, p sim.ProcID) string {
	var names []string
	for _, mx := range w.Mutexes() {
		if mx.Holder == p {
			names = append(names, mx.Name)
		}
	}
	return strings.Join(names, " and ")
}

// Describe says what a pending event would do, in the model's words.
func (m *Manager) Describe(w *sim.World, ev *sim.Event) string {
	p := w.Proc(ev.Proc)
	who := m.actor(w, p)
	if ev.Kind == sim.EvAcquire {
		if mu := w.Mutex(ev.Mutex); mu.Kind == sim.MutexGo {
			return who + " tries " + mu.Name + " again (woken)"
		}
		return who + " gets " + w.Mutex(ev.Mutex).Name
	}
	return m.program(p.ID).Describe(m, w, p, who)
}

// View shows the manager, its locks and each goroutine.
func (m *Manager) View(w *sim.World) sim.View {
	var subs []string
	for i, s := range m.subscribed {
		if s {
			subs = append(subs, clientName(i))
		}
	}
	cur := "none"
	if m.curReceiver >= 0 {
		cur = clientName(m.curReceiver)
	}
	inflight := 0
	for i := range m.batch {
		inflight += m.batch[i] + m.sending[i]
	}
	mgr := sim.Group{ID: "messageManager", Title: "messageManager", Fields: []sim.Field{
		{Name: "isOpen", Value: strconv.FormatBool(m.isOpen)},
		{Name: "receivers", Value: fmt.Sprintf("%d [%s]", len(subs), strings.Join(subs, " "))},
		{Name: "curReceiver", Value: cur},
		{Name: "streaming", Value: strconv.FormatBool(m.streaming)},
		{Name: "messagesPending", Value: strconv.FormatBool(m.messagesPending)},
		{Name: "cache", Value: strconv.Itoa(m.cached), Unit: "rows"},
		{Name: "table (not in cache, not sent)", Value: strconv.Itoa(m.stored), Unit: "rows"},
		{Name: "in flight", Value: strconv.Itoa(inflight), Unit: "rows"},
		{Name: "delivered", Value: strconv.Itoa(m.delivered), Unit: "messages"},
		{Name: "pollerTicks", Value: map[bool]string{true: "stopped", false: "running"}[m.pollerStopped]},
	}}
	locks := sim.Group{ID: "locks", Title: "locks"}
	for _, mx := range w.Mutexes() {
		v := "free"
		if mx.Holder != sim.None {
			v = "held by " + m.actor(w, w.Proc(mx.Holder))
		}
		if len(mx.Waiters) > 0 {
			var ws []string
			for _, q := range mx.Waiters {
				ws = append(ws, m.actor(w, w.Proc(q)))
			}
			v += "; waiting: " + strings.Join(ws, ", ")
		}
		locks.Fields = append(locks.Fields, sim.Field{Name: mx.Name, Value: v})
	}
	for _, c := range w.Conds() {
		var ws []string
		for _, q := range c.Waiters {
			ws = append(ws, m.actor(w, w.Proc(q)))
		}
		locks.Fields = append(locks.Fields, sim.Field{Name: c.Name + " waiters", Value: strings.Join(ws, ", ")})
	}
	if e := m.Explain(w); e != "" {
		locks.Fields = append(locks.Fields, sim.Field{Name: "wait-for", Value: e})
	}
	v := sim.View{Groups: []sim.Group{mgr, locks}}
	next := map[sim.ProcID]string{}
	for _, e := range w.Pending() {
		if _, ok := next[e.Proc]; !ok {
			next[e.Proc] = m.Describe(w, &e)
		}
	}
	for i := range w.Procs() {
		p := &w.Procs()[i]
		status := p.Status.String()
		switch p.Status {
		case sim.Blocked:
			status = "blocked on " + w.Mutex(p.BlockedOn).Name
		case sim.Waiting:
			status = "waiting on " + w.Conds()[p.WaitingOn].Name
		}
		fields := []sim.Field{{Name: "in", Value: m.function(w, p)}, {Name: "status", Value: status}}
		if d, ok := next[p.ID]; ok {
			fields = append(fields, sim.Field{Name: "next", Value: d})
		}
		if held := m.held(w, p.ID); held != "" {
			fields = append(fields, sim.Field{Name: "holds", Value: held})
		}
		v.Groups = append(v.Groups, sim.Group{ID: p.Name, Title: p.Name, Node: p.Node, Fields: fields})
	}
	return v
}
