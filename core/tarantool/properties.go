package tarantool

import (
	"github.com/racetrack-sim/racetrack/core/sim"
)

// Property names.
const (
	PropOneLeader   = "one-leader-per-term"
	PropLearnLeader = "followers-learn-leader"
	PropApplyRows   = "followers-apply-leader-rows"
	PropEarlyPush   = "raft-push-before-enabled"
	PropNoResend    = "rows-not-resent"
)

// properties are the model's properties, declared once: the kernel checks
// them (Properties) and the catalog lists them (Scenario).
var properties = sim.Props[*Model]{
	sim.Always(PropOneLeader, "no two instances ever become leader of the same term",
		func(_ *sim.World, m *Model) bool { return m.twoLeaders() == "" },
		func(_ *sim.World, m *Model) string { return m.twoLeaders() }),
	sim.Eventually(PropLearnLeader,
		"once an instance leads a term and a follower is subscribed to it over a working link, the follower knows that leader within a few relay round trips",
		func(m *Model) sim.Time { return m.cfg.learnDeadline() },
		func(w *sim.World, m *Model) (bool, sim.Time) {
			ob, ok := m.learnObligation(w)
			return ok, ob.since
		},
		func(w *sim.World, m *Model) string { return m.explainLearn(w) }).
		About(func(w *sim.World, m *Model) []sim.NodeID { ob, ok := m.learnObligation(w); return ob.nodes(ok) }),
	sim.Eventually(PropApplyRows,
		"when writes stop, every follower subscribed to the leader over a working link reaches the leader's vclock within a few relay round trips",
		func(m *Model) sim.Time { return m.cfg.applyDeadline() },
		func(w *sim.World, m *Model) (bool, sim.Time) {
			ob, ok := m.applyObligation(w)
			return ok, ob.since
		},
		func(w *sim.World, m *Model) string { return m.explainApply(w) }).
		About(func(w *sim.World, m *Model) []sim.NodeID { ob, ok := m.applyObligation(w); return ob.nodes(ok) }),
	sim.Always(PropNoResend,
		"a relay never sends a replica a row at or below the vclock the replica subscribed with: a recovery restart resumes where the replica stands, which 660f3323b9 ensures by starting recv_vclock at the replica's vclock (\"recv_vclock is used by recovery restart and must always be valid\")",
		func(_ *sim.World, m *Model) bool { return m.resend == "" },
		func(_ *sim.World, m *Model) string { return m.resend }),
	sim.Sometimes(PropEarlyPush,
		"a Raft update is pushed to a relay whose thread has not enabled Raft yet: the window of seed 004, in every variant",
		func(_ *sim.World, m *Model) bool { return m.earlyPush() >= 0 },
		func(_ *sim.World, m *Model) string {
			i := m.earlyPush()
			a, b := i/m.n(), i%m.n()
			return "a Raft update for " + name(b) + " reached " + name(a) + "'s relay before its thread enabled Raft"
		}),
}

// Properties lists what must hold, and the window the bug needs.
func (m *Model) Properties() []sim.Property { return properties.Of(m) }

// earlyPush is the index of the first relay that got a Raft update
// before Raft was enabled on it, or -1.
func (m *Model) earlyPush() int {
	for i := range m.Relays {
		if m.Relays[i].Early > 0 {
			return i
		}
	}
	return -1
}

// twoLeaders describes a broken one-leader-per-term, or returns "".
func (m *Model) twoLeaders() string {
	if m.Conflict != "" {
		return m.Conflict
	}
	for a := range m.Inst {
		for b := a + 1; b < len(m.Inst); b++ {
			x, y := &m.Inst[a], &m.Inst[b]
			if x.Up && y.Up && x.State == Leader && y.State == Leader && x.Term == y.Term {
				return name(a) + " and " + name(b) + " are both leader of term " + itoa(x.Term)
			}
		}
	}
	return ""
}

// obligation is an outstanding liveness duty of follower f towards
// leader l, outstanding since since.
type obligation struct {
	l, f  int
	since sim.Time
}

// nodes are the leader and the follower of an outstanding obligation.
func (ob obligation) nodes(outstanding bool) []sim.NodeID {
	if !outstanding {
		return nil
	}
	return []sim.NodeID{sim.NodeID(ob.l), sim.NodeID(ob.f)}
}

