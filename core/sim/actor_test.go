package sim_test

import (
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/racetrack-sim/racetrack/core/check"
	"github.com/racetrack-sim/racetrack/core/scenario"
	"github.com/racetrack-sim/racetrack/core/sim"
)

// rally is a test model of two actors, ping on node a and pong on node b,
// and a nemesis on its own node that crashes and restarts nodes at fixed
// times. Each test sets what it needs; the answers docs/writing-a-model.md
// gives about actors are pinned here.
type rally struct {
	actors         sim.Actors[*rally]
	ping, pong     sim.ProcID
	nemesis        sim.ProcID
	na, nb         sim.NodeID
	latency        sim.Time
	sendInInit     bool // ping sends a ball from Init (OnStart) instead of a timer
	faults         []rallyFault
	restartSends   bool // pong's restart hook sends a ball to ping
	pongTimerAt    sim.Time
	plainCrash     bool // the nemesis crashes with World.Crash, not Actors.Crash
	PongGot        []int
	PingGot        []int
	PongVolatile   int
	PongTimerFired bool
	drop           float64 // the link's Drop
	mayLose        bool    // ping serves with SendOrLose
}

type rallyFault struct {
	at      sim.Time
	node    int // 0: a, 1: b
	restart bool
}

type rallyBall struct{ N int }

func (rallyBall) Label() string { return "ball" }

const (
	tagServe = iota + 1
	tagPongTimer
	tagFault
)

var pingTable = sim.Handlers[*rally]{
	sim.OnStart("gets ready", func(m *rally, w *sim.World, p *sim.Proc) {
		if m.sendInInit {
			w.Send(p.ID, m.pong, rallyBall{N: 1})
			return
		}
		w.SetTimer(p.ID, 0, tagServe)
	}),
	sim.OnTimer(tagServe, "serves", func(m *rally, w *sim.World, p *sim.Proc, _ sim.Fired) string {
		if _, lost := w.SendOrLose(p.ID, m.pong, rallyBall{N: 1}, m.mayLose); lost {
			return "serves into the net"
		}
		return ""
	}),
	sim.On("catches the ball", func(m *rally, w *sim.World, p *sim.Proc, b sim.Msg[rallyBall]) string {
		m.PingGot = append(m.PingGot, b.Body.N)
		return "caught"
	}),
}

var pongTable = sim.Handlers[*rally]{
	sim.OnStart("waits", func(m *rally, w *sim.World, p *sim.Proc) {
		if m.pongTimerAt > 0 {
			w.SetTimer(p.ID, m.pongTimerAt, tagPongTimer)
		}
	}),
	sim.On("returns the ball", func(m *rally, w *sim.World, p *sim.Proc, b sim.Msg[rallyBall]) string {
		m.PongGot = append(m.PongGot, b.Body.N)
		m.PongVolatile++
		return ""
	}),
	sim.OnTimer(tagPongTimer, "wakes up", func(m *rally, w *sim.World, p *sim.Proc, _ sim.Fired) string {
		m.PongTimerFired = true
		return ""
	}).Describing(func(m *rally, w *sim.World, ev *sim.Event, who string) string {
		return who + " wakes up, having returned " + strconv.Itoa(len(m.PongGot)) + " balls"
	}),
	sim.OnCrash("forgets the rally", func(m *rally, w *sim.World, p *sim.Proc) { m.PongVolatile = 0 }),
	sim.OnRestart("comes back", func(m *rally, w *sim.World, p *sim.Proc) {
		if m.restartSends {
			w.Send(p.ID, m.ping, rallyBall{N: 100})
		}
	}),
}

var nemesisTable = sim.Handlers[*rally]{
	sim.OnStart("plans faults", func(m *rally, w *sim.World, p *sim.Proc) {
		for i, f := range m.faults {
			w.SetTimer(p.ID, f.at, tagFault+i)
		}
	}),
}

func (m *rally) Init(w *sim.World) {
	w.SetDefaultLink(sim.Link{Min: m.latency, Max: m.latency, FIFO: true, Drop: m.drop})
	m.na, m.nb = w.AddNode("a"), w.AddNode("b")
	m.ping = m.actors.Add(w, m.na, -1, "ping", pingTable)
	m.pong = m.actors.Add(w, m.nb, -1, "pong", pongTable)
	table := nemesisTable
	for i := range m.faults {
		table = append(table[:len(table):len(table)], sim.OnTimer(tagFault+i, "injects a fault", func(m *rally, w *sim.World, p *sim.Proc, _ sim.Fired) string {
			f := m.faults[i]
			n := []sim.NodeID{m.na, m.nb}[f.node]
			switch {
			case f.restart:
				w.Restart(n)
				return "restart"
			case m.plainCrash:
				w.Crash(n)
				return "crash"
			}
			return m.actors.Crash(m, w, n)
		}))
	}
	m.nemesis = m.actors.Add(w, w.AddNode("nemesis"), -1, "nemesis", table)
	m.actors.Start(m, w)
}

