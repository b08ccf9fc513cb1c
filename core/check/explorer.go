package check

import (
	"fmt"

	"github.com/racetrack-sim/racetrack/core/scenario"
	"github.com/racetrack-sim/racetrack/core/sim"
)

// finding is a counterexample.
type finding struct {
	spec      scenario.RunSpec
	violation sim.Violation
}

// engine is one strategy: step does at most budget units of work and
// returns how many it did.
type engine interface {
	step(budget int) int
}

// Explorer runs one search in slices.
type Explorer struct {
	reg  *scenario.Registry
	cfg  Config
	base scenario.RunSpec
	sc   *scenario.Scenario
	eng  engine

	prog     Progress
	found    *finding
	original int
	shrink   *shrinker
	verified bool // an exhaustive search completed
	sampled  bool // a drawn value was sampled (Config.ValueSamples)
	// rebuilds counts the states bfs rebuilt after stepping their world
	// into a successor (tests read it).
	rebuilds int
	bounded  bool // a search that ran out of states to expand was cut by its bounds
	// reach: the searched property is a Sometimes property; a "violation"
	// is then the first step that reaches it.
	reach   bool
	applied Reductions
	err     error
}

// New validates cfg against the registry and returns an explorer ready to
// Step. Validation errors are *scenario.FieldError naming the field.
func New(reg *scenario.Registry, cfg Config) (*Explorer, error) {
	cfg, base, sc, err := cfg.normalize(reg)
	if err != nil {
		return nil, err
	}
	x := &Explorer{reg: reg, cfg: cfg, base: base, sc: sc}
	for _, p := range sc.Properties {
		x.reach = x.reach || (p.Name == cfg.Property && p.Kind == sim.KindSometimes)
	}
	switch cfg.Strategy {
	case Random, PCT:
		x.eng = &runEngine{x: x, pct: cfg.Strategy == PCT}
	case BFS, DFS:
		e, err := newGraphEngine(x)
		if err != nil {
			return nil, err
		}
		x.eng = e
	}
	return x, nil
}

// Config is the normalised configuration.
func (x *Explorer) Config() Config { return x.cfg }

// Err is the error that stopped the search early, if any.
func (x *Explorer) Err() error { return x.err }

// Step does up to budget units of work (runs for random and pct, states
// for bfs and dfs, replays while shrinking) and reports the progress.
// Once Progress.Done is true, further calls do nothing.
func (x *Explorer) Step(budget int) Progress {
	if budget < 1 {
		budget = 1
	}
	for budget > 0 && !x.prog.Done {
		var used int
		switch {
		case x.shrink != nil:
			used = x.shrink.step(budget)
			x.prog.BestLength = len(x.shrink.cur)
			if x.shrink.done {
				x.finishShrink()
			}
		default:
			used = x.eng.step(budget)
		}
		if x.err != nil {
			x.prog.Done = true
		}
		if used < 1 {
			used = 1
		}
		budget -= used
	}
	return x.Progress()
}

// Progress is where the search stands.
func (x *Explorer) Progress() Progress {
	x.prog.Shrinking = x.shrink != nil && !x.prog.Done
	return x.prog
}

// Run steps the search to its end: a convenience for tests and commands.
func (x *Explorer) Run() Result {
	for !x.Step(1 << 12).Done {
	}
	return x.Result()
}

// report is called by an engine that found a counterexample.
func (x *Explorer) report(spec scenario.RunSpec, v sim.Violation) {
	x.found = &finding{spec: spec, violation: v}
	x.original = len(spec.Schedule)
	x.prog.Found = true
	x.prog.BestLength = x.original
	if x.cfg.NoShrink {
		x.finishShrink()
		return
	}
	x.shrink = newShrinker(x, spec.Schedule)
}

// finishShrink takes the shrunk schedule, checks that it replays and ends
// the search.
func (x *Explorer) finishShrink() {
	if x.shrink != nil && len(x.shrink.cur) < len(x.found.spec.Schedule) {
		x.found.spec.Schedule = x.shrink.cur
		x.found.violation = x.shrink.violation
	}
	x.prog.BestLength = len(x.found.spec.Schedule)
	x.prog.Done = true
	if err := x.verify(); err != nil {
		x.err = err
	}
}

