package tarantool

import (
	"github.com/racetrack-sim/racetrack/core/sim"
)

// Timer tags.
const (
	tagWorker   = 1 // the Raft worker fiber wakes up (raft_schedule_async)
	tagWAL      = 2 // a raft_write finished
	tagElection = 3 // raft->timer fired
	tagWrite    = 4 // the leader's client writes a row
	tagConnect  = 10
	tagApplTick = 11
	tagRelStart = 20
	tagRelTick  = 21
	tagNemesis  = 30
)

func (m *Model) isEnabled(i int) bool   { return m.Inst[i].Mode != ModeOff }
func (m *Model) isCandidate(i int) bool { return m.Inst[i].Mode == ModeCandidate }

// fullyOnDisk mirrors raft_is_fully_on_disk.
func (m *Model) fullyOnDisk(i int) bool {
	in := &m.Inst[i]
	return in.VolTerm == in.Term && in.VolVote == in.Vote
}

// checkpointRemote mirrors raft_checkpoint_remote: persisted term and
// vote, current state, the vclock only from a candidate.
func (m *Model) checkpointRemote(i int) raftReq {
	in := &m.Inst[i]
	req := raftReq{Term: in.Term, Vote: in.Vote, State: in.State, N: m.n()}
	if in.State == Candidate {
		req.HasVclock, req.Vclock = true, in.Vclock
	}
	return req
}

// scheduleAsync mirrors raft_schedule_async: wake the worker fiber, which
// runs in a later step of the tx thread. A worker blocked in raft_write
// continues by itself when the write ends.
func (m *Model) scheduleAsync(w *sim.World, i int) {
	in := &m.Inst[i]
	if in.WorkerScheduled || in.WALBusy {
		return
	}
	in.WorkerScheduled = true
	w.SetTimer(m.tx[i], 0, tagWorker)
}

// scheduleBroadcast mirrors raft_schedule_broadcast.
func (m *Model) scheduleBroadcast(w *sim.World, i int) {
	m.Inst[i].IsBroadcastScheduled = true
	m.scheduleAsync(w, i)
}

func (m *Model) timerStop(w *sim.World, i int) {
	in := &m.Inst[i]
	if in.Timer != 0 {
		w.CancelTimer(in.Timer)
	}
	in.Timer, in.TimerKind, in.TimerDue = 0, timerNone, 0
}

func (m *Model) timerStart(w *sim.World, i int, kind timerKind, d sim.Time) {
	m.timerStop(w, i)
	in := &m.Inst[i]
	in.Timer = w.SetTimer(m.tx[i], d, tagElection)
	in.TimerKind, in.TimerDue = kind, w.Now()+d
}

// waitLeaderDead mirrors raft_sm_wait_leader_dead.
func (m *Model) waitLeaderDead(w *sim.World, i int) {
	m.timerStart(w, i, timerLeaderDead, m.cfg.deathTimeout())
}

// waitLeaderFound mirrors raft_sm_wait_leader_found.
func (m *Model) waitLeaderFound(w *sim.World, i int) {
	m.timerStart(w, i, timerLeaderFound, m.cfg.deathTimeout())
}

// waitElectionEnd mirrors raft_sm_wait_election_end: the election timeout
// plus raft_new_random_election_shift, a whole number of milliseconds in
// [0, floor(10 % of the timeout)], drawn through the chooser.
func (m *Model) waitElectionEnd(w *sim.World, i int) {
	spread := int(m.cfg.ElectionTimeout/sim.Millisecond) / 10
	if spread < 1 {
		spread = 1
	}
	shift := sim.Time(w.Choose(spread+1, "election jitter "+name(i))) * sim.Millisecond
	m.timerStart(w, i, timerElectionEnd, m.cfg.ElectionTimeout+shift)
}

// pauseAndDump mirrors raft_sm_pause_and_dump: a follower with its timer
// stopped until the volatile state is on disk.
func (m *Model) pauseAndDump(w *sim.World, i int) {
	in := &m.Inst[i]
	if in.IsWriteInProgress {
		return
	}
	m.timerStop(w, i)
	m.scheduleAsync(w, i)
	in.IsWriteInProgress = true
}

