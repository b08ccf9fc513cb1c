package check

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/racetrack-sim/racetrack/core/scenario"
	"github.com/racetrack-sim/racetrack/core/sim"
)

// runEngine is the random swarm and PCT: one unit of work is one run.
// Run i uses seed cfg.Seed+i, so "run 17 failed" reproduces with that seed.
type runEngine struct {
	x   *Explorer
	pct bool
	// next is the index of the next run.
	next int
	// k is PCT's expected run length in scheduling choices, measured once
	// with a random run of the base spec.
	k int
}

func (e *runEngine) step(budget int) int {
	x := e.x
	used := 0
	for used < budget && !x.prog.Done && x.found == nil {
		if x.prog.Runs >= x.cfg.Budget.Runs {
			x.prog.Done = true
			break
		}
		if e.pct && e.k == 0 {
			k, err := e.calibrate()
			if err != nil {
				x.err = err
				return used
			}
			e.k = k
		}
		spec, err := e.specOf(e.next)
		if err != nil {
			x.err = err
			return used
		}
		e.next++
		used++
		x.prog.Runs++
		var ch sim.Chooser = sim.NewRandomChooser(spec.Seed)
		if e.pct {
			ch = NewPCTChooser(spec.Seed, x.cfg.PCTDepth, e.k)
		}
		w, err := x.newWorld(spec, ch)
		if err != nil {
			x.err = err
			return used
		}
		lim := spec.Limits()
		lim.MaxSteps = min(lim.MaxSteps, x.cfg.Budget.Depth)
		v, ok, err := x.runToViolation(w, lim)
		if err != nil {
			x.err = err
			return used
		}
		x.prog.Depth = max(x.prog.Depth, w.Steps())
		if ok {
			spec.Schedule = slices.Clone(w.Schedule())
			spec.MaxSteps = lim.MaxSteps
			x.report(spec, v)
		}
	}
	return used
}

// calibrate measures the number of event choices of one random run of the
// base spec: PCT's k.
func (e *runEngine) calibrate() (int, error) {
	counter := &countingChooser{inner: sim.NewRandomChooser(e.x.base.Seed)}
	w, err := e.x.newWorld(e.x.base, counter)
	if err != nil {
		return 0, err
	}
	lim := e.x.base.Limits()
	lim.MaxSteps = min(lim.MaxSteps, e.x.cfg.Budget.Depth)
	if err := w.Run(lim); err != nil {
		return 0, err
	}
	return max(counter.events, 1), nil
}

// specOf is the spec of run i: its seed, and parameters drawn from the
// swarm's ranges.
func (e *runEngine) specOf(i int) (scenario.RunSpec, error) {
	x := e.x
	spec := x.base
	spec.Seed = (x.cfg.Seed + uint64(i)) % (scenario.MaxSeed + 1)
	if len(x.cfg.ParamRanges) == 0 {
		return spec, nil
	}
	rng := rand.New(rand.NewPCG(spec.Seed, 0x73776172_6d706172))
	for _, name := range sortedRangeKeys(x.cfg.ParamRanges) {
		spec = x.cfg.withParam(spec, name, draw(rng, x.sc, name, x.cfg.ParamRanges[name]))
	}
	ns, _, err := x.reg.Normalize(spec)
	return ns, err
}

// draw picks one value of a parameter range.
func draw(rng *rand.Rand, sc *scenario.Scenario, name string, r ParamRange) any {
	if len(r.Values) > 0 {
		return r.Values[rng.IntN(len(r.Values))]
	}
	p, _ := sc.Param(name)
	if p.Type == scenario.TypeInt {
		lo, hi := int64(math.Ceil(r.Min)), int64(math.Floor(r.Max))
		if hi < lo {
			return lo
		}
		return lo + rng.Int64N(hi-lo+1)
	}
	return r.Min + rng.Float64()*(r.Max-r.Min)
}

// countingChooser counts the event choices of a run.
type countingChooser struct {
	inner  sim.Chooser
	events int
}

func (c *countingChooser) Choose(ch *sim.Choice) int {
	if ch.Kind == sim.ChooseEvent {
		c.events++
	}
	return c.inner.Choose(ch)
}

// PCTChooser is the PCT scheduler of Burckhardt, Kothari, Musuvathi and
// Nagarakatte (ASPLOS 2010): every process gets a random initial priority
// of at least d, and at d-1 change points drawn uniformly from the k
// expected scheduling choices the process that runs gets priority d-i, below
// every initial one. Among ready events the one whose process has the
// highest priority runs. Value choices (latencies, losses, workload draws)
// come from the seed's generator. A bug of depth d is found by one run
// with probability at least 1/(n k^(d-1)) for n processes.
type PCTChooser struct {
	rng    *rand.Rand
	d      int
	prio   []float64 // by process; NaN until the process is first seen
	change []int     // change points (1-based event choice counts), ascending
	events int
}

// NewPCTChooser returns a PCT chooser of depth d over k expected choices.
func NewPCTChooser(seed uint64, d, k int) *PCTChooser {
	c := &PCTChooser{rng: rand.New(rand.NewPCG(seed, 0x7063745f63686f6f)), d: d}
	for i := 0; i < d-1; i++ {
		c.change = append(c.change, 1+c.rng.IntN(max(k, 1)))
	}
	slices.Sort(c.change)
	return c
}

func (c *PCTChooser) priority(p sim.ProcID) float64 {
	for int(p) >= len(c.prio) {
		c.prio = append(c.prio, math.NaN())
	}
	if math.IsNaN(c.prio[p]) {
		c.prio[p] = float64(c.d) + c.rng.Float64()
	}
	return c.prio[p]
}

// Choose runs the ready event of the highest-priority process.
func (c *PCTChooser) Choose(ch *sim.Choice) int {
	if ch.Kind != sim.ChooseEvent {
		return c.rng.IntN(ch.N)
	}
	c.events++
	best := 0
	for i := 1; i < ch.N; i++ {
		if c.priority(ch.Procs[i]) > c.priority(ch.Procs[best]) {
			best = i
		}
	}
	for i, at := range c.change {
		if at == c.events {
			c.prio[ch.Procs[best]] = float64(c.d - 1 - i)
		}
	}
	return best
}

// PCTBound is the paper's lower bound on the probability that one run
// finds a bug of depth d among n processes and k scheduling steps.
func PCTBound(n, k, d int) float64 {
	return 1 / (float64(n) * math.Pow(float64(k), float64(d-1)))
}

// StartAt makes a random or pct search begin at run first, as if runs 0
// to first-1 had run without a violation (they count in Progress.Runs;
// Progress.Depth does not include them). A driver that splits the runs
// into seed ranges (internal/cluster) runs range [lo, hi) with
// Budget.Runs = hi and StartAt(lo): run i has the seed, the parameters
// and, for pct, the calibration it has in the whole search, so the run
// fails or passes the same way. Call it before the first Step.
func (x *Explorer) StartAt(first int) error {
	e, ok := x.eng.(*runEngine)
	if !ok {
		return fmt.Errorf("%w: StartAt splits random and pct searches; strategy is %s", ErrUnsupported, x.cfg.Strategy)
	}
	if first < 0 || first > x.cfg.Budget.Runs {
		return fieldErr("budget.runs", "first run %d is outside [0, %d]", first, x.cfg.Budget.Runs)
	}
	if x.prog.Runs != 0 || e.next != 0 {
		return fmt.Errorf("check: StartAt after the search started")
	}
	e.next, x.prog.Runs = first, first
	return nil
}
