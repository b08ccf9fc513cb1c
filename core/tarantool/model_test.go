package tarantool

import (
	"strings"
	"testing"

	"github.com/racetrack-sim/racetrack/core/scenario"
	"github.com/racetrack-sim/racetrack/core/sim"
)

func testConfig(v Variant) Config {
	return Config{Variant: v, Instances: 3, Modes: []Mode{ModeCandidate, ModeVoter, ModeVoter}, Quorum: 3,
		ElectionTimeout: 400 * sim.Millisecond, ReplicationTimeout: 100 * sim.Millisecond, RelayEnableDelay: 10 * sim.Millisecond,
		NetworkLatency: sim.Millisecond, WALDelay: sim.Millisecond / 2, WriteRate: 20, Script: "none", LateSource: 1,
		Duration: 1500 * sim.Millisecond}
}

// newWorld builds a traced world at step 0 (Init done, nothing run).
func newWorld(t *testing.T, cfg Config, seed uint64) (*sim.World, *Model) {
	t.Helper()
	m, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	w := sim.NewWorld(m, seed, sim.NewRandomChooser(seed), sim.Options{Trace: true})
	return w, w.Model().(*Model)
}

func candidateReq(term, from int, vc Vclock) raftReq {
	return raftReq{Term: term, Vote: from, State: Candidate, HasVclock: true, Vclock: vc, N: 3}
}

// TestRaftProcessMsg checks raft_process_msg's rules on instance i2 (a
// voter) and i1 (the candidate).
func TestRaftProcessMsg(t *testing.T) {
	cases := []struct {
		name     string
		setup    func(m *Model)
		to       int
		req      raftReq
		from     int
		wantVote int
		wantLead int
		wantTerm int
		wantWord string
	}{
		{name: "higher term and vote request in one message", to: 1, req: candidateReq(2, 1, Vclock{}), from: 1,
			wantVote: 1, wantTerm: 2, wantWord: "new term 2; vote for i1"},
		{name: "already voted in this term", to: 1, setup: func(m *Model) { m.Inst[1].VolTerm, m.Inst[1].VolVote = 2, 3 },
			req: candidateReq(2, 1, Vclock{}), from: 1, wantVote: 3, wantTerm: 2, wantWord: "already voted"},
		{name: "leader already known", to: 1, setup: func(m *Model) { m.Inst[1].VolTerm, m.Inst[1].Leader = 2, 3 },
			req: candidateReq(2, 1, Vclock{}), from: 1, wantLead: 3, wantTerm: 2, wantWord: "leader known"},
		{name: "incomparable vclock", to: 1, setup: func(m *Model) { m.Inst[1].Vclock = Vclock{0, 0, 1, 0} },
			req: candidateReq(2, 1, Vclock{0, 1, 0, 0}), from: 1, wantTerm: 2, wantWord: "vclock not acceptable"},
		{name: "outdated term ignored, even a leader", to: 1, setup: func(m *Model) { m.Inst[1].VolTerm = 5 },
			req: raftReq{Term: 4, Vote: 1, State: Leader}, from: 1, wantTerm: 5, wantWord: "outdated term"},
		{name: "report of a vote for a third node is not a request", to: 1,
			req: raftReq{Term: 1, Vote: 3, State: Follower}, from: 1, wantTerm: 1, wantWord: "nothing to do"},
		{name: "leader message followed when no leader is known", to: 1,
			req: raftReq{Term: 1, Vote: 1, State: Leader}, from: 1, wantLead: 1, wantTerm: 1, wantWord: "follow leader i1"},
		{name: "conflicting leader ignored", to: 1, setup: func(m *Model) { m.Inst[1].Leader = 3 },
			req: raftReq{Term: 1, Vote: 1, State: Leader}, from: 1, wantLead: 3, wantTerm: 1, wantWord: "conflicting leader"},
		{name: "off instance follows but never votes", to: 1, setup: func(m *Model) { m.Inst[1].Mode = ModeOff },
			req: candidateReq(1, 1, Vclock{}), from: 1, wantTerm: 1, wantWord: "raft disabled"},
		{name: "candidate counts a vote but needs quorum 3", to: 0, setup: func(m *Model) {
			in := &m.Inst[0]
			in.Term, in.VolTerm, in.Vote, in.VolVote, in.State, in.VoteCount, in.VoteMask = 2, 2, 1, 1, Candidate, 1, 1<<1
		}, req: raftReq{Term: 2, Vote: 1, State: Follower}, from: 3, wantVote: 1, wantTerm: 2, wantWord: "vote count 2/3"},
		{name: "candidate wins at quorum", to: 0, setup: func(m *Model) {
			in := &m.Inst[0]
			in.Term, in.VolTerm, in.Vote, in.VolVote, in.State, in.VoteCount, in.VoteMask = 2, 2, 1, 1, Candidate, 2, 1<<1|1<<3
		}, req: raftReq{Term: 2, Vote: 1, State: Follower}, from: 2, wantVote: 1, wantLead: 1, wantTerm: 2, wantWord: "become leader (3/3 votes)"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			w, m := newWorld(t, testConfig(Drop), 1)
			if c.setup != nil {
				c.setup(m)
			}
			word := m.processMsg(w, c.to, c.req, c.from)
			in := &m.Inst[c.to]
			if !strings.Contains(word, c.wantWord) {
				t.Errorf("outcome %q, want it to mention %q", word, c.wantWord)
			}
			if in.VolVote != c.wantVote || in.Leader != c.wantLead || in.VolTerm != c.wantTerm {
				t.Errorf("volatile vote %d, leader %d, term %d; want %d, %d, %d", in.VolVote, in.Leader, in.VolTerm, c.wantVote, c.wantLead, c.wantTerm)
			}
		})
	}
}