// scheduleNewTerm mirrors raft_sm_schedule_new_term.
func (m *Model) scheduleNewTerm(w *sim.World, i, term int) {
	in := &m.Inst[i]
	in.VolTerm = term
	in.VolVote = 0
	in.Leader = 0
	in.State = Follower
	m.stopWrites(w, i)
	m.pauseAndDump(w, i)
	m.scheduleBroadcast(w, i)
}

// scheduleNewVote mirrors raft_sm_schedule_new_vote: nothing is broadcast
// until the vote is persisted.
func (m *Model) scheduleNewVote(w *sim.World, i, vote int) {
	m.Inst[i].VolVote = vote
	m.pauseAndDump(w, i)
}

// scheduleNewElection mirrors raft_sm_schedule_new_election: bump the term
// and vote for self, both volatile until one WAL write.
func (m *Model) scheduleNewElection(w *sim.World, i int) {
	in := &m.Inst[i]
	term := in.Term + 1
	if term <= in.VolTerm {
		term = in.VolTerm + 1
	}
	m.scheduleNewTerm(w, i, term)
	m.scheduleNewVote(w, i, id(i))
}

// becomeLeader mirrors raft_sm_become_leader.
func (m *Model) becomeLeader(w *sim.World, i int) {
	in := &m.Inst[i]
	in.State = Leader
	in.Leader = id(i)
	in.LeaderSince = w.Now()
	m.timerStop(w, i)
	m.recordLeader(i)
	m.startWrites(w, i)
	m.scheduleBroadcast(w, i)
}

// followLeader mirrors raft_sm_follow_leader.
func (m *Model) followLeader(w *sim.World, i, leader int) {
	in := &m.Inst[i]
	in.State = Follower
	in.Leader = leader
	if !in.IsWriteInProgress && m.isCandidate(i) {
		m.timerStop(w, i)
		m.waitLeaderDead(w, i)
	}
	m.scheduleBroadcast(w, i)
}

// becomeCandidate mirrors raft_sm_become_candidate.
func (m *Model) becomeCandidate(w *sim.World, i int) {
	in := &m.Inst[i]
	in.State = Candidate
	in.VoteCount = 1
	in.VoteMask = 1 << id(i)
	m.waitElectionEnd(w, i)
	m.scheduleBroadcast(w, i)
}

// raftStart mirrors raft_sm_start (box.cfg with election_mode != off, at
// boot and after a restart).
func (m *Model) raftStart(w *sim.World, i int) {
	in := &m.Inst[i]
	switch {
	case in.IsWriteInProgress, !m.isCandidate(i):
	case in.Leader != 0:
		m.waitLeaderDead(w, i)
	default:
		m.waitLeaderFound(w, i)
	}
	m.scheduleBroadcast(w, i)
}

// setCandidate mirrors raft_cfg_is_candidate (box.cfg{election_mode}
// between voter and candidate).
func (m *Model) setCandidate(w *sim.World, i int, candidate bool) {
	in := &m.Inst[i]
	if in.Mode == ModeOff {
		return
	}
	was := in.Mode == ModeCandidate
	if candidate {
		in.Mode = ModeCandidate
	} else {
		in.Mode = ModeVoter
	}
	if was == candidate {
		return
	}
	if candidate {
		switch {
		case in.IsWriteInProgress:
		case in.Leader != 0:
			m.waitLeaderDead(w, i)
		default:
			m.waitLeaderFound(w, i)
		}
		return
	}
	if in.State != Leader {
		m.timerStop(w, i)
	}
	if in.State != Follower {
		if in.State == Leader {
			in.Leader = 0
			m.stopWrites(w, i)
		}
		in.State = Follower
		m.scheduleBroadcast(w, i)
	}
}

// processHeartbeat mirrors raft_process_heartbeat: any packet from the
// known leader re-arms a candidate follower's death timer.
func (m *Model) processHeartbeat(w *sim.World, i, source int) {
	in := &m.Inst[i]
	if !m.isCandidate(i) || in.State == Leader || in.Leader != source || in.IsWriteInProgress {
		return
	}
	m.waitLeaderDead(w, i)
}

