package sim_test

import (
	"testing"

	"github.com/racetrack-sim/racetrack/core/sim"
)

// ball is the ping-pong payload.
type ball struct{ N int }

func (b ball) Label() string          { return "ball" }
func (b ball) HashInto(h *sim.Hasher) { h.Int(b.N) }

// pingPong bounces a ball between two actors on two nodes until it has
// been hit limit times.
type pingPong struct {
	limit int
	link  sim.Link
	a, b  sim.ProcID
	hits  int
}

func (m *pingPong) Init(w *sim.World) {
	w.SetDefaultLink(m.link)
	na, nb := w.AddNode("a"), w.AddNode("b")
	m.a = w.AddActor(na, -1, "ping")
	m.b = w.AddActor(nb, -1, "pong")
	w.SetTimer(m.a, 0, 0)
}

func (m *pingPong) Handle(w *sim.World, p *sim.Proc, ev *sim.Event) sim.Action {
	n := 0
	if ev.Kind == sim.EvDeliver {
		n = ev.Payload.(ball).N
	}
	m.hits++
	if n < m.limit {
		to := m.b
		if p.ID == m.b {
			to = m.a
		}
		w.Send(p.ID, to, ball{N: n + 1})
	}
	return sim.Local("hit", 0)
}

func (m *pingPong) Properties() []sim.Property { return nil }
func (m *pingPong) Clone() sim.Model           { c := *m; return &c }
func (m *pingPong) Hash(h *sim.Hasher)         { h.Int(m.hits) }

func benchPingPong(b *testing.B, trace bool) {
	const hits = 100_000
	events := 0
	for b.Loop() {
		m := &pingPong{limit: hits, link: sim.Link{Min: sim.Millisecond, Max: sim.Millisecond, FIFO: true}}
		w := sim.NewWorld(m, 1, sim.NewRandomChooser(1), sim.Options{Trace: trace})
		if err := w.Run(sim.Limits{}); err != nil {
			b.Fatal(err)
		}
		events += w.Steps()
	}
	b.ReportMetric(float64(events)/b.Elapsed().Seconds(), "events/s")
}

func BenchmarkPingPong(b *testing.B)      { benchPingPong(b, false) }
func BenchmarkPingPongTrace(b *testing.B) { benchPingPong(b, true) }

func TestPingPongRunsToTheEnd(t *testing.T) {
	m := &pingPong{limit: 10, link: sim.Link{Min: sim.Millisecond, Max: 3 * sim.Millisecond, Res: sim.Millisecond, FIFO: true}}
	w := sim.NewWorld(m, 7, sim.NewRandomChooser(7), sim.Options{Trace: true})
	if err := w.Run(sim.Limits{}); err != nil {
		t.Fatal(err)
	}
	if w.Steps() != 11 || w.Stop() != sim.StopQuiescent {
		t.Fatalf("steps %d stop %s, want 11 quiescent", w.Steps(), w.Stop())
	}
	tr := w.Trace()
	if tr.NumMessages() != 10 {
		t.Fatalf("%d messages, want 10", tr.NumMessages())
	}
	for i := range 10 {
		m := tr.Message(sim.MsgID(i + 1))
		if m.RecvStep != int32(i+1) || m.SentStep != int32(i) {
			t.Fatalf("message %d sent at %d received at %d", i, m.SentStep, m.RecvStep)
		}
		lat := m.DeliverAt - m.SentAt
		if lat < sim.Millisecond || lat > 3*sim.Millisecond || lat%sim.Millisecond != 0 {
			t.Fatalf("message %d latency %s outside [1ms, 3ms] at 1 ms resolution", i, lat)
		}
	}
	// Every step causally follows the one before: the clock of the last
	// step dominates all.
	last := tr.Clock(10)
	if last[0] != 6 || last[1] != 5 {
		t.Fatalf("last vector clock %v, want [6 5]", last)
	}
	if !tr.HappensBefore(0, 10) || tr.HappensBefore(10, 0) {
		t.Fatal("happens-before wrong between first and last step")
	}
}
