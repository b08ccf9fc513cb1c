package tarantool

import (
	"slices"
	"strconv"

	"github.com/racetrack-sim/racetrack/core/sim"
)

// timerKind says what raft->timer is armed for.
type timerKind uint8

const (
	timerNone        timerKind = iota
	timerLeaderFound           // raft_sm_wait_leader_found: death timeout, no leader known
	timerLeaderDead            // raft_sm_wait_leader_dead: death timeout, leader known
	timerElectionEnd           // raft_sm_wait_election_end: election timeout + jitter
)

var timerNames = [...]string{"none", "wait leader found", "wait leader dead", "wait election end"}

// row identifies a WAL row by its origin instance and LSN.
type row struct {
	Origin int8
	LSN    int32
}

// instance is one Tarantool instance: its box.cfg, its struct raft and
// its data (replicaset.vclock and the WAL).
type instance struct {
	Mode   Mode // election_mode of the current start
	Quorum int  // election quorum of the current start
	Up     bool

	// Persisted Raft state (raft->term, raft->vote).
	Term, Vote int
	// Volatile Raft state.
	VolTerm, VolVote int
	State            RaftState
	Leader           int // instance id; 0 = unknown
	VoteMask         uint16
	VoteCount        int
	// IsWriteInProgress: the volatile state is not on disk yet.
	IsWriteInProgress bool
	// WALBusy: a raft_write is outstanding, writing WALTerm/WALVote.
	WALBusy          bool
	WALTerm, WALVote int
	// IsBroadcastScheduled: raft_schedule_broadcast was called.
	IsBroadcastScheduled bool
	WorkerScheduled      bool

	Timer     int64 // kernel id of raft->timer, 0 when stopped
	TimerKind timerKind
	TimerDue  sim.Time

	WriteTimer int64

	Vclock Vclock
	WAL    []row

	LeaderSince sim.Time // when this instance last became leader
}

// relayPhase is the life of a relay thread.
type relayPhase uint8

const (
	relayStopped   relayPhase = iota
	relayStarting             // cord_costart: thread, endpoint, cbus_pair
	relayEnabling             // relay_send_is_raft_enabled(true) on its way
	relayStreaming            // WAL watcher installed: rows flow
)

var relayPhaseNames = [...]string{"stopped", "starting", "enabling raft", "streaming"}

// relay is struct relay of master A for replica B: its tx part (relay->tx)
// and the relay thread's state.
type relay struct {
	// tx side.
	Follow        bool // relay_subscribe running (duplicate subscribes are refused)
	IsRaftEnabled bool
	// Pending: raft_msgs[2], raft_ready_msg, is_raft_push_pending,
	// is_raft_push_sent.
	Msgs        [2]raftReq
	ReadyMsg    int
	PushPending bool
	PushSent    bool
	// PendingAlloc: the one saved request (has_pending_raft_msg).
	HasSaved bool
	Saved    raftReq
	// InFlight counts Raft messages pushed to the relay pipe and not yet
	// handled (Drop, PendingAlloc) or not yet returned (Pending).
	InFlight int
	Dropped  int // Drop: pushes lost because Raft was not enabled
	// Early counts Raft updates pushed while Raft was not enabled on
	// the relay yet, in every variant: the window of seed 004.
	Early int
	// Subscribed is the replica's vclock at subscribe; Resent counts the
	// rows sent again at or below it (a recovery restarted from a
	// recv_vclock older than the replica: the previous connection's last
	// ack, or zeros).
	Subscribed Vclock
	Resent     int

	// Relay thread side.
	Epoch   int
	Phase   relayPhase
	Cursor  Vclock // where the recovery stands
	Recv    Vclock // recv_vclock: the replica's last acknowledged vclock
	LastAck sim.Time
	Tick    int64
	Start   int64
}

// applierStatus is the applier's connection state.
type applierStatus uint8

const (
	applierOff applierStatus = iota
	applierConnecting
	applierFollow
)

var applierStatusNames = [...]string{"disconnected", "subscribing", "follow"}

// applier is B's applier from master A.
type applier struct {
	Epoch    int
	Status   applierStatus
	Since    sim.Time // subscribe sent (connecting) or answered (follow)
	LastRecv sim.Time
	Ignored  int // rows skipped by raft_is_source_allowed
	RaftRows int // Raft messages received (not hashed: a count)
	Tick     int64
	Connect  int64
}

// termLeader records who became leader of a term (a ghost variable for
// one-leader-per-term; it survives crashes).
type termLeader struct {
	Term, Leader int
}