func (m *rally) Handle(w *sim.World, p *sim.Proc, ev *sim.Event) sim.Action {
	return m.actors.Handle(m, w, p, ev)
}
func (m *rally) Describe(w *sim.World, ev *sim.Event) string { return m.actors.Describe(m, w, ev) }
func (m *rally) Restart(w *sim.World, n sim.NodeID)          { m.actors.Restart(m, w, n) }
func (m *rally) Properties() []sim.Property                  { return nil }
func (m *rally) Clone() sim.Model                            { c := *m; return &c }
func (m *rally) Hash(h *sim.Hasher)                          { h.Int(len(m.PongGot)) }

func runRally(t *testing.T, m *rally) *sim.World {
	t.Helper()
	w := sim.NewWorld(m, 1, sim.NewRandomChooser(1), sim.Options{Trace: true})
	if err := w.Run(sim.Limits{MaxSteps: 100}); err != nil {
		t.Fatal(err)
	}
	return w
}

// TestHandlersDispatchTypedAndDeriveLabels: a delivered ball runs the row
// for its type, the step's label is the payload's label and what the
// handler returned (its says when it returned nothing), and a pending
// event is described by the row's says.
func TestHandlersDispatchTypedAndDeriveLabels(t *testing.T) {
	m := &rally{latency: sim.Millisecond}
	w := sim.NewWorld(m, 1, sim.NewRandomChooser(1), sim.Options{Trace: true})
	pending := w.Pending()
	if len(pending) != 1 || m.Describe(w, &pending[0]) != "ping serves" {
		t.Fatalf("pending %v described %q, want ping serves", pending, m.Describe(w, &pending[0]))
	}
	if err := w.Run(sim.Limits{}); err != nil {
		t.Fatal(err)
	}
	tr := w.Trace()
	if tr.Len() != 2 || tr.StepLabel(0) != "serves" || tr.StepLabel(1) != "ball: returns the ball" {
		t.Fatalf("labels %q %q (%d steps)", tr.StepLabel(0), tr.StepLabel(1), tr.Len())
	}
	if len(m.PongGot) != 1 || m.PongGot[0] != 1 {
		t.Fatalf("pong got %v, want [1]", m.PongGot)
	}

	// A row declared Describing says what depends on the state.
	m = &rally{latency: sim.Millisecond, pongTimerAt: 5 * sim.Millisecond}
	w = sim.NewWorld(m, 1, sim.NewRandomChooser(1), sim.Options{})
	w.Step() // ping serves
	w.Step() // pong returns the ball
	pending = w.Pending()
	if len(pending) != 1 || m.Describe(w, &pending[0]) != "pong wakes up, having returned 1 balls" {
		t.Fatalf("pending %v", pending)
	}
}

// TestHandlersRefuseAnUnhandledMessageAndMalformedTables: an event with
// no row stops the run with a model error naming it; a table declaring a
// message type twice, or a row with no description, is refused when the
// actor is added.
func TestHandlersRefuseAnUnhandledMessageAndMalformedTables(t *testing.T) {
	m := &rally{latency: sim.Millisecond}
	w := sim.NewWorld(m, 1, sim.NewRandomChooser(1), sim.Options{})
	ev := sim.Event{Kind: sim.EvDeliver, Proc: m.pong, Payload: "a string"}
	m.Handle(w, w.Proc(m.pong), &ev)
	if err := w.Err(); !errors.Is(err, sim.ErrModel) || !strings.Contains(err.Error(), "pong has no handler for message string") {
		t.Fatalf("err %v", err)
	}
	twice := sim.Handlers[*rally]{pongTable[1], pongTable[1]}
	if err := twice.Check(); err == nil || !strings.Contains(err.Error(), "declares sim_test.rallyBall twice") {
		t.Fatalf("duplicate row: %v", err)
	}
	mute := sim.Handlers[*rally]{sim.OnTimer(1, "", func(*rally, *sim.World, *sim.Proc, sim.Fired) string { return "" })}
	if err := mute.Check(); err == nil || !strings.Contains(err.Error(), "timer 1 says nothing") {
		t.Fatalf("row without says: %v", err)
	}
	w = sim.NewWorld(&malformed{table: twice}, 1, sim.NewRandomChooser(1), sim.Options{})
	if err := w.Run(sim.Limits{}); !errors.Is(err, sim.ErrModel) || !strings.Contains(err.Error(), "actor twice: ") || w.Steps() != 0 {
		t.Fatalf("a malformed table added in Init: err %v after %d steps", err, w.Steps())
	}
}

