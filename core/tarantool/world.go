package tarantool

import (
	"github.com/racetrack-sim/racetrack/core/sim"
)

// Init builds the cluster: per instance a node with its tx thread, its
// relay threads (one per replica) and its appliers (one per master); a
// nemesis node for faults; then boots every instance.
func (m *Model) Init(w *sim.World) {
	n := m.n()
	w.SetDefaultLink(m.link())
	w.SetLocalLink(sim.Link{Min: cbusMin, Max: cbusMax, Res: 10 * sim.Microsecond, FIFO: true})
	m.Inst = make([]instance, n)
	m.Relays = make([]relay, n*n)
	m.Appliers = make([]applier, n*n)
	m.Nemesis.Slow = make([]bool, n*n)
	m.tx = make([]sim.ProcID, n)
	m.relayP = make([]sim.ProcID, n*n)
	m.applierP = make([]sim.ProcID, n*n)
	nodes := make([]sim.NodeID, n)
	for i := 0; i < n; i++ {
		nodes[i] = w.AddNode(name(i))
	}
	nem := w.AddNode("nemesis")
	for i := 0; i < n; i++ {
		m.tx[i] = m.addProc(w, nodes[i], name(i)+" tx", role{kind: roleTx, a: i})
		for b := 0; b < n; b++ {
			if b != i {
				m.relayP[i*n+b] = m.addProc(w, nodes[i], name(i)+" relay→"+name(b), role{kind: roleRelay, a: i, b: b})
			}
		}
		for a := 0; a < n; a++ {
			if a != i {
				m.applierP[i*n+a] = m.addProc(w, nodes[i], name(i)+" applier←"+name(a), role{kind: roleApplier, a: a, b: i})
			}
		}
	}
	m.nemesisP = m.addProc(w, nem, "nemesis", role{kind: roleNemesis})
	for i := 0; i < n; i++ {
		m.stateS = append(m.stateS, w.DefineSeries(name(i)+" raft state", "0 down, 1 follower, 2 candidate, 3 leader", name(i)))
		m.ignoredS = append(m.ignoredS, w.DefineSeries(name(i)+" rows ignored", "rows", name(i)))
		m.inFlightS = append(m.inFlightS, w.DefineSeries(name(i)+" raft msgs in flight", "messages", name(i)))
	}
	q := m.cfg.electionQuorum()
	for i := 0; i < n; i++ {
		m.Inst[i] = instance{Mode: m.cfg.Modes[i], Quorum: q, Term: 1, VolTerm: 1}
	}
	for i := 0; i < n; i++ {
		m.startInstance(w, i, true)
	}
	switch {
	case m.cfg.Script == "gh-5445":
		w.SetTimer(m.nemesisP, 100*sim.Millisecond, tagNemesis)
	case m.cfg.Faults > 0:
		next := sim.Time(float64(sim.Second) / m.cfg.Faults)
		w.SetTimer(m.nemesisP, w.Between(next/2, next*3/2, sim.Millisecond, "time to first fault"), tagNemesis)
	}
}

func (m *Model) addProc(w *sim.World, node sim.NodeID, pname string, r role) sim.ProcID {
	p := w.AddActor(node, -1, pname)
	for int(p) >= len(m.roles) {
		m.roles = append(m.roles, role{})
	}
	m.roles[p] = r
	return p
}

// Handle runs one step of one process.
func (m *Model) Handle(w *sim.World, p *sim.Proc, ev *sim.Event) sim.Action {
	r := m.roles[p.ID]
	m.resend = ""
	var did string
	switch r.kind {
	case roleTx:
		did = m.handleTx(w, ev, r.a)
	case roleRelay:
		did = m.handleRelay(w, p, ev, r.a, r.b)
	case roleApplier:
		did = m.handleApplier(w, p, ev, r.b, r.a)
	case roleNemesis:
		did = m.handleNemesis(w, p)
	}
	if ev.Kind == sim.EvDeliver && w.Trace() != nil {
		did = label(ev.Payload) + ": " + did
	}
	m.sample(w)
	return sim.Local(did, 0)
}

func label(p any) string {
	if l, ok := p.(sim.Labeler); ok {
		return l.Label()
	}
	return "message"
}

// handleTx runs one step of instance a's tx thread.
func (m *Model) handleTx(w *sim.World, ev *sim.Event, a int) string {
	in := &m.Inst[a]
	if ev.Kind == sim.EvTimer {
		switch ev.Timer {
		case tagWorker:
			return "raft worker: " + m.worker(w, a)
		case tagWAL:
			return "raft_write done: " + m.walDone(w, a)
		case tagElection:
			return m.electionTimer(w, a, ev)
		case tagWrite:
			if ev.TimerID != in.WriteTimer {
				return "stale timer"
			}
			return m.writeRow(w, a)
		}
		return "unknown timer"
	}
	from := m.roles[ev.From]
	switch msg := ev.Payload.(type) {
	case subscribeMsg:
		return m.processSubscribe(w, a, from.b, msg)
	case enableMsg:
		if msg.Epoch != m.relay(a, from.b).Epoch {
			return "stale"
		}
		return m.setIsRaftEnabled(w, a, from.b, msg)
	case raftReturnMsg:
		return m.raftMsgReturn(w, a, from.b)
	case relayExitMsg:
		if msg.Epoch != m.relay(a, from.b).Epoch {
			return "stale"
		}
		m.relayExited(a, from.b)
		return "relay for " + name(from.b) + " stopped"
	}
	return "unexpected message"
}

// sample records the series (a no-op when the value did not change).
func (m *Model) sample(w *sim.World) {
	n := m.n()
	for i := 0; i < n; i++ {
		in := &m.Inst[i]
		w.Sample(m.stateS[i], float64(in.State))
		ignored, flight := 0, 0
		for a := 0; a < n; a++ {
			if a != i {
				ignored += m.applier(i, a).Ignored
				flight += m.relay(i, a).InFlight
			}
		}
		w.Sample(m.ignoredS[i], float64(ignored))
		w.Sample(m.inFlightS[i], float64(flight))
	}
}
