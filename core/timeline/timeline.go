// Package timeline turns a run into a recorded timeline a person can move
// through: the steps with their vector clocks, the violations and series,
// and snapshots of the world every K steps, so that the state after any
// step is a clone of the nearest snapshot plus at most K replayed steps.
// Stepping backwards is a seek. On top of that it answers the debugger's
// questions: the state view at a step with what changed, the next event of
// a kind, what else could have happened at a choice point (and a new run
// that takes it), the happens-before past of a step, and where two runs of
// one scenario part ways.
//
// Like the rest of core it performs no I/O and reads no clock: a timeline
// is a pure function of its RunSpec.
package timeline

import (
	"errors"
	"fmt"

	"github.com/racetrack-sim/racetrack/core/scenario"
	"github.com/racetrack-sim/racetrack/core/sim"
)

// Sentinel errors.
var (
	// ErrStepRange is wrapped by every error about a step index outside
	// the timeline.
	ErrStepRange = errors.New("timeline: step out of range")
	// ErrChoice is wrapped by errors about a choice or option that does
	// not exist at a step.
	ErrChoice = errors.New("timeline: no such choice")
	// ErrReplay means replaying from a snapshot did not reproduce the
	// recorded run (a model that is not deterministic, or that clones
	// badly).
	ErrReplay = errors.New("timeline: replay diverged from the recording")
	// ErrStopped means Options.Continue stopped a recording.
	ErrStopped = errors.New("timeline: recording stopped")
)

// DefaultSnapshotEvery is the snapshot interval when Options leaves it 0.
const DefaultSnapshotEvery = 1024

// Options configure a recording.
type Options struct {
	// SnapshotEvery is K: a world snapshot is kept every K steps, so a
	// seek replays at most K-1 steps. 0 means DefaultSnapshotEvery.
	SnapshotEvery int
	// Parent, when set, records that this run was forked from another one
	// (the what-if tree).
	Parent *Branch
	// Continue, when set, is asked at every snapshot whether to go on;
	// false stops the recording with ErrStopped (a server that must give
	// memory back).
	Continue func() bool
}

// Timeline is a recorded run. It is immutable once recorded and safe to
// read from several goroutines of a caller (it never mutates itself).
type Timeline struct {
	id       string
	spec     scenario.RunSpec
	sc       *scenario.Scenario
	final    *sim.World
	trace    *sim.Trace
	schedule []int
	every    int
	snaps    []*sim.World // snaps[k] is the world after k*every steps
	parent   *Branch

	procs   []sim.Proc
	nodes   []sim.Node
	mutexes []sim.Mutex
	conds   []sim.Cond
	untimed bool
	// imported is set for an execution recorded outside the simulator
	// (see Imported): it has no scenario, final world or snapshots.
	imported *importedRun

	idx index
}

// Record runs spec with tracing and keeps what a debugger needs.
func Record(reg *scenario.Registry, spec scenario.RunSpec, opt Options) (*Timeline, error) {
	n, err := reg.Check(spec)
	if err != nil {
		return nil, err
	}
	p, err := Prepare(n, opt)
	if err != nil {
		return nil, err
	}
	return p.Record()
}

// Pending is a run about to be recorded: its spec checked, its model and
// world built (not run), so its memory is known before it runs (Bytes)
// and the same world is recorded (Record).
type Pending struct {
	n   scenario.Normal
	opt Options
	w   *sim.World
}

// Prepare builds the traced world of a checked spec.
func Prepare(n scenario.Normal, opt Options) (*Pending, error) {
	if opt.SnapshotEvery <= 0 {
		opt.SnapshotEvery = DefaultSnapshotEvery
	}
	w, err := n.World(scenario.Options{Trace: true})
	if err != nil {
		return nil, err
	}
	return &Pending{n: n, opt: opt, w: w}, nil
}

// Bytes is the memory the timeline will hold at most: every step of the
// budget taken, one message per step, a snapshot every SnapshotEvery
// steps.
func (p *Pending) Bytes() int64 {
	ns, sc := p.n.Spec(), p.n.Scenario()
	return traceBytes(len(p.w.Procs()), ns.MaxSteps, ns.MaxSteps, ns.MaxSteps, p.opt.SnapshotEvery, sc.CostOf(scenario.Values(ns.Params)))
}