// subscribedTo reports whether follower f is subscribed to an up leader
// l over a link that works both ways, and since when: f's applier follows
// and l's relay for f runs on the same connection.
func (m *Model) subscribedTo(w *sim.World, l, f int) (sim.Time, bool) {
	ap := m.applier(f, l)
	r := m.relay(l, f)
	if !m.Inst[f].Up || ap.Status != applierFollow || r.Phase == relayStopped || r.Epoch != ap.Epoch ||
		!w.Connected(sim.NodeID(l), sim.NodeID(f)) || !w.Connected(sim.NodeID(f), sim.NodeID(l)) {
		return 0, false
	}
	return ap.Since, true
}

// leaders lists the up instances that are leader, with raft enabled.
func (m *Model) leaders() []int {
	var out []int
	for i := range m.Inst {
		if in := &m.Inst[i]; in.Up && in.State == Leader && m.isEnabled(i) {
			out = append(out, i)
		}
	}
	return out
}

// oldestObligation finds, over every leader l and follower f subscribed
// to it that has not moved on to a later term and for which owes(l, f)
// holds, the pair whose obligation began first: when f subscribed, when l
// became leader, or at from, whichever is latest.
func (m *Model) oldestObligation(w *sim.World, from sim.Time, owes func(l, f int) bool) (obligation, bool) {
	best, found := obligation{}, false
	for _, l := range m.leaders() {
		L := &m.Inst[l]
		for f := range m.Inst {
			if f == l || m.Inst[f].VolTerm > L.Term || !owes(l, f) {
				continue
			}
			sub, ok := m.subscribedTo(w, l, f)
			if !ok {
				continue
			}
			since := max(sub, L.LeaderSince, from)
			if !found || since < best.since {
				best, found = obligation{l: l, f: f, since: since}, true
			}
		}
	}
	return best, found
}

// learnObligation finds the oldest follower that takes part in Raft and
// does not know its leader.
func (m *Model) learnObligation(w *sim.World) (obligation, bool) {
	return m.oldestObligation(w, 0, func(l, f int) bool { return m.isEnabled(f) && m.Inst[f].Leader != id(l) })
}

func (m *Model) explainLearn(w *sim.World) string {
	ob, ok := m.learnObligation(w)
	if !ok {
		return "every follower knows its leader"
	}
	L, F := &m.Inst[ob.l], &m.Inst[ob.f]
	r := m.relay(ob.l, ob.f)
	s := name(ob.f) + " (" + F.Mode.String() + ", term " + itoa(F.VolTerm) + ", leader " + leaderName(F.Leader) + ") still does not know that " +
		name(ob.l) + " leads term " + itoa(L.Term) + ", " + (w.Now() - ob.since).String() + " after the obligation began (deadline " +
		m.cfg.learnDeadline().String() + "); it ignored " + itoa(m.applier(ob.f, ob.l).Ignored) + " row(s) from " + name(ob.l)
	if r.Dropped > 0 {
		s += "; relay " + name(ob.l) + "→" + name(ob.f) + " dropped " + itoa(r.Dropped) + " Raft push(es) before Raft was enabled on it"
	}
	return s
}

// applyObligation finds the oldest follower that lags behind its leader
// after writes stopped.
func (m *Model) applyObligation(w *sim.World) (obligation, bool) {
	stop := m.cfg.writesStopAt()
	if w.Now() < stop {
		return obligation{}, false
	}
	return m.oldestObligation(w, stop, func(l, f int) bool { return !m.Inst[f].Vclock.Ge(m.Inst[l].Vclock) })
}

func (m *Model) explainApply(w *sim.World) string {
	ob, ok := m.applyObligation(w)
	if !ok {
		return "every follower caught up"
	}
	L, F := &m.Inst[ob.l], &m.Inst[ob.f]
	return name(ob.f) + " is at vclock " + F.Vclock.format(m.n()) + ", leader " + name(ob.l) + " at " + L.Vclock.format(m.n()) + ", " +
		(w.Now() - ob.since).String() + " after writes stopped (deadline " + m.cfg.applyDeadline().String() + "); " +
		itoa(m.applier(ob.f, ob.l).Ignored) + " row(s) from " + name(ob.l) + " were ignored (leader known to " + name(ob.f) + ": " + leaderName(F.Leader) + ")"
}