// malformed adds one actor running table.
type malformed struct {
	rally
	table sim.Handlers[*rally]
}

func (m *malformed) Init(w *sim.World) {
	m.actors.Add(w, w.AddNode("n"), -1, "twice", m.table)
	w.SetTimer(0, 0, tagServe)
}

// TestSendFromInitIsDeliveredButAttributedToStepZero pins the answer to
// "may Send be called from Init": yes, the message is delivered, but Init
// is not a step, so the trace records it as sent at step 0 and its
// receipt as caused by step 0, whichever process ran step 0 (here the
// nemesis's first rallyFault). Set a timer in Init and send from its handler to
// get the causality right.
func TestSendFromInitIsDeliveredButAttributedToStepZero(t *testing.T) {
	m := &rally{latency: 10 * sim.Millisecond, sendInInit: true, faults: []rallyFault{{at: sim.Millisecond, node: 0, restart: true}}}
	w := runRally(t, m)
	tr := w.Trace()
	if len(m.PongGot) != 1 {
		t.Fatalf("pong got %v: the ball sent from Init was not delivered", m.PongGot)
	}
	msg := tr.Message(1)
	if tr.Step(0).Proc != m.nemesis || msg.SentStep != 0 || tr.Step(int(msg.RecvStep)).Parent != 0 {
		t.Fatalf("step 0 by %s; message sent at step %d; its receipt's parent %d", w.ProcName(tr.Step(0).Proc), msg.SentStep, tr.Step(int(msg.RecvStep)).Parent)
	}
}

// TestCrashAndRestartKeepIdsDropInboundDeliverOutbound pins what a crash
// and a restart do: process ids survive (the same ProcID, running again,
// the node's incarnation one higher); messages in flight to the crashed
// node and its pending timers are dropped, even once it is back; a
// message its node sent before crashing is still delivered; the restart
// hook runs inside the restarting step and may Send.
func TestCrashAndRestartKeepIdsDropInboundDeliverOutbound(t *testing.T) {
	m := &rally{latency: 10 * sim.Millisecond, pongTimerAt: 5 * sim.Millisecond, restartSends: true,
		faults: []rallyFault{{at: sim.Millisecond, node: 1}, {at: 2 * sim.Millisecond, node: 1, restart: true}}}
	w := runRally(t, m)
	tr := w.Trace()
	if len(m.PongGot) != 0 || m.PongTimerFired {
		t.Fatalf("pong got %v, timer fired %v: events for its first incarnation survived", m.PongGot, m.PongTimerFired)
	}
	if ball := tr.Message(1); !ball.Dropped || ball.DropReason != sim.DropReceiverDown {
		t.Fatalf("the serve: dropped %v (%s)", ball.Dropped, ball.DropReason)
	}
	p := w.Proc(m.pong)
	if p.ID != m.pong || p.Status != sim.Running || w.Node(m.nb).Incarnation != 1 {
		t.Fatalf("pong after restart: id %d status %s incarnation %d", p.ID, p.Status, w.Node(m.nb).Incarnation)
	}
	back := tr.Message(2)
	if len(m.PingGot) != 1 || m.PingGot[0] != 100 || back.From != m.pong || tr.Step(int(back.SentStep)).Proc != m.nemesis {
		t.Fatalf("ping got %v; the restart hook's ball from %s sent at the nemesis's step: %v", m.PingGot, w.ProcName(back.From), tr.Step(int(back.SentStep)).Proc == m.nemesis)
	}

	m = &rally{latency: 10 * sim.Millisecond, faults: []rallyFault{{at: sim.Millisecond, node: 0}}}
	runRally(t, m)
	if len(m.PongGot) != 1 {
		t.Fatalf("pong got %v: a ball ping sent before its node crashed was not delivered", m.PongGot)
	}
}

// TestTheModelResetsVolatileState pins who resets a crashed node's
// volatile state: not the kernel. World.Crash leaves the model's fields as
// they were; Actors.Crash runs the OnCrash rows, which reset them.
func TestTheModelResetsVolatileState(t *testing.T) {
	for _, plain := range []bool{true, false} {
		m := &rally{latency: sim.Millisecond, plainCrash: plain, faults: []rallyFault{{at: 2 * sim.Millisecond, node: 1}}}
		runRally(t, m)
		want := 0
		if plain {
			want = 1
		}
		if m.PongVolatile != want {
			t.Fatalf("World.Crash only: %v; pong's volatile count %d, want %d", plain, m.PongVolatile, want)
		}
	}
}