// verify replays the counterexample as a user would.
func (x *Explorer) verify() error {
	run, err := x.reg.Execute(x.found.spec, scenario.Options{})
	if err != nil {
		return fmt.Errorf("%w: %v", ErrReplay, err)
	}
	for _, v := range x.outcomes(run.World) {
		if v.Property == x.found.violation.Property {
			if v.Message != x.found.violation.Message || v.Step != x.found.violation.Step {
				return fmt.Errorf("%w: %s at step %d (%s), found at step %d (%s)", ErrReplay,
					v.Property, v.Step, v.Message, x.found.violation.Step, x.found.violation.Message)
			}
			return nil
		}
	}
	return fmt.Errorf("%w: %s is not violated on replay", ErrReplay, x.found.violation.Property)
}

// Result describes the search so far (final once Progress.Done).
func (x *Explorer) Result() Result {
	r := Result{
		Strategy:    x.cfg.Strategy,
		Bounds:      Bounds{Depth: x.cfg.Budget.Depth},
		Verdict:     VerdictNone,
		Property:    x.cfg.Property,
		States:      x.prog.States,
		Transitions: x.prog.Transitions,
		Runs:        x.prog.Runs,
		Depth:       x.prog.Depth,
		Stop:        x.stop(),
	}
	switch x.cfg.Strategy {
	case Random:
		r.Bounds.Runs = x.cfg.Budget.Runs
	case PCT:
		r.Bounds.Runs, r.Bounds.PCTDepth = x.cfg.Budget.Runs, x.cfg.PCTDepth
	default:
		r.Bounds.States = x.cfg.Budget.States
		r.Reductions = x.applied
		r.Storage = x.cfg.Storage
		if s := x.store(); s != nil {
			r.OmissionProbability = s.omission()
		}
	}
	if x.err != nil {
		r.Error = x.err.Error()
	}
	if x.reach {
		r.Verdict = VerdictNotReached
	}
	r.Sampled = x.sampled
	if x.found != nil {
		spec := x.found.spec
		r.Found, r.Verdict = true, VerdictViolation
		if x.reach {
			r.Verdict = VerdictReached
		}
		r.Property, r.Violation, r.Step = x.found.violation.Property, x.found.violation.Message, x.found.violation.Step
		r.Counterexample = &spec
		r.Length = len(spec.Schedule)
		r.OriginalLength = x.original
		r.Shrunk = r.Length < x.original
		return r
	}
	if (x.verified || x.bounded) && x.err == nil && x.sampled {
		r.Verdict = VerdictSampled
		if x.reach {
			r.Verdict = VerdictNotReached
		}
	} else if x.bounded && x.err == nil {
		r.Verdict = VerdictBounded
		if x.reach {
			r.Verdict = VerdictNotReached
		}
	} else if x.verified && x.err == nil {
		r.Exhaustive, r.Verdict = true, VerdictVerified
		if x.reach {
			r.Verdict = VerdictUnreachable
		}
	}
	return r
}

// graph is the graph engine of bfs and dfs (nil for the other engines).
func (x *Explorer) graph() *graphEngine {
	switch e := x.eng.(type) {
	case *bfsEngine:
		return e.g
	case *dfsEngine:
		return e.g
	}
	return nil
}

// store is the visited set of bfs and dfs (nil for the other engines).
func (x *Explorer) store() *stateStore {
	if e := x.graph(); e != nil {
		return e.store
	}
	return nil
}

// matches reports whether v is a violation of the searched property.
func (x *Explorer) matches(v *sim.Violation) bool {
	return x.cfg.Property == "" || v.Property == x.cfg.Property
}

// outcomes are what a search looks for in w: its violations or, for a
// Sometimes property, the properties it reached.
func (x *Explorer) outcomes(w *sim.World) []sim.Violation {
	if x.reach {
		return w.Reached()
	}
	return w.Violations()
}

// violation returns the first violation of the searched property in w
// (for a Sometimes property, the step that reached it).
func (x *Explorer) violation(w *sim.World) (sim.Violation, bool) {
	for _, v := range x.outcomes(w) {
		if x.matches(&v) {
			return v, true
		}
	}
	return sim.Violation{}, false
}