// Model is the simulated cluster.
type Model struct {
	cfg *Config

	Inst     []instance
	Relays   []relay   // [a*n+b]: master a's relay for replica b
	Appliers []applier // [b*n+a]: replica b's applier from master a
	EpochSeq int

	Leaders  []termLeader // sorted by term
	Conflict string       // one-leader-per-term broken: how
	// resend describes a row this step sent to a replica that already had
	// it (at or below its vclock at subscribe); "" after any other step.
	resend string

	// LinkSince[a*n+b] is when the pair last came back (heal, restart).
	Nemesis nemesisState

	actors               sim.Actors[*Model]
	tx, relayP, applierP []sim.ProcID
	nemesisP             sim.ProcID
	roles                []role
	stateS, ignoredS     []sim.SeriesID
	inFlightS            []sim.SeriesID
}

// role says which instances a process serves (its table says what it
// is).
type role struct {
	a, b int // instance indexes: tx a; relay a->b; applier of b from a
}

// New builds the model for cfg.
func New(cfg Config) (*Model, error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	c := cfg
	c.Modes = slices.Clone(cfg.Modes)
	return &Model{cfg: &c}, nil
}

func (m *Model) n() int                          { return m.cfg.Instances }
func (m *Model) relay(a, b int) *relay           { return &m.Relays[a*m.n()+b] }
func (m *Model) applier(b, a int) *applier       { return &m.Appliers[b*m.n()+a] }
func (m *Model) relayProc(a, b int) sim.ProcID   { return m.relayP[a*m.n()+b] }
func (m *Model) applierProc(b, a int) sim.ProcID { return m.applierP[b*m.n()+a] }

// id is the instance id of index i (ids start at 1, 0 means "nobody").
func id(i int) int { return i + 1 }

func name(i int) string { return "i" + strconv.Itoa(id(i)) }

// Clone deep-copies the state; the configuration and process tables are
// immutable and shared.
func (m *Model) Clone() sim.Model {
	c := *m
	c.Inst = slices.Clone(m.Inst)
	for i := range c.Inst {
		c.Inst[i].WAL = slices.Clone(m.Inst[i].WAL)
	}
	c.Relays = slices.Clone(m.Relays)
	c.Appliers = slices.Clone(m.Appliers)
	c.Leaders = slices.Clone(m.Leaders)
	c.Nemesis = m.Nemesis.clone()
	return &c
}

// Hash folds the state. Timer ids are kernel bookkeeping and left out;
// the times kept (due times, last-heard times) are absolute because the
// Model interface gives Hash no clock: in untimed mode they are all zero,
// so states reached by different interleavings still hash the same.
func (m *Model) Hash(h *sim.Hasher) {
	for i := range m.Inst {
		in := &m.Inst[i]
		h.Int(int(in.Mode))
		h.Int(in.Quorum)
		h.Bool(in.Up)
		h.Int(in.Term)
		h.Int(in.Vote)
		h.Int(in.VolTerm)
		h.Int(in.VolVote)
		h.Int(int(in.State))
		h.Int(in.Leader)
		h.Int(int(in.VoteMask))
		h.Bool(in.IsWriteInProgress)
		h.Bool(in.WALBusy)
		h.Int(in.WALTerm)
		h.Int(in.WALVote)
		h.Bool(in.IsBroadcastScheduled)
		h.Bool(in.WorkerScheduled)
		h.Int(int(in.TimerKind))
		h.Int64(int64(in.TimerDue))
		h.Bool(in.WriteTimer != 0)
		in.Vclock.hashInto(h)
		h.Int(len(in.WAL))
		for _, r := range in.WAL {
			h.Int(int(r.Origin))
			h.Int(int(r.LSN))
		}
	}
	for i := range m.Relays {
		r := &m.Relays[i]
		h.Bool(r.Follow)
		h.Bool(r.IsRaftEnabled)
		r.Msgs[0].hashInto(h)
		r.Msgs[1].hashInto(h)
		h.Int(r.ReadyMsg)
		h.Bool(r.PushPending)
		h.Bool(r.PushSent)
		h.Bool(r.HasSaved)
		r.Saved.hashInto(h)
		h.Int(r.InFlight)
		h.Int(r.Epoch)
		h.Int(int(r.Phase))
		r.Cursor.hashInto(h)
		r.Recv.hashInto(h)
		h.Int64(int64(r.LastAck))
	}
	for i := range m.Appliers {
		a := &m.Appliers[i]
		h.Int(a.Epoch)
		h.Int(int(a.Status))
		h.Int64(int64(a.Since))
		h.Int64(int64(a.LastRecv))
		h.Int(a.Ignored)
	}
	h.Int(m.EpochSeq)
	for _, l := range m.Leaders {
		h.Int(l.Term)
		h.Int(l.Leader)
	}
	h.String(m.Conflict)
	m.Nemesis.hashInto(h)
}

func itoa(v int) string { return strconv.Itoa(v) }
