// Package timelinetest provides a synthetic scenario for the tests and
// benchmarks of the packages that draw and export timelines: a run of any
// length that mixes messages (some lost), timers, lock contention between
// sharded threads, and an occasional property violation.
package timelinetest

import (
	"fmt"
	"strconv"

	"github.com/racetrack-sim/racetrack/core/scenario"
	"github.com/racetrack-sim/racetrack/core/sim"
)

// ScenarioID is the id of the workload scenario.
const ScenarioID = "workload"

// Registry returns a registry holding only the workload scenario.
func Registry() *scenario.Registry { return scenario.NewRegistry(Scenario()) }

// Spec is a run of the workload of the given length.
func Spec(steps int, seed uint64) scenario.RunSpec {
	return scenario.RunSpec{Scenario: ScenarioID, Seed: seed, MaxSteps: steps, MaxTime: scenario.MaxTimeCap}
}

type req struct{ N int }

func (r req) Label() string          { return "req " + strconv.Itoa(r.N) }
func (r req) HashInto(h *sim.Hasher) { h.Int(r.N) }

type resp struct{ N int }

func (r resp) Label() string          { return "resp " + strconv.Itoa(r.N) }
func (r resp) HashInto(h *sim.Hasher) { h.Int(r.N) }

// Workload is the model state.
type Workload struct {
	workers  int
	mu       []sim.MutexID
	client   sim.ProcID
	handler  sim.ProcID
	sent     int
	answered int
	updates  int
	inflight sim.SeriesID
	done     sim.SeriesID
}

const (
	pcLock = iota
	pcUpdate
	pcUnlock
	pcIdle
)

// Init builds a client, a server with a request handler and sharded
// workers sharing two mutexes.
func (m *Workload) Init(w *sim.World) {
	w.SetDefaultLink(sim.Link{Min: sim.Millisecond, Max: 4 * sim.Millisecond, Res: sim.Millisecond, Drop: 0.05})
	client := w.AddNode("client")
	server := w.AddNode("server")
	m.client = w.AddActor(client, -1, "client")
	m.handler = w.AddActor(server, -1, "handler")
	m.mu = []sim.MutexID{w.AddMutex(server, "tableMu"), w.AddMutex(server, "logMu")}
	for i := 0; i < m.workers; i++ {
		w.AddThread(server, i%2, "worker"+strconv.Itoa(i), sim.Time(i)*sim.Millisecond)
	}
	w.SetTimer(m.client, 0, 0)
	m.inflight = w.DefineSeries("requests in flight", "requests", "client")
	m.done = w.DefineSeries("updates", "updates", "server")
}

// Handle runs one step.
func (m *Workload) Handle(w *sim.World, p *sim.Proc, ev *sim.Event) sim.Action {
	switch p.ID {
	case m.client:
		if ev.Kind == sim.EvTimer {
			m.sent++
			w.Send(p.ID, m.handler, req{N: m.sent})
			w.SetTimer(p.ID, w.Between(sim.Millisecond, 3*sim.Millisecond, sim.Millisecond, "request gap"), 0)
			w.Sample(m.inflight, float64(m.sent-m.answered))
			return sim.Local("send req "+strconv.Itoa(m.sent), 0)
		}
		m.answered++
		w.Sample(m.inflight, float64(m.sent-m.answered))
		return sim.Local("got "+ev.Payload.(sim.Labeler).Label(), 0)
	case m.handler:
		n := ev.Payload.(req).N
		w.Send(p.ID, m.client, resp{N: n})
		return sim.Local("answer "+strconv.Itoa(n), 0)
	}
	mu := m.mu[int(p.ID)%2]
	switch p.PC {
	case pcLock:
		p.PC = pcUpdate
		return sim.Lock(mu, "lock")
	case pcUpdate:
		p.PC = pcUnlock
		m.updates++
		w.Sample(m.done, float64(m.updates))
		return sim.Local("update", sim.Millisecond)
	case pcUnlock:
		p.PC = pcIdle
		return sim.Unlock(mu, "unlock")
	}
	p.PC = pcLock
	return sim.Sleep(w.Between(0, 3*sim.Millisecond, sim.Millisecond, "idle time"), "idle")
}

var properties = sim.Props[*Workload]{
	sim.NoDeadlockProp[*Workload](sim.NoDeadlockHelp),
	sim.Always("few-unanswered", "at most five requests are unanswered",
		func(_ *sim.World, x *Workload) bool { return x.sent-x.answered <= 5 },
		func(_ *sim.World, x *Workload) string {
			return fmt.Sprintf("%d requests unanswered (%d sent, %d answered)", x.sent-x.answered, x.sent, x.answered)
		}),
}

// Properties: at most five requests unanswered (lost replies break it).
func (m *Workload) Properties() []sim.Property { return properties.Of(m) }

// Clone copies the state.
func (m *Workload) Clone() sim.Model { c := *m; return &c }

// Hash folds the counters.
func (m *Workload) Hash(h *sim.Hasher) {
	h.Int(m.sent)
	h.Int(m.answered)
	h.Int(m.updates)
}

// Describe says what a pending event would do.
func (m *Workload) Describe(w *sim.World, ev *sim.Event) string {
	p := w.Proc(ev.Proc)
	switch {
	case ev.Kind == sim.EvDeliver:
		return p.Name + " handles " + ev.Payload.(sim.Labeler).Label()
	case ev.Kind == sim.EvTimer:
		return p.Name + " sends the next request"
	case ev.Kind == sim.EvAcquire:
		return p.Name + " gets " + w.Mutex(ev.Mutex).Name
	case p.PC == pcLock:
		return p.Name + " locks " + w.Mutex(m.mu[int(p.ID)%2]).Name
	}
	return p.Name + " works"
}

// Scenario is the catalog entry.
func Scenario() *scenario.Scenario {
	return &scenario.Scenario{
		ID:       ScenarioID,
		Title:    "Synthetic workload",
		Summary:  "Requests, replies, lost messages and lock contention, for tests and benchmarks.",
		Variants: []scenario.Variant{{ID: "default", Title: "default"}},
		Presets: []scenario.Preset{{ID: "default", Title: "default", Params: map[string]any{},
			MaxTime: scenario.MaxTimeCap, MaxSteps: scenario.MaxStepsCap}},
		Params:     []scenario.Param{scenario.IntParam("workers", 4, 1, 16, "", "worker threads")},
		Properties: properties.Info(),
		New: func(_ string, v scenario.Values) (sim.Model, error) {
			return &Workload{workers: v.Int("workers")}, nil
		},
	}
}
