package tarantool

import (
	"errors"
	"strconv"

	"github.com/racetrack-sim/racetrack/core/sim"
)

// ErrConfig is returned by New for an inconsistent configuration.
var ErrConfig = errors.New("tarantool: invalid configuration")

// MaxInstances bounds the cluster (vclock components 1..MaxInstances).
const MaxInstances = 7

// Variant selects the relay_push_raft implementation.
type Variant uint8

// Variants.
const (
	// Drop is the code before the fix: a push to a relay whose Raft is not
	// enabled yet returns without sending ("Raft updates don't stack").
	Drop Variant = iota
	// Pending is the v4 fix: two preallocated messages rotate between tx
	// and the relay, the latest update waits in the ready slot, at most one
	// is in flight.
	Pending
	// PendingAlloc is the earlier review version: the latest update is kept
	// while the relay is not enabled and sent on enable; every update is a
	// newly allocated message, with no bound on messages in flight.
	PendingAlloc
	// Merged is the fix as merged (commit 660f3323b9): the rotating pair
	// of Pending without its restart flag — every leader message the relay
	// sends restarts the recovery, the first one after enabling included —
	// and recv_vclock set from the replica's vclock in relay_subscribe (and
	// relay_final_join), so that a restart before the first ack resumes
	// where the replica stands instead of at the previous connection's
	// last ack (or zeros).
	Merged
	// MergedWithoutRecvVclock is a wrong fix: Merged's rotating pair
	// without the restart flag, but recv_vclock left as the relay struct
	// holds it (upstream reuses replica->relay across connections: the
	// previous connection's last ack, or zeros for a fresh struct), so a
	// restart before the first ack resends rows the replica already has.
	MergedWithoutRecvVclock
)

// Mode is box.cfg.election_mode.
type Mode uint8

// Election modes (the numbers of the modes parameter).
const (
	ModeOff Mode = iota
	ModeVoter
	ModeCandidate
)

var modeNames = [...]string{"off", "voter", "candidate"}

func (m Mode) String() string { return modeNames[m] }

// RaftState is enum raft_state, with upstream's numbers.
type RaftState uint8

// Raft states.
const (
	Follower  RaftState = 1
	Candidate RaftState = 2
	Leader    RaftState = 3
)

func (s RaftState) String() string {
	switch s {
	case Follower:
		return "follower"
	case Candidate:
		return "candidate"
	case Leader:
		return "leader"
	}
	return "down"
}

// Vclock is a vector clock indexed by instance id (1..MaxInstances);
// component 0 (local rows) is not modelled.
type Vclock [MaxInstances + 1]int32

// Ge reports whether v >= o in every component (vclock_compare_ignore0
// returning "equal" or "greater"); incomparable clocks are not >=.
func (v Vclock) Ge(o Vclock) bool {
	for i := 1; i <= MaxInstances; i++ {
		if v[i] < o[i] {
			return false
		}
	}
	return true
}

func (v Vclock) format(n int) string {
	b := []byte{'{'}
	for i := 1; i <= n; i++ {
		if i > 1 {
			b = append(b, ' ')
		}
		b = strconv.AppendInt(b, int64(v[i]), 10)
	}
	return string(append(b, '}'))
}

func (v Vclock) hashInto(h *sim.Hasher) {
	for i := 1; i <= MaxInstances; i++ {
		h.Int(int(v[i]))
	}
}

// Config is the immutable configuration of one run.
type Config struct {
	Variant            Variant
	Instances          int
	Modes              []Mode // per instance
	Quorum             int    // replication_synchro_quorum; 0 = majority
	ElectionTimeout    sim.Time
	ReplicationTimeout sim.Time
	RelayEnableDelay   sim.Time
	NetworkLatency     sim.Time
	WALDelay           sim.Time
	WriteRate          float64 // rows per second written by the leader
	Faults             float64 // random faults per second
	Script             string  // "none" or "gh-5445"
	LateFollower       int     // instance id whose applier from LateSource subscribes late; 0 = none
	LateSource         int
	LateSubscribeAt    sim.Time
	Duration           sim.Time
	// Anonymous is the instance id of an anonymous replica
	// (replication_anon), OldVersion that of a replica older than 2.6.0;
	// 0 = none. Neither takes Raft messages: relay_subscribe_f skips
	// relay_send_is_raft_enabled for an anonymous replica, and
	// box_process_subscribe and relay_push_raft_msg send Raft only to
	// replicas that are not anonymous and at least 2.6.0.
	Anonymous, OldVersion int
}