// processMsg mirrors raft_process_msg on instance i for a message from
// instance id source. It returns a word for the trace.
func (m *Model) processMsg(w *sim.World, i int, req raftReq, source int) string {
	in := &m.Inst[i]
	if req.Term < in.VolTerm {
		return "outdated term, ignored"
	}
	what := ""
	if req.Term > in.VolTerm {
		m.scheduleNewTerm(w, i, req.Term)
		what = "new term " + itoa(req.Term)
	}
	if req.Vote != 0 {
		switch in.State {
		case Follower, Leader:
			switch {
			case !m.isEnabled(i):
				what = join(what, "vote skipped: raft disabled")
			case in.Leader != 0:
				what = join(what, "vote skipped: leader known")
			case req.Vote == id(i):
				what = join(what, "vote skipped: for self")
			case req.State != Candidate:
				// A report of a vote for a third node, not a request.
			case in.VolVote != 0:
				what = join(what, "vote skipped: already voted")
			case !req.Vclock.Ge(in.Vclock):
				what = join(what, "vote skipped: vclock not acceptable")
			default:
				m.scheduleNewVote(w, i, req.Vote)
				what = join(what, "vote for i"+itoa(req.Vote))
			}
		case Candidate:
			if req.Vote != id(i) {
				what = join(what, "competing candidate")
				break
			}
			if in.VoteMask&(1<<source) == 0 {
				in.VoteMask |= 1 << source
				in.VoteCount++
			}
			if in.VoteCount < in.Quorum {
				what = join(what, "vote count "+itoa(in.VoteCount)+"/"+itoa(in.Quorum))
				break
			}
			m.becomeLeader(w, i)
			what = join(what, "become leader ("+itoa(in.VoteCount)+"/"+itoa(in.Quorum)+" votes)")
		}
	}
	if req.State != Leader {
		if source == in.Leader {
			in.Leader = 0
			what = join(what, "leader resigned")
			if m.isCandidate(i) {
				m.scheduleNewElection(w, i)
			}
		}
		return orNothing(what)
	}
	switch {
	case source == in.Leader:
	case in.Leader != 0:
		what = join(what, "conflicting leader ignored")
	default:
		m.followLeader(w, i, source)
		what = join(what, "follow leader i"+itoa(source))
	}
	return orNothing(what)
}

func join(a, b string) string {
	if b == "" {
		return a
	}
	if a == "" {
		return b
	}
	return a + "; " + b
}

func orNothing(s string) string {
	if s == "" {
		return "nothing to do"
	}
	return s
}

// worker mirrors raft_process_async, the worker fiber of box/raft.c: it
// dumps the state (raft_worker_handle_io) and broadcasts it
// (raft_worker_handle_broadcast). It stops while a raft_write is
// outstanding and continues in walDone.
func (m *Model) worker(w *sim.World, i int) string {
	in := &m.Inst[i]
	in.WorkerScheduled = false
	did := ""
	for {
		idle := true
		if in.IsWriteInProgress {
			if in.WALBusy {
				return orNothing(did)
			}
			if !m.fullyOnDisk(i) {
				m.startWrite(w, i)
				return join(did, "raft_write {term "+itoa(in.WALTerm)+", vote "+itoa(in.WALVote)+"}")
			}
			did = join(did, m.endDump(w, i))
			idle = false
		}
		if in.IsBroadcastScheduled {
			did = join(did, m.broadcast(w, i))
			idle = false
		}
		if idle {
			return orNothing(did)
		}
	}
}

func (m *Model) startWrite(w *sim.World, i int) {
	in := &m.Inst[i]
	in.WALBusy = true
	in.WALTerm, in.WALVote = in.VolTerm, in.VolVote
	w.SetTimer(m.tx[i], m.cfg.WALDelay, tagWAL)
}

// walDone is the second half of raft_worker_handle_io: the write is on
// disk, the persisted state changed and is broadcast.
func (m *Model) walDone(w *sim.World, i int) string {
	in := &m.Inst[i]
	in.WALBusy = false
	in.Term, in.Vote = in.WALTerm, in.WALVote
	in.IsBroadcastScheduled = true
	did := "persisted {term " + itoa(in.Term) + ", vote " + itoa(in.Vote) + "}"
	if !m.fullyOnDisk(i) {
		did = join(did, m.broadcast(w, i))
		m.startWrite(w, i)
		return join(did, "raft_write again")
	}
	did = join(did, m.endDump(w, i))
	return join(did, m.worker(w, i))
}

