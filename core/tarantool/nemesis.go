package tarantool

import (
	"github.com/racetrack-sim/racetrack/core/sim"
)

// nemesisState is the fault injector's memory: the slowed links and the
// position in the gh-5445 restart script.
type nemesisState struct {
	Slow    []bool // [a*n+b], a < b
	Step    int
	L, N, O int
	Done    bool
}

func (s nemesisState) clone() nemesisState {
	c := s
	c.Slow = append([]bool(nil), s.Slow...)
	return c
}

func (s *nemesisState) hashInto(h *sim.Hasher) {
	for _, v := range s.Slow {
		h.Bool(v)
	}
	h.Int(s.Step)
	h.Int(s.L)
	h.Int(s.N)
	h.Int(s.O)
	h.Bool(s.Done)
}

// startInstance is box.cfg on a fresh (or restarted) process: recover the
// persisted term and vote, start Raft (raft_sm_start), start the appliers.
func (m *Model) startInstance(w *sim.World, i int, first bool) {
	in := &m.Inst[i]
	in.Up = true
	in.VolTerm, in.VolVote = in.Term, in.Vote
	in.State = Follower
	if m.isEnabled(i) {
		m.raftStart(w, i)
	}
	for a := 0; a < m.n(); a++ {
		if a == i {
			continue
		}
		ap := m.applier(i, a)
		ap.Status, ap.Since = applierOff, w.Now()
		at := w.Between(0, 5*sim.Millisecond, 10*sim.Microsecond, "connect "+name(i)+"←"+name(a))
		if first && id(i) == m.cfg.LateFollower && id(a) == m.cfg.LateSource {
			at = m.cfg.LateSubscribeAt
		}
		ap.Connect = w.SetTimer(m.applierProc(i, a), at, tagConnect)
	}
}

// forgetVolatile is what instance i's tx thread loses in a crash: the
// WAL and the persisted term and vote stay.
func (m *Model) forgetVolatile(i int) {
	in := &m.Inst[i]
	in.Up = false
	in.State = 0
	in.Leader = 0
	in.VolTerm, in.VolVote = in.Term, in.Vote
	in.VoteMask, in.VoteCount = 0, 0
	in.IsWriteInProgress, in.WALBusy, in.IsBroadcastScheduled, in.WorkerScheduled = false, false, false, false
	in.Timer, in.TimerKind, in.TimerDue, in.WriteTimer = 0, timerNone, 0, 0
}

// breakConnections is a partition between a and b: both TCP connections
// break, so both relays stop and both appliers reconnect later. (The
// kernel would drop the messages silently; a TCP stream never loses a
// message in the middle and carries on.)
func (m *Model) breakConnections(w *sim.World, a, b int) {
	for _, p := range [2][2]int{{a, b}, {b, a}} {
		x, y := p[0], p[1]
		r := m.relay(x, y)
		if r.Phase != relayStopped {
			r.Phase = relayStopped
			m.cancel(w, &r.Tick)
			m.cancel(w, &r.Start)
		}
		m.relayExited(x, y)
		ap := m.applier(y, x)
		if ap.Status != applierOff {
			ap.Status, ap.Since = applierOff, w.Now()
		}
	}
}

// nemesisTable is the fault injector: random faults, or the gh-5445
// restart script.
var nemesisTable = sim.Handlers[*Model]{
	sim.OnStart("plans the first fault", func(m *Model, w *sim.World, p *sim.Proc) {
		switch {
		case m.cfg.Script == "gh-5445":
			w.SetTimer(p.ID, 100*sim.Millisecond, tagNemesis)
		case m.cfg.Faults > 0:
			next := sim.Time(float64(sim.Second) / m.cfg.Faults)
			w.SetTimer(p.ID, w.Between(next/2, next*3/2, sim.Millisecond, "time to first fault"), tagNemesis)
		}
	}),
	sim.OnTimer(tagNemesis, "injects the next fault", func(m *Model, w *sim.World, p *sim.Proc, _ sim.Fired) string {
		if m.cfg.Script == "gh-5445" {
			return m.scriptStep(w, p)
		}
		if w.Now() >= m.cfg.faultsStopAt() {
			return m.healAll(w)
		}
		did := m.randomFault(w)
		next := sim.Time(float64(sim.Second) / m.cfg.Faults)
		w.SetTimer(p.ID, w.Between(next/2, next*3/2, sim.Millisecond, "time to next fault"), tagNemesis)
		return did
	}),
}

