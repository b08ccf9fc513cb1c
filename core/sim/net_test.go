package sim_test

import (
	"testing"

	"github.com/racetrack-sim/racetrack/core/sim"
)

// ticker sends a numbered message to the receiver every millisecond; a
// nemesis applies faults at fixed times.
type ticker struct {
	link      sim.Link
	faults    []fault
	send, rcv sim.ProcID
	nemesis   sim.ProcID
	nodes     []sim.NodeID
	got       []int
	restarts  int
}

type fault struct {
	at   sim.Time
	kind string // crash, restart, partition, heal
}

type num int

func (n num) Label() string { return "n" }

func (m *ticker) Init(w *sim.World) {
	w.SetDefaultLink(m.link)
	a, b := w.AddNode("a"), w.AddNode("b")
	m.nodes = []sim.NodeID{a, b}
	m.send = w.AddActor(a, -1, "sender")
	m.rcv = w.AddActor(b, -1, "receiver")
	m.nemesis = w.AddActor(a, -1, "nemesis")
	w.SetTimer(m.send, 0, 0)
	for i, f := range m.faults {
		w.SetTimer(m.nemesis, f.at, i)
	}
}

func (m *ticker) Handle(w *sim.World, p *sim.Proc, ev *sim.Event) sim.Action {
	switch {
	case p.ID == m.nemesis:
		switch m.faults[ev.Timer].kind {
		case "crash":
			w.Crash(m.nodes[1])
		case "restart":
			w.Restart(m.nodes[1])
		case "partition":
			w.Partition(m.nodes[0], m.nodes[1])
		case "heal":
			w.Heal(m.nodes[0], m.nodes[1])
		}
		return sim.Local(m.faults[ev.Timer].kind, 0)
	case p.ID == m.send:
		n := int(w.Now() / sim.Millisecond)
		w.Send(m.send, m.rcv, num(n))
		if n < 9 {
			w.SetTimer(m.send, sim.Millisecond, 0)
		}
		return sim.Local("send", 0)
	}
	m.got = append(m.got, int(ev.Payload.(num)))
	return sim.Local("receive", 0)
}

func (m *ticker) Restart(w *sim.World, n sim.NodeID) { m.restarts++ }
func (m *ticker) Properties() []sim.Property         { return nil }
func (m *ticker) Clone() sim.Model {
	c := *m
	c.got = append([]int(nil), m.got...)
	return &c
}
func (m *ticker) Hash(h *sim.Hasher) {
	for _, g := range m.got {
		h.Int(g)
	}
}

func runTicker(t *testing.T, m *ticker) (*ticker, *sim.World) {
	t.Helper()
	w := sim.NewWorld(m, 1, sim.NewRandomChooser(1), sim.Options{Trace: true})
	if err := w.Run(sim.Limits{}); err != nil {
		t.Fatal(err)
	}
	return w.Model().(*ticker), w
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestFIFOLinkKeepsOrderDespiteRandomLatency(t *testing.T) {
	m, _ := runTicker(t, &ticker{link: sim.Link{Min: 0, Max: 5 * sim.Millisecond, FIFO: true}})
	if !equalInts(m.got, []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}) {
		t.Fatalf("got %v, want 0..9 in order", m.got)
	}
}

func TestNonFIFOLinkReorders(t *testing.T) {
	reordered := false
	for seed := uint64(1); seed < 20 && !reordered; seed++ {
		w := sim.NewWorld(&ticker{link: sim.Link{Min: 0, Max: 5 * sim.Millisecond}}, seed, sim.NewRandomChooser(seed), sim.Options{})
		if err := w.Run(sim.Limits{}); err != nil {
			t.Fatal(err)
		}
		got := w.Model().(*ticker).got
		for i := 1; i < len(got); i++ {
			reordered = reordered || got[i] < got[i-1]
		}
	}
	if !reordered {
		t.Fatal("no seed of 20 reordered messages on a non-FIFO link with 0..5 ms latency")
	}
}

func TestPartitionDropsAndHealRestores(t *testing.T) {
	m, w := runTicker(t, &ticker{link: sim.Link{Min: 100 * sim.Microsecond, Max: 100 * sim.Microsecond, FIFO: true},
		faults: []fault{{at: 2*sim.Millisecond + 500*sim.Microsecond, kind: "partition"}, {at: 5*sim.Millisecond + 500*sim.Microsecond, kind: "heal"}}})
	if !equalInts(m.got, []int{0, 1, 2, 6, 7, 8, 9}) {
		t.Fatalf("got %v, want 3,4,5 lost to the partition", m.got)
	}
	tr := w.Trace()
	for _, n := range []int{3, 4, 5} {
		msg := tr.Message(sim.MsgID(n + 1))
		if !msg.Dropped || msg.DropReason != sim.DropPartition {
			t.Fatalf("message %d: dropped=%v reason=%s", n, msg.Dropped, msg.DropReason)
		}
	}
	faults := 0
	for i := 0; i < tr.Len(); i++ {
		if tr.Step(i).Kind == sim.StepFault {
			faults++
		}
	}
	if faults != 2 {
		t.Fatalf("%d fault steps, want 2", faults)
	}
}