// TestResignStartsElectionOnCandidate: a non-leader message from the
// known leader clears it, and a candidate starts a new election at once.
func TestResignStartsElectionOnCandidate(t *testing.T) {
	w, m := newWorld(t, testConfig(Drop), 1)
	in := &m.Inst[0]
	in.Leader = 2
	word := m.processMsg(w, 0, raftReq{Term: 1, Vote: 2, State: Follower}, 2)
	if !strings.Contains(word, "leader resigned") || in.Leader != 0 || in.VolTerm != 2 || in.VolVote != 1 {
		t.Errorf("after resign: %q, leader %d, volatile term %d vote %d; want a new election in term 2 voting for i1", word, in.Leader, in.VolTerm, in.VolVote)
	}
}

// TestElectionJitter checks raft_new_random_election_shift: a whole
// number of ms in [0, 10 %] of the 400 ms timeout, drawn through the
// chooser.
func TestElectionJitter(t *testing.T) {
	seen := map[sim.Time]bool{}
	for seed := uint64(1); seed <= 200; seed++ {
		w, m := newWorld(t, testConfig(Drop), seed)
		m.waitElectionEnd(w, 0)
		d := m.Inst[0].TimerDue - w.Now()
		if d < 400*sim.Millisecond || d > 440*sim.Millisecond || d%sim.Millisecond != 0 {
			t.Fatalf("seed %d: election timeout %s, want whole ms in [400ms, 440ms]", seed, d)
		}
		seen[d] = true
	}
	t.Logf("%d distinct election timeouts over 200 seeds", len(seen))
	if len(seen) < 20 {
		t.Errorf("only %d distinct election timeouts: the jitter is not drawn", len(seen))
	}
}

// sentPushes lists the relay_push_raft messages sent so far.
func sentPushes(w *sim.World) []string {
	tr := w.Trace()
	var out []string
	for id := sim.MsgID(1); int(id) <= tr.NumMessages(); id++ {
		if l := tr.Label(tr.Message(id).Label); strings.HasPrefix(l, "relay_push_raft") {
			out = append(out, l)
		}
	}
	return out
}

// TestPendingRotatingPair walks relay_push_raft, tx_set_is_raft_enabled and
// tx_raft_msg_return of the v4 fix on one relay.
func TestPendingRotatingPair(t *testing.T) {
	w, m := newWorld(t, testConfig(Pending), 1)
	r := m.relay(0, 1)
	cand := raftReq{Term: 2, Vote: 1, State: Candidate, N: 3, HasVclock: true}
	lead := raftReq{Term: 2, Vote: 1, State: Leader, N: 3}
	m.pushRaft(w, 0, 1, cand)
	m.pushRaft(w, 0, 1, lead)
	if got := sentPushes(w); len(got) != 0 || !r.PushPending || r.Msgs[r.ReadyMsg] != lead {
		t.Fatalf("before enable: sent %v, pending %v, ready %v; want nothing sent and the leader message pending", got, r.PushPending, r.Msgs[r.ReadyMsg])
	}
	r.Epoch = 7
	m.setIsRaftEnabled(w, 0, 1, enableMsg{Epoch: 7, Value: true})
	got := sentPushes(w)
	if len(got) != 1 || got[0] != "relay_push_raft {term 2, vote i1, leader} [msg 0] (no recovery restart)" || !r.PushSent || r.ReadyMsg != 1 {
		t.Fatalf("on enable: sent %v, sent flag %v, ready %d; want the leader message from slot 0 without recovery restart", got, r.PushSent, r.ReadyMsg)
	}
	follow := raftReq{Term: 3, State: Follower, N: 3}
	m.pushRaft(w, 0, 1, follow)
	if len(sentPushes(w)) != 1 || !r.PushPending || r.InFlight != 1 {
		t.Fatalf("while one is in flight: %d sent, pending %v, in flight %d; want it held back", len(sentPushes(w)), r.PushPending, r.InFlight)
	}
	m.raftMsgReturn(w, 0, 1)
	got = sentPushes(w)
	if len(got) != 2 || got[1] != "relay_push_raft {term 3, follower} [msg 1]" || r.ReadyMsg != 0 || r.InFlight != 1 {
		t.Fatalf("on return: sent %v, ready %d, in flight %d; want slot 1 pushed and slot 0 ready", got, r.ReadyMsg, r.InFlight)
	}
}

