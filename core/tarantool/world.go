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
		m.tx[i] = m.addProc(w, nodes[i], name(i)+" tx", txTable, role{a: i})
		for b := 0; b < n; b++ {
			if b != i {
				m.relayP[i*n+b] = m.addProc(w, nodes[i], name(i)+" relay→"+name(b), relayTable, role{a: i, b: b})
			}
		}
		for a := 0; a < n; a++ {
			if a != i {
				m.applierP[i*n+a] = m.addProc(w, nodes[i], name(i)+" applier←"+name(a), applierTable, role{a: a, b: i})
			}
		}
	}
	m.nemesisP = m.addProc(w, nem, "nemesis", nemesisTable, role{})
	for i := 0; i < n; i++ {
		m.stateS = append(m.stateS, w.DefineSeries(name(i)+" raft state", "0 down, 1 follower, 2 candidate, 3 leader", name(i)))
		m.ignoredS = append(m.ignoredS, w.DefineSeries(name(i)+" rows ignored", "rows", name(i)))
		m.inFlightS = append(m.inFlightS, w.DefineSeries(name(i)+" raft msgs in flight", "messages", name(i)))
	}
	q := m.cfg.electionQuorum()
	for i := 0; i < n; i++ {
		m.Inst[i] = instance{Mode: m.cfg.Modes[i], Quorum: q, Term: 1, VolTerm: 1}
	}
	m.actors.Start(m, w)
}

func (m *Model) addProc(w *sim.World, node sim.NodeID, pname string, table sim.Handlers[*Model], r role) sim.ProcID {
	p := m.actors.Add(w, node, -1, pname, table)
	for int(p) >= len(m.roles) {
		m.roles = append(m.roles, role{})
	}
	m.roles[p] = r
	return p
}

// Handle runs one step of one process, in the words of its table; the
// series follow every step.
func (m *Model) Handle(w *sim.World, p *sim.Proc, ev *sim.Event) sim.Action {
	m.resend = ""
	did := m.actors.Handle(m, w, p, ev)
	m.sample(w)
	return did
}

// Describe says what a pending event would do, in its table's words.
func (m *Model) Describe(w *sim.World, ev *sim.Event) string { return m.actors.Describe(m, w, ev) }

// Restart is the kernel's hook after w.Restart: box.cfg again.
func (m *Model) Restart(w *sim.World, n sim.NodeID) { m.actors.Restart(m, w, n) }

// crashInstance kills instance i: the kernel drops its processes, timers
// and the messages on their way to it; each thread forgets (its table's
// crash row) what was not on disk.
func (m *Model) crashInstance(w *sim.World, i int) { m.actors.Crash(m, w, sim.NodeID(i)) }

// txTable is an instance's tx thread: the Raft machine (its worker, WAL
// writes and timer), the leader's client, and the tx side of each relay.
var txTable = sim.Handlers[*Model]{
	sim.On("runs box_process_subscribe", func(m *Model, w *sim.World, p *sim.Proc, msg sim.Msg[subscribeMsg]) string {
		return m.processSubscribe(w, m.roles[p.ID].a, m.roles[msg.From].b, msg.Body)
	}),
	sim.On("runs tx_set_is_raft_enabled", func(m *Model, w *sim.World, p *sim.Proc, msg sim.Msg[enableMsg]) string {
		a, b := m.roles[p.ID].a, m.roles[msg.From].b
		if msg.Body.Epoch != m.relay(a, b).Epoch {
			return "stale"
		}
		return m.setIsRaftEnabled(w, a, b, msg.Body)
	}),
	sim.On("takes a Raft message back (tx_raft_msg_return)", func(m *Model, w *sim.World, p *sim.Proc, msg sim.Msg[raftReturnMsg]) string {
		return m.raftMsgReturn(w, m.roles[p.ID].a, m.roles[msg.From].b)
	}),
	sim.On("learns that a relay exited", func(m *Model, w *sim.World, p *sim.Proc, msg sim.Msg[relayExitMsg]) string {
		a, b := m.roles[p.ID].a, m.roles[msg.From].b
		if msg.Body.Epoch != m.relay(a, b).Epoch {
			return "stale"
		}
		m.relayExited(a, b)
		return "relay for " + name(b) + " stopped"
	}),
	sim.OnTimer(tagWorker, "runs the Raft worker: persists or broadcasts the state", func(m *Model, w *sim.World, p *sim.Proc, _ sim.Fired) string {
		return "raft worker: " + m.worker(w, m.roles[p.ID].a)
	}),
	sim.OnTimer(tagWAL, "finishes a raft_write", func(m *Model, w *sim.World, p *sim.Proc, _ sim.Fired) string {
		return "raft_write done: " + m.walDone(w, m.roles[p.ID].a)
	}),
	sim.OnTimer(tagElection, "times out: new election", func(m *Model, w *sim.World, p *sim.Proc, t sim.Fired) string {
		return m.electionTimer(w, m.roles[p.ID].a, t.ID)
	}).Describing(func(m *Model, w *sim.World, ev *sim.Event, who string) string {
		return who + ": " + timerNames[m.Inst[m.roles[ev.Proc].a].TimerKind] + " times out, new election"
	}),
	sim.OnTimer(tagWrite, "writes a client row", func(m *Model, w *sim.World, p *sim.Proc, t sim.Fired) string {
		a := m.roles[p.ID].a
		if t.ID != m.Inst[a].WriteTimer {
			return "stale timer"
		}
		return m.writeRow(w, a)
	}),
	sim.OnStart("boots (box.cfg)", func(m *Model, w *sim.World, p *sim.Proc) { m.startInstance(w, m.roles[p.ID].a, true) }),
	sim.OnRestart("boots again (box.cfg)", func(m *Model, w *sim.World, p *sim.Proc) { m.startInstance(w, m.roles[p.ID].a, false) }),
	sim.OnCrash("loses its volatile Raft state", func(m *Model, w *sim.World, p *sim.Proc) { m.forgetVolatile(m.roles[p.ID].a) }),
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
