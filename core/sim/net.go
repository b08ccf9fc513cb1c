package sim

import "fmt"

// Link is the behaviour of messages from one node to another.
type Link struct {
	Min, Max Time    // latency drawn uniformly in [Min, Max]
	Res      Time    // latency resolution (0: 1 µs)
	Drop     float64 // probability that a message is lost
	Dup      float64 // probability that a message is delivered twice
	FIFO     bool    // deliver in send order (a TCP connection)
	Down     bool    // partitioned: every message is lost
}

type network struct {
	n        int
	links    []Link
	lastFIFO []Time
	def      Link
	local    Link
}

func newNetwork() network {
	return network{def: Link{Min: Millisecond, Max: Millisecond, FIFO: true}, local: Link{FIFO: true}}
}

func (nw *network) grow(n int) {
	links := make([]Link, n*n)
	last := make([]Time, n*n)
	for a := 0; a < n; a++ {
		for b := 0; b < n; b++ {
			switch {
			case a < nw.n && b < nw.n:
				links[a*n+b] = nw.links[a*nw.n+b]
				last[a*n+b] = nw.lastFIFO[a*nw.n+b]
			case a == b:
				links[a*n+b] = nw.local
			default:
				links[a*n+b] = nw.def
			}
		}
	}
	nw.n, nw.links, nw.lastFIFO = n, links, last
}

// SetDefaultLink sets the link between every pair of distinct nodes
// (existing and future) and SetLocalLink the one between processes of the
// same node. Call them in Init before AddNode, or use SetLink.
func (w *World) SetDefaultLink(l Link) {
	w.net.def = l
	for a := 0; a < w.net.n; a++ {
		for b := 0; b < w.net.n; b++ {
			if a != b {
				w.net.links[a*w.net.n+b] = l
			}
		}
	}
}

// SetLocalLink sets the link between processes of one node.
func (w *World) SetLocalLink(l Link) {
	w.net.local = l
	for a := 0; a < w.net.n; a++ {
		w.net.links[a*w.net.n+a] = l
	}
}

// SetLink sets the link from a to b.
func (w *World) SetLink(a, b NodeID, l Link) { w.net.links[int(a)*w.net.n+int(b)] = l }

// LinkOf returns the link from a to b.
func (w *World) LinkOf(a, b NodeID) Link { return w.net.links[int(a)*w.net.n+int(b)] }

// Partition cuts both directions between a and b.
func (w *World) Partition(a, b NodeID) {
	w.cur.fault = true
	w.net.links[int(a)*w.net.n+int(b)].Down = true
	w.net.links[int(b)*w.net.n+int(a)].Down = true
}

// Heal restores both directions between a and b.
func (w *World) Heal(a, b NodeID) {
	w.cur.fault = true
	w.net.links[int(a)*w.net.n+int(b)].Down = false
	w.net.links[int(b)*w.net.n+int(a)].Down = false
}

// Connected reports whether messages from a can reach b.
func (w *World) Connected(a, b NodeID) bool {
	return !w.net.links[int(a)*w.net.n+int(b)].Down && !w.nodes[a].Down && !w.nodes[b].Down
}

// Crash stops node n: its processes stop, its pending events and the
// messages in flight to it are lost, its threads release nothing (the
// whole process is gone).
func (w *World) Crash(n NodeID) {
	w.cur.fault = true
	node := &w.nodes[n]
	if node.Down {
		return
	}
	node.Down = true
	node.Incarnation++
	w.crashes++
	for i := range w.procs {
		if w.procs[i].Node == n {
			w.procs[i].Status = Crashed
		}
	}
	for i := range w.mutexes {
		if w.mutexes[i].Node == n {
			w.mutexes[i].Holder, w.mutexes[i].Waiters = None, nil
		}
	}
	for i := range w.conds {
		if w.mutexes[w.conds[i].L].Node == n {
			w.conds[i].Waiters = nil
		}
	}
}

// Restart brings node n back with fresh processes; the model's Restart
// hook resets its state and schedules its first events.
func (w *World) Restart(n NodeID) {
	w.cur.fault = true
	node := &w.nodes[n]
	if !node.Down {
		return
	}
	node.Down = false
	for i := range w.procs {
		if w.procs[i].Node == n {
			p := &w.procs[i]
			p.Status, p.PC, p.BlockedOn, p.WaitingOn = Running, 0, None, None
		}
	}
	if w.caps.Restart == nil {
		w.Failf("node %s restarted but the model has no Restart hook", node.Name)
		return
	}
	w.caps.Restart(w.model, w, n)
}

// StartThread schedules the first step of a thread after d (used by
// Restart hooks to start a node's threads again).
func (w *World) StartThread(p ProcID, d Time) {
	w.schedule1(Event{At: w.delay(d), Proc: p, Kind: EvStep, Cause: -1})
}

// Send sends payload from process from to process to over the link between
// their nodes. The payload must be an immutable value.
func (w *World) Send(from, to ProcID, payload any) MsgID {
	a, b := w.procs[from].Node, w.procs[to].Node
	li := int(a)*w.net.n + int(b)
	l := &w.net.links[li]
	w.msgSeq++
	id := w.msgSeq
	if w.trace != nil {
		w.trace.messages.add(Message{ID: id, From: from, To: to, SentStep: int32(w.steps), SentAt: w.now,
			RecvStep: -1, Label: w.trace.intern(payloadLabel(payload))})
	}
	switch {
	case l.Down || w.nodes[b].Down:
		w.dropped(id, DropPartition)
		return id
	case l.Drop > 0 && w.Chance(l.Drop, "lose "+w.procs[from].Name+"→"+w.procs[to].Name+"?"):
		w.dropped(id, DropLost)
		return id
	}
	w.deliver(from, to, id, payload, li)
	if l.Dup > 0 && w.Chance(l.Dup, "duplicate "+w.procs[from].Name+"→"+w.procs[to].Name+"?") {
		w.deliver(from, to, id, payload, li)
	}
	return id
}

func (w *World) deliver(from, to ProcID, id MsgID, payload any, li int) {
	l := &w.net.links[li]
	res := l.Res
	if res == 0 {
		res = Microsecond
	}
	lat := l.Min
	if l.Max > l.Min && !w.untimed {
		lat = w.Between(l.Min, l.Max, res, "latency "+w.procs[from].Name+"→"+w.procs[to].Name)
	}
	at := w.now + w.delay(lat)
	if l.FIFO && at < w.net.lastFIFO[li] {
		at = w.net.lastFIFO[li]
	}
	if l.FIFO {
		w.net.lastFIFO[li] = at
	}
	if w.trace != nil {
		w.trace.Message(id).DeliverAt = at
	}
	w.schedule1(Event{At: at - w.now, Proc: to, Kind: EvDeliver, Msg: id, From: from, Payload: payload, Cause: int32(w.steps)})
}

func (w *World) dropped(id MsgID, why DropReason) {
	if w.trace != nil {
		m := w.trace.Message(id)
		m.Dropped, m.DropReason = true, why
	}
}

func payloadLabel(p any) string {
	if l, ok := p.(Labeler); ok {
		return l.Label()
	}
	return fmt.Sprintf("%T", p)
}
