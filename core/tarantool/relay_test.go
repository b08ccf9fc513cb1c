package tarantool

import (
	"strings"
	"testing"

	"github.com/racetrack-sim/racetrack/core/sim"
)

// startRelay delivers relay_subscribe's start message to i1's relay for
// i2, whose struct still holds recv_vclock prev from an earlier
// connection, with i2 subscribing at from.
func startRelay(t *testing.T, v Variant, prev, from Vclock) *relay {
	t.Helper()
	w, m := newWorld(t, testConfig(v), 1)
	r := m.relay(0, 1)
	r.Recv = prev
	p := w.Proc(m.relayProc(0, 1))
	m.Handle(w, p, &sim.Event{Kind: sim.EvDeliver, Proc: p.ID, Payload: relayStartMsg{Epoch: 7, From: from}})
	return r
}

// TestRelayStructIsReused: upstream's relay is replica->relay, reused by
// every connection, and relay_start leaves recv_vclock alone, so before
// 660f3323b9 (and in the wrong fix) a new connection keeps the previous
// connection's last ack; as merged, relay_subscribe sets it to the
// replica's vclock.
func TestRelayStructIsReused(t *testing.T) {
	prev, from := Vclock{0, 2, 0, 1}, Vclock{0, 5, 0, 3}
	for _, c := range []struct {
		v    Variant
		want Vclock
	}{{Drop, prev}, {Pending, prev}, {PendingAlloc, prev}, {MergedWithoutRecvVclock, prev}, {Merged, from}} {
		r := startRelay(t, c.v, prev, from)
		if r.Recv != c.want || r.Cursor != from || r.Subscribed != from {
			t.Errorf("variant %d: recv %v cursor %v subscribed %v; want recv %v, cursor and subscribed %v", c.v, r.Recv, r.Cursor, r.Subscribed, c.want, from)
		}
	}
}

// TestRestartResendsOnlyWithoutRecvVclock: a leader message on a
// streaming relay restarts the recovery from recv_vclock. With the stale
// recv_vclock of the wrong fix, the rows between it and the replica's
// subscribe vclock go out again and rows-not-resent names one; as
// merged, nothing is resent.
func TestRestartResendsOnlyWithoutRecvVclock(t *testing.T) {
	for _, c := range []struct {
		v      Variant
		resent int
	}{{MergedWithoutRecvVclock, 2}, {Merged, 0}} {
		w, m := newWorld(t, testConfig(c.v), 1)
		m.Inst[0].WAL = []row{{Origin: 1, LSN: 1}, {Origin: 1, LSN: 2}, {Origin: 1, LSN: 3}}
		r := m.relay(0, 1)
		r.Recv = Vclock{0, 1, 0, 0}
		p := w.Proc(m.relayProc(0, 1))
		m.Handle(w, p, &sim.Event{Kind: sim.EvDeliver, Proc: p.ID, Payload: relayStartMsg{Epoch: 7, From: Vclock{0, 3, 0, 0}}})
		r.Phase = relayStreaming
		m.resend = ""
		m.raftMsgPush(w, 0, 1, raftPushMsg{Req: raftReq{Term: 2, Vote: 1, State: Leader, N: 3}, Restart: true, Slot: -1})
		if r.Resent != c.resent {
			t.Errorf("variant %d: %d rows resent, want %d", c.v, r.Resent, c.resent)
		}
		if got := m.resend != ""; got != (c.resent > 0) || (got && !strings.Contains(m.resend, "row 1:2 again")) {
			t.Errorf("variant %d: rows-not-resent evidence %q", c.v, m.resend)
		}
	}
}