// endDump is the end_dump branch of raft_worker_handle_io: the state is
// stable, decide what to wait for.
func (m *Model) endDump(w *sim.World, i int) string {
	in := &m.Inst[i]
	in.IsWriteInProgress = false
	switch {
	case !m.isCandidate(i):
		return ""
	case in.Leader != 0:
		m.waitLeaderDead(w, i)
		return ""
	case in.Vote == id(i):
		if in.Quorum == 1 {
			m.becomeLeader(w, i)
			return "become leader (quorum 1)"
		}
		m.becomeCandidate(w, i)
		return "become candidate"
	case in.Vote != 0:
		m.waitElectionEnd(w, i)
		return ""
	}
	m.scheduleNewVote(w, i, id(i))
	return "vote for self"
}

// broadcast mirrors raft_worker_handle_broadcast and box_raft_broadcast:
// relay_push_raft for every replica.
func (m *Model) broadcast(w *sim.World, i int) string {
	in := &m.Inst[i]
	in.IsBroadcastScheduled = false
	req := m.checkpointRemote(i)
	lost := ""
	for b := 0; b < m.n(); b++ {
		if b != i && !m.pushRaft(w, i, b, req) {
			lost += " " + name(b)
		}
	}
	s := "broadcast " + req.String()
	if lost != "" {
		s += "; dropped for" + lost + ": relay Raft not enabled"
	}
	return s
}

// electionTimer mirrors raft_sm_schedule_new_election_cb.
func (m *Model) electionTimer(w *sim.World, i int, timer int64) string {
	in := &m.Inst[i]
	if timer != in.Timer {
		return "stale timer"
	}
	kind := in.TimerKind
	in.Timer, in.TimerKind, in.TimerDue = 0, timerNone, 0
	m.scheduleNewElection(w, i)
	return timerNames[kind] + " timed out: new election, term " + itoa(in.VolTerm)
}

// recordLeader keeps the ghost history behind one-leader-per-term.
func (m *Model) recordLeader(i int) {
	t := m.Inst[i].Term
	for _, l := range m.Leaders {
		if l.Term == t {
			if l.Leader != id(i) && m.Conflict == "" {
				m.Conflict = "i" + itoa(l.Leader) + " and i" + itoa(id(i)) + " both became leader of term " + itoa(t)
			}
			return
		}
	}
	m.Leaders = append(m.Leaders, termLeader{Term: t, Leader: id(i)})
	for k := len(m.Leaders) - 1; k > 0 && m.Leaders[k].Term < m.Leaders[k-1].Term; k-- {
		m.Leaders[k], m.Leaders[k-1] = m.Leaders[k-1], m.Leaders[k]
	}
}

// startWrites arms the client writing to a new leader; stopWrites stops
// it (box is read-only when raft is enabled and the node is not leader).
func (m *Model) startWrites(w *sim.World, i int) {
	in := &m.Inst[i]
	if in.WriteTimer != 0 || m.cfg.WriteRate <= 0 || w.Now() >= m.cfg.writesStopAt() {
		return
	}
	in.WriteTimer = w.SetTimer(m.tx[i], m.writePeriod(), tagWrite)
}

func (m *Model) stopWrites(w *sim.World, i int) {
	in := &m.Inst[i]
	if in.WriteTimer != 0 {
		w.CancelTimer(in.WriteTimer)
		in.WriteTimer = 0
	}
}

func (m *Model) writePeriod() sim.Time {
	return sim.Time(float64(sim.Second) / m.cfg.WriteRate)
}

// writeRow is a client transaction on the leader: one row into the WAL,
// then the WAL watcher wakes the streaming relays.
func (m *Model) writeRow(w *sim.World, i int) string {
	in := &m.Inst[i]
	in.WriteTimer = 0
	if in.State != Leader || w.Now() >= m.cfg.writesStopAt() {
		return "read-only: no write"
	}
	in.Vclock[id(i)]++
	r := row{Origin: int8(id(i)), LSN: in.Vclock[id(i)]}
	in.WAL = append(in.WAL, r)
	m.walEvent(w, i, m.tx[i])
	in.WriteTimer = w.SetTimer(m.tx[i], m.writePeriod(), tagWrite)
	return "write row i" + itoa(id(i)) + ":" + itoa(int(r.LSN))
}

// walEvent wakes the relays of instance i that watch the WAL.
func (m *Model) walEvent(w *sim.World, i int, from sim.ProcID) {
	for b := 0; b < m.n(); b++ {
		if b != i && m.relay(i, b).Phase == relayStreaming {
			w.Send(from, m.relayProc(i, b), walEventMsg{})
		}
	}
}