// rallyScenario offers the serve over a lossy link ("link-drop": Link.Drop
// 0.5) or with an enumerable loss ("send-or-lose").
func rallyScenario() *scenario.Scenario {
	return &scenario.Scenario{
		ID: "rally", Title: "rally", Summary: "a served ball", Story: "ping serves to pong.",
		Variants: []scenario.Variant{{ID: "link-drop", Title: "Link.Drop"}, {ID: "send-or-lose", Title: "SendOrLose"}},
		Presets:  []scenario.Preset{{ID: "serve", Title: "serve", Params: map[string]any{}, MaxTime: 1000, MaxSteps: 100}},
		New: func(variant string, _ scenario.Values) (sim.Model, error) {
			if variant == "link-drop" {
				return &rally{drop: 0.5}, nil
			}
			return &rally{mayLose: true}, nil
		},
	}
}

// TestLinkDropIsNotEnumerableSendOrLoseIs pins why a model that wants
// bfs to explore its losses uses SendOrLose: Link.Drop decides each
// message with a draw over 2^16 options, which bfs refuses to enumerate;
// SendOrLose is a choice of two, and bfs covers both outcomes.
func TestLinkDropIsNotEnumerableSendOrLoseIs(t *testing.T) {
	w := sim.NewWorld(&rally{drop: 0.5}, 1, sim.NewRandomChooser(1), sim.Options{Trace: true})
	if err := w.Run(sim.Limits{}); err != nil {
		t.Fatal(err)
	}
	if cs := w.Trace().Choices; len(cs) != 1 || cs[0].N != 1<<16 || cs[0].Label != "lose ping→pong?" {
		t.Fatalf("choices %+v, want one of 65536 options labelled lose ping→pong?", cs)
	}
	reg := scenario.NewRegistry(rallyScenario())
	search := func(variant string) check.Result {
		x, err := check.New(reg, check.Config{Scenario: "rally", Variant: variant, Strategy: check.BFS})
		if err != nil {
			t.Fatal(err)
		}
		return x.Run()
	}
	if r := search("link-drop"); r.Exhaustive || !strings.Contains(r.Error, `draws "lose ping→pong?" with 65536 options`) {
		t.Fatalf("bfs over Link.Drop: exhaustive %v, error %q", r.Exhaustive, r.Error)
	}
	r := search("send-or-lose")
	if !r.Exhaustive || r.Error != "" || r.States != 4 {
		t.Fatalf("bfs over SendOrLose: exhaustive %v, %d states, error %q", r.Exhaustive, r.States, r.Error)
	}
}

// tablePingPong is pingPong (pingpong_test.go) with its actors declared
// in a handler table: BenchmarkPingPongTable against BenchmarkPingPong is
// the cost of the table's dispatch.
type tablePingPong struct {
	pingPong
	actors sim.Actors[*tablePingPong]
}

var paddle = sim.Handlers[*tablePingPong]{
	sim.On("hits the ball", func(m *tablePingPong, w *sim.World, p *sim.Proc, b sim.Msg[ball]) string {
		m.hit(w, p, b.Body.N)
		return "hit"
	}),
	sim.OnTimer(0, "serves", func(m *tablePingPong, w *sim.World, p *sim.Proc, _ sim.Fired) string {
		m.hit(w, p, 0)
		return "hit"
	}),
}

func (m *tablePingPong) hit(w *sim.World, p *sim.Proc, n int) {
	m.hits++
	if n < m.limit {
		to := m.b
		if p.ID == m.b {
			to = m.a
		}
		w.Send(p.ID, to, ball{N: n + 1})
	}
}

func (m *tablePingPong) Init(w *sim.World) {
	w.SetDefaultLink(m.link)
	m.a = m.actors.Add(w, w.AddNode("a"), -1, "ping", paddle)
	m.b = m.actors.Add(w, w.AddNode("b"), -1, "pong", paddle)
	w.SetTimer(m.a, 0, 0)
}

func (m *tablePingPong) Handle(w *sim.World, p *sim.Proc, ev *sim.Event) sim.Action {
	return m.actors.Handle(m, w, p, ev)
}
func (m *tablePingPong) Clone() sim.Model { c := *m; return &c }

func BenchmarkPingPongTable(b *testing.B) {
	const hits = 100_000
	events := 0
	for b.Loop() {
		m := &tablePingPong{pingPong: pingPong{limit: hits, link: sim.Link{Min: sim.Millisecond, Max: sim.Millisecond, FIFO: true}}}
		w := sim.NewWorld(m, 1, sim.NewRandomChooser(1), sim.Options{})
		if err := w.Run(sim.Limits{}); err != nil {
			b.Fatal(err)
		}
		if m.hits != hits+1 {
			b.Fatalf("%d hits, want %d", m.hits, hits+1)
		}
		events += w.Steps()
	}
	b.ReportMetric(float64(events)/b.Elapsed().Seconds(), "events/s")
}