type faultKind uint8

const (
	faultCrash faultKind = iota
	faultRestart
	faultPartition
	faultHeal
	faultSlow
	faultRestore
)

func (m *Model) randomFault(w *sim.World) string {
	n := m.n()
	var up, down []int
	for i := 0; i < n; i++ {
		if m.Inst[i].Up {
			up = append(up, i)
		} else {
			down = append(down, i)
		}
	}
	var cut, whole, slow, fast [][2]int
	for a := 0; a < n; a++ {
		for b := a + 1; b < n; b++ {
			if w.LinkOf(sim.NodeID(a), sim.NodeID(b)).Down {
				cut = append(cut, [2]int{a, b})
			} else {
				whole = append(whole, [2]int{a, b})
			}
			if m.Nemesis.Slow[a*n+b] {
				slow = append(slow, [2]int{a, b})
			} else {
				fast = append(fast, [2]int{a, b})
			}
		}
	}
	var kinds []faultKind
	if len(up) > 0 {
		kinds = append(kinds, faultCrash)
	}
	if len(down) > 0 {
		kinds = append(kinds, faultRestart)
	}
	if len(whole) > 0 {
		kinds = append(kinds, faultPartition)
	}
	if len(cut) > 0 {
		kinds = append(kinds, faultHeal)
	}
	if len(fast) > 0 {
		kinds = append(kinds, faultSlow)
	}
	if len(slow) > 0 {
		kinds = append(kinds, faultRestore)
	}
	if len(kinds) == 0 {
		return "nothing to do"
	}
	switch kinds[w.Choose(len(kinds), "fault kind")] {
	case faultCrash:
		i := up[w.Choose(len(up), "crash which")]
		m.crashInstance(w, i)
		return "crash " + name(i)
	case faultRestart:
		i := down[w.Choose(len(down), "restart which")]
		w.Restart(sim.NodeID(i))
		return "restart " + name(i)
	case faultPartition:
		pr := whole[w.Choose(len(whole), "partition which")]
		w.Partition(sim.NodeID(pr[0]), sim.NodeID(pr[1]))
		m.breakConnections(w, pr[0], pr[1])
		return "partition " + name(pr[0]) + " | " + name(pr[1])
	case faultHeal:
		pr := cut[w.Choose(len(cut), "heal which")]
		w.Heal(sim.NodeID(pr[0]), sim.NodeID(pr[1]))
		return "heal " + name(pr[0]) + " | " + name(pr[1])
	case faultSlow:
		pr := fast[w.Choose(len(fast), "slow which")]
		m.setSlow(w, pr[0], pr[1], true)
		return "slow link " + name(pr[0]) + " ↔ " + name(pr[1])
	default:
		pr := slow[w.Choose(len(slow), "restore which")]
		m.setSlow(w, pr[0], pr[1], false)
		return "restore link " + name(pr[0]) + " ↔ " + name(pr[1])
	}
}

// slowFactor is how much slower a slowed link is.
const slowFactor = 10

// setSlow multiplies a link's latency by slowFactor (or restores it), keeping
// its partition state and FIFO order.
func (m *Model) setSlow(w *sim.World, a, b int, slow bool) {
	m.Nemesis.Slow[a*m.n()+b] = slow
	l := m.link()
	if slow {
		l.Min, l.Max = l.Min*slowFactor, l.Max*slowFactor
	}
	for _, p := range [2][2]int{{a, b}, {b, a}} {
		x, y := sim.NodeID(p[0]), sim.NodeID(p[1])
		l.Down = w.LinkOf(x, y).Down
		w.SetLink(x, y, l)
	}
}