// raftless reports whether instance b (an index) takes no Raft messages.
func (c *Config) raftless(b int) bool { return b+1 == c.Anonymous || b+1 == c.OldVersion }

// One hop over a cbus pipe between two threads of one instance takes from
// cbusMin to cbusMax, in order: the receiving thread handles its endpoint
// between turns of its own loop (a relay may be busy reading an xlog), so
// updates pushed in a burst can be on the pipe together.
const (
	cbusMin = 20 * sim.Microsecond
	cbusMax = 1 * sim.Millisecond
)

// deathTimeout is replication_disconnect_timeout(): 4 x replication_timeout,
// which box uses as Raft's death timeout and as the applier's and relay's
// read timeout.
func (c *Config) deathTimeout() sim.Time { return 4 * c.ReplicationTimeout }

// writesStopAt is when the leader stops writing rows, so that
// followers-apply-leader-rows can ask followers to catch up.
func (c *Config) writesStopAt() sim.Time { return c.Duration * 7 / 10 }

// faultsStopAt is when the nemesis heals everything and stops.
func (c *Config) faultsStopAt() sim.Time { return c.Duration * 5 / 10 }

// maxOneWay is the longest one-way network latency: 3L/2, ten times that
// on a link the nemesis slowed down.
func (c *Config) maxOneWay() sim.Time {
	l := c.NetworkLatency * 3 / 2
	if c.Faults > 0 {
		l *= slowFactor
	}
	return l
}

// learnDeadline is "a few relay round trips": the relay's enable round
// trip, two network round trips, two WAL writes and four cbus hops, plus a
// millisecond.
func (c *Config) learnDeadline() sim.Time {
	return c.RelayEnableDelay + 4*c.maxOneWay() + 2*c.WALDelay + 4*cbusMax + sim.Millisecond
}

// applyDeadline adds one replication_timeout (an ack period) to it.
func (c *Config) applyDeadline() sim.Time { return c.learnDeadline() + c.ReplicationTimeout }

// electionQuorum is min(replication_synchro_quorum, registered replicas),
// box_raft_update_election_quorum.
func (c *Config) electionQuorum() int {
	q := c.Quorum
	if q <= 0 || q > c.Instances {
		if q <= 0 {
			q = c.Instances/2 + 1
		} else {
			q = c.Instances
		}
	}
	return q
}

func (c *Config) validate() error {
	if c.Instances < 1 || c.Instances > MaxInstances {
		return errors.Join(ErrConfig, errors.New("instances must be 1.."+strconv.Itoa(MaxInstances)))
	}
	if c.LateFollower != 0 && (c.LateFollower > c.Instances || c.LateSource < 1 || c.LateSource > c.Instances || c.LateSource == c.LateFollower) {
		return errors.Join(ErrConfig, errors.New("lateFollower and lateSource must name two different instances"))
	}
	if c.Script == "gh-5445" && c.Instances != 3 {
		return errors.Join(ErrConfig, errors.New("the gh-5445 script needs 3 instances"))
	}
	if len(c.Modes) != c.Instances {
		return errors.Join(ErrConfig, errors.New("one election mode per instance"))
	}
	for _, x := range []struct {
		id   int
		what string
	}{{c.Anonymous, "anonymous"}, {c.OldVersion, "oldVersion"}} {
		if x.id != 0 && (x.id > c.Instances || c.Modes[x.id-1] != ModeOff || c.Script != "none") {
			return errors.Join(ErrConfig, errors.New(x.what+" must name an instance whose election_mode is off for the whole run (it takes no part in Raft; the gh-5445 script changes modes)"))
		}
	}
	if c.ReplicationTimeout <= 0 || c.ElectionTimeout <= 0 {
		return errors.Join(ErrConfig, errors.New("timeouts must be positive"))
	}
	return nil
}