// TestDropLosesUpdate: before the fix an update to a relay that is not
// enabled yet is gone for good.
func TestDropLosesUpdate(t *testing.T) {
	w, m := newWorld(t, testConfig(Drop), 1)
	if m.pushRaft(w, 0, 1, raftReq{Term: 2, Vote: 1, State: Leader, N: 3}) {
		t.Fatal("push to a relay with Raft not enabled reported as kept")
	}
	r := m.relay(0, 1)
	r.Epoch = 3
	m.setIsRaftEnabled(w, 0, 1, enableMsg{Epoch: 3, Value: true})
	if got := sentPushes(w); len(got) != 0 || r.Dropped != 1 {
		t.Errorf("after enable: sent %v, dropped %d; want nothing sent and one drop", got, r.Dropped)
	}
}

// TestSubscribeTimeStateBeforeRelay: box_process_subscribe writes the
// response and the Raft state to the socket before starting the relay,
// and refuses a second subscription while the relay runs.
func TestSubscribeTimeStateBeforeRelay(t *testing.T) {
	w, m := newWorld(t, testConfig(Drop), 1)
	m.Inst[0].State, m.Inst[0].Term = Candidate, 2
	did := m.processSubscribe(w, 0, 1, subscribeMsg{Epoch: 9, N: 3})
	if !strings.Contains(did, "raft {term 2, candidate, vclock {0 0 0}} straight to the socket, start relay") || !m.relay(0, 1).Follow {
		t.Errorf("subscribe: %q; want the candidate state written, then the relay started", did)
	}
	if did := m.processSubscribe(w, 0, 1, subscribeMsg{Epoch: 10, N: 3}); !strings.Contains(did, "duplicate connection") {
		t.Errorf("second subscribe: %q; want duplicate connection", did)
	}
}

// TestCrashKeepsPersistedState: a crash forgets the volatile state and
// the relays; the term, vote and WAL survive; a restart boots again.
func TestCrashKeepsPersistedState(t *testing.T) {
	run, err := registry().Execute(scenario.RunSpec{Scenario: ScenarioID, Variant: "pending", Seed: 1, MaxTime: 1000}, scenario.Options{})
	if err != nil {
		t.Fatal(err)
	}
	w := run.World
	m := w.Model().(*Model)
	in := &m.Inst[0]
	term, vote, rows := in.Term, in.Vote, len(in.WAL)
	if in.State != Leader || rows == 0 {
		t.Fatalf("i1 is %s with %d rows at 1 s; want the leader with rows", in.State, rows)
	}
	m.crashInstance(w, 0)
	if in.State != 0 || in.Leader != 0 || m.relay(0, 1).IsRaftEnabled || in.Term != term || in.Vote != vote || len(in.WAL) != rows {
		t.Errorf("after crash: state %s leader %d relay enabled %v term %d vote %d rows %d", in.State, in.Leader, m.relay(0, 1).IsRaftEnabled, in.Term, in.Vote, len(in.WAL))
	}
	w.Restart(0)
	if !in.Up || in.State != Follower || in.TimerKind != timerLeaderFound {
		t.Errorf("after restart: up %v state %s timer %s; want a follower waiting for a leader", in.Up, in.State, timerNames[in.TimerKind])
	}
}