func TestCrashLosesInFlightMessagesAndRestartCallsTheModel(t *testing.T) {
	// Latency 1.5 ms: messages 0 and 1 arrive before the crash at 2.6 ms;
	// message 2 (sent at 2 ms) is in flight at the crash and is lost; 3
	// and 4 are sent to a down node; after the restart at 4.6 ms, 5..9
	// arrive.
	m, w := runTicker(t, &ticker{link: sim.Link{Min: 1500 * sim.Microsecond, Max: 1500 * sim.Microsecond, FIFO: true},
		faults: []fault{{at: 2600 * sim.Microsecond, kind: "crash"}, {at: 4600 * sim.Microsecond, kind: "restart"}}})
	if !equalInts(m.got, []int{0, 1, 5, 6, 7, 8, 9}) {
		t.Fatalf("got %v, want [0 1 5 6 7 8 9]", m.got)
	}
	if m.restarts != 1 {
		t.Fatalf("Restart hook ran %d times, want 1", m.restarts)
	}
	tr := w.Trace()
	if r := tr.Message(3).DropReason; r != sim.DropReceiverDown {
		t.Fatalf("message 2 (in flight at the crash) dropped as %q", r)
	}
	for _, id := range []sim.MsgID{4, 5} {
		if r := tr.Message(id).DropReason; r != sim.DropPartition {
			t.Fatalf("message %d (sent to a down node) dropped as %q", id-1, r)
		}
	}
}

func TestLossAndDuplicationFollowTheChooser(t *testing.T) {
	lost, dup := 0, 0
	for seed := uint64(1); seed <= 50; seed++ {
		w := sim.NewWorld(&ticker{link: sim.Link{Min: sim.Millisecond, Max: sim.Millisecond, Drop: 0.3, Dup: 0.3, FIFO: true}}, seed, sim.NewRandomChooser(seed), sim.Options{})
		if err := w.Run(sim.Limits{}); err != nil {
			t.Fatal(err)
		}
		got := w.Model().(*ticker).got
		seen := map[int]int{}
		for _, g := range got {
			seen[g]++
		}
		lost += 10 - len(seen)
		dup += len(got) - len(seen)
	}
	// 500 messages: about 150 lost, about 105 of the rest duplicated.
	if lost < 100 || lost > 200 || dup < 60 || dup > 150 {
		t.Fatalf("lost %d, duplicated %d of 500: not the configured 30%%", lost, dup)
	}
	t.Logf("500 messages: %d lost, %d duplicated", lost, dup)
}

// worker is a thread that counts its steps; a nemesis crashes its node
// and restarts it, and the Restart hook starts the thread again.
type worker struct {
	worker, nemesis sim.ProcID
	node            sim.NodeID
	steps, starts   int
}

func (m *worker) Init(w *sim.World) {
	m.node = w.AddNode("n")
	m.worker = w.AddThread(m.node, -1, "worker", 0)
	m.nemesis = w.AddActor(w.AddNode("nemesis"), -1, "nemesis")
	w.SetTimer(m.nemesis, 3500*sim.Microsecond, 0) // crash
	w.SetTimer(m.nemesis, 6*sim.Millisecond, 1)    // restart
	m.starts = 1
}

func (m *worker) Handle(w *sim.World, p *sim.Proc, ev *sim.Event) sim.Action {
	if p.ID == m.nemesis {
		if ev.Timer == 0 {
			w.Crash(m.node)
			return sim.Local("crash", 0)
		}
		w.Restart(m.node)
		return sim.Local("restart", 0)
	}
	m.steps++
	p.PC++
	if p.PC == 5 {
		return sim.Exit("done")
	}
	return sim.Local("work", sim.Millisecond)
}

func (m *worker) Restart(w *sim.World, n sim.NodeID) {
	m.starts++
	w.StartThread(m.worker, 0)
}
func (m *worker) Properties() []sim.Property { return nil }
func (m *worker) Clone() sim.Model           { c := *m; return &c }
func (m *worker) Hash(h *sim.Hasher)         { h.Int(m.steps) }

func TestRestartedThreadStartsOver(t *testing.T) {
	w := sim.NewWorld(&worker{}, 1, sim.FirstChooser{}, sim.Options{})
	if err := w.Run(sim.Limits{}); err != nil {
		t.Fatal(err)
	}
	m := w.Model().(*worker)
	// Five steps 1 ms apart: four run (0..3 ms) before the crash at 3.5 ms
	// loses the fifth; the restart at 6 ms starts the thread again from
	// PC 0, and it runs all five.
	if m.starts != 2 || m.steps != 9 {
		t.Fatalf("thread started %d times and ran %d steps, want 2 and 9", m.starts, m.steps)
	}
	if p := w.Proc(m.worker); p.Status != sim.Done || p.PC != 5 {
		t.Fatalf("worker ended %s at PC %d, want done at 5", p.Status, p.PC)
	}
}