// Record runs the world and keeps what a debugger needs. Call it once.
func (p *Pending) Record() (*Timeline, error) {
	ns, sc, w, opt, every := p.n.Spec(), p.n.Scenario(), p.w, p.opt, p.opt.SnapshotEvery
	p.w = nil
	if w == nil {
		return nil, errors.New("timeline: a pending run recorded twice")
	}
	tl := &Timeline{id: ns.ID(), spec: ns, sc: sc, every: every, parent: opt.Parent, untimed: w.Untimed()}
	tl.procs = append([]sim.Proc(nil), w.Procs()...)
	tl.nodes = append([]sim.Node(nil), w.Nodes()...)
	tl.mutexes = append([]sim.Mutex(nil), w.Mutexes()...)
	tl.conds = append([]sim.Cond(nil), w.Conds()...)
	// Names and ids only: the waiter lists are the world's, which it
	// changes in place as it runs.
	for i := range tl.mutexes {
		tl.mutexes[i].Waiters = nil
	}
	for i := range tl.conds {
		tl.conds[i].Waiters = nil
	}
	tl.snaps = append(tl.snaps, w.Snapshot())
	limits := ns.Limits()
	for w.Stop() == sim.StopNone {
		if w.StepWithin(limits) && w.Steps()%every == 0 {
			if opt.Continue != nil && !opt.Continue() {
				return nil, ErrStopped
			}
			tl.snaps = append(tl.snaps, w.Snapshot())
		}
	}
	w.Finish()
	if err := w.Err(); err != nil {
		if errors.Is(err, sim.ErrScheduleMismatch) {
			return nil, &scenario.FieldError{Field: "schedule", Msg: err.Error()}
		}
		return nil, fmt.Errorf("scenario %s: %w", sc.ID, err)
	}
	if rc, ok := w.ChooserOf().(*sim.ReplayChooser); ok && rc.Remaining() > 0 {
		return nil, &scenario.FieldError{Field: "schedule", Msg: fmt.Sprintf("%v: the run ended (%s) with %d of its %d choices unused",
			sim.ErrScheduleMismatch, w.Stop(), rc.Remaining(), len(ns.Schedule))}
	}
	tl.final = w
	tl.trace = w.Trace()
	tl.schedule = w.Schedule()
	tl.idx = buildIndex(tl)
	return tl, nil
}

// ID is the run id (the hash of the normalised spec).
func (tl *Timeline) ID() string { return tl.id }

// Spec is the normalised spec the timeline was recorded from.
func (tl *Timeline) Spec() scenario.RunSpec { return tl.spec }

// Scenario is the scenario the run belongs to.
func (tl *Timeline) Scenario() *scenario.Scenario { return tl.sc }

// Parent is the fork this run was made from, or nil.
func (tl *Timeline) Parent() *Branch { return tl.parent }

// Summary describes the run as POST /runs does.
func (tl *Timeline) Summary() scenario.Summary {
	if tl.imported != nil {
		return tl.importedSummary()
	}
	r := scenario.Run{ID: tl.id, Spec: tl.spec, Scenario: tl.sc, World: tl.final}
	return r.Summary()
}

// Len is the number of steps.
func (tl *Timeline) Len() int { return tl.trace.Len() }

// Trace is the kernel's recording. Callers must not modify it.
func (tl *Timeline) Trace() *sim.Trace { return tl.trace }

// Schedule is the run's full choice list. Callers must not modify it.
func (tl *Timeline) Schedule() []int { return tl.schedule }

// Procs lists the processes as created by Init.
func (tl *Timeline) Procs() []sim.Proc { return tl.procs }

// Nodes lists the nodes as created by Init.
func (tl *Timeline) Nodes() []sim.Node { return tl.nodes }

// Mutexes lists the mutexes as created by Init.
func (tl *Timeline) Mutexes() []sim.Mutex { return tl.mutexes }

// Conds lists the condition variables as created by Init.
func (tl *Timeline) Conds() []sim.Cond { return tl.conds }

// Untimed reports whether the run was in untimed mode (all times zero).
func (tl *Timeline) Untimed() bool { return tl.untimed }

// Violations lists the run's violations in the order they happened.
func (tl *Timeline) Violations() []sim.Violation {
	if tl.imported != nil {
		return tl.imported.violations
	}
	return tl.final.Violations()
}

// Properties lists the properties checked in the run.
func (tl *Timeline) Properties() []sim.Property {
	if tl.imported != nil {
		return nil
	}
	return tl.final.PropertyList()
}

// Final is the world at the end of the run (after its end-of-run checks),
// nil for an imported execution. Callers must not step or modify it.
func (tl *Timeline) Final() *sim.World { return tl.final }

// SnapshotEvery is the snapshot interval K.
func (tl *Timeline) SnapshotEvery() int { return tl.every }

// checkStep returns an error wrapping ErrStepRange unless 0 <= i < Len.
func (tl *Timeline) checkStep(i int) error {
	if n := tl.Len(); i < 0 || i >= n {
		if n == 0 {
			return fmt.Errorf("%w: step %d requested, but the run has no steps", ErrStepRange, i)
		}
		return fmt.Errorf("%w: step %d is outside [0, %d]", ErrStepRange, i, n-1)
	}
	return nil
}