// TestCloneAndHash: a clone hashes like the original and evolves apart
// from it.
func TestCloneAndHash(t *testing.T) {
	reg := registry()
	spec := scenario.RunSpec{Scenario: ScenarioID, Preset: "random-elections", Variant: "pending", Seed: 3}
	ns, _, w, err := reg.Build(spec, scenario.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 800 && w.StepWithin(ns.Limits()); i++ {
	}
	c := w.Clone()
	if c.Hash() != w.Hash() {
		t.Fatal("a clone hashes differently from its original")
	}
	before := w.Hash()
	c.SetChooser(sim.NewRandomChooser(5))
	for i := 0; i < 200 && c.StepWithin(ns.Limits()); i++ {
	}
	if w.Hash() != before {
		t.Error("stepping the clone changed the original")
	}
	if c.Hash() == before {
		t.Error("200 steps did not change the clone's hash")
	}
}

// TestViewAndDescribe: the inspector shows each instance's Raft state and
// each relay's Raft plumbing; pending events are described in words.
func TestViewAndDescribe(t *testing.T) {
	run, err := registry().Execute(scenario.RunSpec{Scenario: ScenarioID, Variant: "pending", Seed: 1, MaxTime: 520}, scenario.Options{})
	if err != nil {
		t.Fatal(err)
	}
	w := run.World
	m := w.Model().(*Model)
	fields := map[string]string{}
	for _, g := range m.View(w).Groups {
		for _, f := range g.Fields {
			fields[g.ID+"."+f.Name] = f.Value
		}
	}
	for k, want := range map[string]string{"i1.state": "leader", "i1.term": "2", "i2.leader": "i1", "i1-relay-i2.raft enabled": "yes",
		"i1-relay-i2.pending": "no", "i2-applier-i1.status": "follow"} {
		if fields[k] != want {
			t.Errorf("view %s = %q, want %q", k, fields[k], want)
		}
	}
	for _, ev := range w.Pending() {
		if d := m.Describe(w, &ev); d == "" || strings.Contains(d, "timer ") {
			t.Errorf("event %+v described as %q", ev.Kind, d)
		}
	}
}

// TestGh5445ScriptEndsWithLLeading plays the leader-inconsistency script:
// after N resigns, L (a candidate with quorum 3) must win with all three
// votes and everybody must follow it.
func TestGh5445ScriptEndsWithLLeading(t *testing.T) {
	reg := registry()
	n := seeds(100, 20)
	for seed := 1; seed <= n; seed++ {
		run, err := reg.Execute(scenario.RunSpec{Scenario: ScenarioID, Preset: "leader-inconsistency", Variant: "pending", Seed: uint64(seed)}, scenario.Options{})
		if err != nil {
			t.Fatal(err)
		}
		m := run.World.Model().(*Model)
		s := &m.Nemesis
		L := &m.Inst[s.L]
		if !s.Done || L.State != Leader || L.VoteCount != 3 || m.Inst[s.N].Leader != id(s.L) || m.Inst[s.O].Leader != id(s.L) {
			t.Fatalf("seed %d: script done %v; L=%s is %s with %d votes; N follows %s, O follows %s",
				seed, s.Done, name(s.L), L.State, L.VoteCount, leaderName(m.Inst[s.N].Leader), leaderName(m.Inst[s.O].Leader))
		}
	}
}

// TestSeries: with drop the voter's ignored rows climb while i1 leads;
// the messages-in-flight series exists for every instance.
func TestSeries(t *testing.T) {
	run, err := registry().Execute(scenario.RunSpec{Scenario: ScenarioID, Variant: "drop", Seed: 1}, scenario.Options{Trace: true})
	if err != nil {
		t.Fatal(err)
	}
	tr := run.World.Trace()
	last := map[string]float64{}
	for i, d := range tr.SeriesDefs {
		if pts := tr.Series[i]; len(pts) > 0 {
			last[d.Name] = pts[len(pts)-1].Value
		} else {
			last[d.Name] = -1
		}
	}
	t.Logf("last values: %v", last)
	if last["i2 rows ignored"] < 10 || last["i1 raft state"] != float64(Leader) || last["i2 raft state"] != float64(Follower) {
		t.Errorf("i2 ignored %v rows, i1 state %v, i2 state %v; want >= 10 rows ignored, i1 leader, i2 follower",
			last["i2 rows ignored"], last["i1 raft state"], last["i2 raft state"])
	}
	for _, n := range []string{"i1 raft msgs in flight", "i2 raft msgs in flight", "i3 raft msgs in flight"} {
		if _, ok := last[n]; !ok {
			t.Errorf("series %q missing", n)
		}
	}
}