// link is the normal link between two instances: latency uniform in
// [L/2, 3L/2] at 10 µs, in order (a TCP connection).
func (m *Model) link() sim.Link {
	l := m.cfg.NetworkLatency
	return sim.Link{Min: l / 2, Max: l * 3 / 2, Res: 10 * sim.Microsecond, FIFO: true}
}

func (m *Model) healAll(w *sim.World) string {
	n := m.n()
	for a := 0; a < n; a++ {
		for b := a + 1; b < n; b++ {
			if w.LinkOf(sim.NodeID(a), sim.NodeID(b)).Down {
				w.Heal(sim.NodeID(a), sim.NodeID(b))
			}
			if m.Nemesis.Slow[a*n+b] {
				m.setSlow(w, a, b, false)
			}
		}
	}
	for i := 0; i < n; i++ {
		if !m.Inst[i].Up {
			w.Restart(sim.NodeID(i))
		}
	}
	m.Nemesis.Done = true
	return "faults over: heal every link, restart every instance"
}

// scriptStep plays test/replication/gh-5445-leader-inconsistency.test.lua
// (2.8 form) with drawn pauses between the steps: find the leader L, make
// N and O voters, stop N, stop L and O, start N as a candidate with quorum
// 1, start O as a voter, start L as a voter with quorum 3, make L a
// candidate, make N resign so that L wins with all three votes.
func (m *Model) scriptStep(w *sim.World, p *sim.Proc) string {
	s := &m.Nemesis
	next := func(lo, hi sim.Time) {
		w.SetTimer(p.ID, w.Between(lo, hi, sim.Millisecond, "script pause"), tagNemesis)
	}
	ms := sim.Millisecond
	switch s.Step {
	case 0:
		leader := -1
		for i := range m.Inst {
			if m.Inst[i].State == Leader {
				leader = i
			}
		}
		if leader < 0 {
			next(50*ms, 50*ms)
			return "wait for a leader"
		}
		s.L, s.N, s.O = leader, (leader+1)%m.n(), (leader+2)%m.n()
		m.setCandidate(w, s.N, false)
		m.setCandidate(w, s.O, false)
		s.Step++
		next(100*ms, 200*ms)
		return "L = " + name(s.L) + ": N = " + name(s.N) + ", O = " + name(s.O) + " become voters"
	case 1:
		m.crashInstance(w, s.N)
		s.Step++
		next(100*ms, 300*ms)
		return "stop N (" + name(s.N) + ")"
	case 2:
		m.crashInstance(w, s.L)
		m.crashInstance(w, s.O)
		s.Step++
		next(50*ms, 150*ms)
		return "stop L (" + name(s.L) + ") and O (" + name(s.O) + ")"
	case 3:
		m.Inst[s.N].Mode, m.Inst[s.N].Quorum = ModeCandidate, 1
		w.Restart(sim.NodeID(s.N))
		s.Step++
		next(100*ms, 500*ms)
		return "start N (" + name(s.N) + "): candidate, quorum 1"
	case 4:
		m.Inst[s.O].Mode, m.Inst[s.O].Quorum = ModeVoter, 1
		w.Restart(sim.NodeID(s.O))
		s.Step++
		next(100*ms, 500*ms)
		return "start O (" + name(s.O) + "): voter"
	case 5:
		m.Inst[s.L].Mode, m.Inst[s.L].Quorum = ModeVoter, 3
		w.Restart(sim.NodeID(s.L))
		s.Step++
		next(200*ms, 500*ms)
		return "start L (" + name(s.L) + "): voter, quorum 3"
	case 6:
		m.setCandidate(w, s.L, true)
		s.Step++
		next(50*ms, 200*ms)
		return "L (" + name(s.L) + ") becomes a candidate"
	case 7:
		m.setCandidate(w, s.N, false)
		s.Step++
		s.Done = true
		return "N (" + name(s.N) + ") resigns: voter"
	}
	return "script over"
}
