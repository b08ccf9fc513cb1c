package tarantool

import (
	"github.com/racetrack-sim/racetrack/core/sim"
)

// View shows each instance's Raft state and data, each relay's Raft
// plumbing and each applier's connection.
func (m *Model) View(w *sim.World) sim.View {
	var v sim.View
	n := m.n()
	for i := range m.Inst {
		in := &m.Inst[i]
		state := in.State.String()
		if !in.Up {
			state = "down"
		}
		timer := timerNames[in.TimerKind]
		if in.TimerKind != timerNone {
			timer += " until " + in.TimerDue.String()
		}
		ignored := 0
		for a := 0; a < n; a++ {
			if a != i {
				ignored += m.applier(i, a).Ignored
			}
		}
		v.Groups = append(v.Groups, sim.Group{ID: name(i), Title: name(i) + " (" + in.Mode.String() + ")", Node: sim.NodeID(i), Fields: []sim.Field{
			{Name: "term", Value: itoa(in.Term) + volatile(in.VolTerm, in.Term)},
			{Name: "vote", Value: leaderName(in.Vote) + volatileVote(in.VolVote, in.Vote)},
			{Name: "state", Value: state},
			{Name: "leader", Value: leaderName(in.Leader)},
			{Name: "votes", Value: itoa(in.VoteCount) + "/" + itoa(in.Quorum)},
			{Name: "raft write", Value: yesNo(in.IsWriteInProgress)},
			{Name: "timer", Value: timer},
			{Name: "vclock", Value: in.Vclock.format(n)},
			{Name: "rows ignored", Value: itoa(ignored), Unit: "rows"},
		}})
		for b := 0; b < n; b++ {
			if b == i {
				continue
			}
			r := m.relay(i, b)
			fields := []sim.Field{
				{Name: "relay", Value: relayPhaseNames[r.Phase]},
				{Name: "raft enabled", Value: yesNo(r.IsRaftEnabled)},
				{Name: "in flight", Value: itoa(r.InFlight), Unit: "messages"},
			}
			switch m.cfg.Variant {
			case Drop:
				fields = append(fields, sim.Field{Name: "pushes lost", Value: itoa(r.Dropped)})
			case Pending, Merged, MergedWithoutRecvVclock:
				fields = append(fields,
					sim.Field{Name: "pending", Value: yesNo(r.PushPending) + pendingReq(r.PushPending, r.Msgs[r.ReadyMsg])},
					sim.Field{Name: "ready msg", Value: itoa(r.ReadyMsg)})
			case PendingAlloc:
				fields = append(fields, sim.Field{Name: "pending", Value: yesNo(r.HasSaved) + pendingReq(r.HasSaved, r.Saved)})
			}
			fields = append(fields, sim.Field{Name: "recovery at", Value: r.Cursor.format(n)},
				sim.Field{Name: "recv vclock", Value: r.Recv.format(n)})
			v.Groups = append(v.Groups, sim.Group{ID: name(i) + "-relay-" + name(b), Title: name(i) + " relay → " + name(b), Node: sim.NodeID(i), Fields: fields})
		}
		for a := 0; a < n; a++ {
			if a == i {
				continue
			}
			ap := m.applier(i, a)
			v.Groups = append(v.Groups, sim.Group{ID: name(i) + "-applier-" + name(a), Title: name(i) + " applier ← " + name(a), Node: sim.NodeID(i), Fields: []sim.Field{
				{Name: "status", Value: applierStatusNames[ap.Status]},
				{Name: "rows ignored", Value: itoa(ap.Ignored), Unit: "rows"},
			}})
		}
	}
	return v
}

func volatile(v, p int) string {
	if v == p {
		return ""
	}
	return " (volatile " + itoa(v) + ")"
}

func volatileVote(v, p int) string {
	if v == p {
		return ""
	}
	return " (volatile " + leaderName(v) + ")"
}

func pendingReq(has bool, r raftReq) string {
	if !has {
		return ""
	}
	return " " + r.String()
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}