// ended ends a depth-first search whose frontier holds frontier states
// when nothing is left to expand (verified, or bounded when a bound cut
// the search) or its state budget is spent, and reports whether it did.
func (x *Explorer) ended(frontier int, cut bool) bool {
	switch {
	case frontier == 0:
		x.prog.Done = true
		x.verified, x.bounded = !cut, cut
	case x.prog.States >= x.cfg.Budget.States:
		x.prog.Done = true
	}
	return x.prog.Done
}

// runToViolation runs w until the searched property fails or the run ends
// within lim, and returns the violation if any.
func (x *Explorer) runToViolation(w *sim.World, lim sim.Limits) (sim.Violation, bool, error) {
	for w.StepWithin(lim) {
		if v, ok := x.violation(w); ok {
			return v, true, nil
		}
	}
	if err := w.Err(); err != nil {
		return sim.Violation{}, false, err
	}
	w.Finish()
	v, ok := x.violation(w)
	return v, ok, nil
}

// PlanWorkers tells the explorer that a driver runs its tasks on up to
// workers goroutines. A dfs then splits its frontier into one stack per
// worker, if it has not expanded a state yet and can (see dfsEngine),
// and takes its locks from locks(n) (nil when the tasks never run
// concurrently); bfs cuts its levels into tasks whatever the number and
// needs no lock. Results do not depend on it.
func (x *Explorer) PlanWorkers(workers int, locks func(n int) Locks) {
	if d, ok := x.eng.(*dfsEngine); ok && x.shrink == nil && x.found == nil && x.err == nil {
		d.plan(min(workers, MaxWorkers), locks)
	}
}

// Workers is the number of goroutines a dfs's result was computed on:
// 1 unless it ran to its end split among workers (see PlanWorkers).
func (x *Explorer) Workers() int {
	if d, ok := x.eng.(*dfsEngine); ok {
		return d.workersUsed()
	}
	return 1
}

// Tasks is the number of tasks of the search's current parallel phase,
// or 0 when it has none (the search is not a bfs or a dfs split among
// workers, is done, or is shrinking a counterexample): then the caller
// Steps it. Tasks of one phase may run concurrently, each once, on any
// goroutines, with nothing else touching the explorer meanwhile; then
// EndPhase. Step does the same work on the caller's goroutine, with the
// same results.
func (x *Explorer) Tasks() int {
	if x.prog.Done || x.shrink != nil || x.found != nil || x.err != nil {
		return 0
	}
	switch e := x.eng.(type) {
	case *bfsEngine:
		return e.tasks() - e.next
	case *dfsEngine:
		return e.tasks()
	}
	return 0
}

// Scratch returns the explorer's i-th Scratch, for a driver's i-th
// goroutine (made on first use; call it before starting the goroutines).
// A dfs's workers keep their own memory: it returns nil.
func (x *Explorer) Scratch(i int) *Scratch {
	b, ok := x.eng.(*bfsEngine)
	if !ok {
		return nil
	}
	for len(b.scratches) <= i {
		b.scratches = append(b.scratches, &Scratch{})
	}
	return b.scratches[i]
}

// RunTask runs task i (0 <= i < Tasks()) of the current phase.
func (x *Explorer) RunTask(i int) { x.RunTaskWith(i, nil) }

// RunTaskWith is RunTask reusing sc's memory (nil: none), which saves
// allocating worlds task after task: give each goroutine its own.
func (x *Explorer) RunTaskWith(i int, sc *Scratch) {
	if d, ok := x.eng.(*dfsEngine); ok {
		d.runTask(i)
		return
	}
	b := x.eng.(*bfsEngine)
	b.runTask(b.next+i, sc)
}

// EndPhase ends the current phase once its tasks ran and reports the
// progress.
func (x *Explorer) EndPhase() Progress {
	if d, ok := x.eng.(*dfsEngine); ok {
		d.endPhase()
		return x.Progress()
	}
	b := x.eng.(*bfsEngine)
	b.next = b.tasks()
	b.endPhase()
	return x.Progress()
}
