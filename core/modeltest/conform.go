package modeltest

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"sort"
	"testing"

	"github.com/racetrack-sim/racetrack/core/check"
	"github.com/racetrack-sim/racetrack/core/scenario"
	"github.com/racetrack-sim/racetrack/core/sim"
	"github.com/racetrack-sim/racetrack/core/timeline"
)

// Options bound the conformance checks.
type Options struct {
	// Seeds are the seeds each preset and variant is checked with.
	Seeds []uint64
	// MaxSteps caps every checked run (0: the preset's own budget).
	MaxSteps int
	// Picks is the number of random steps the seek and clone checks
	// examine in each run (the last step is always examined too).
	Picks int
	// ReachRuns bounds the random runs that look for a preset's Reach.
	ReachRuns int
	// BudgetSteps caps the runs of CheckBudgets (0: each preset's whole
	// default budget, as a server runs it).
	BudgetSteps int
}

// DefaultOptions are the options Conform uses: two seeds, runs capped at
// 3000 steps and 6 random steps each, up to 2000 runs to reach a preset's
// Reach, every preset run with its whole default budget; under -short
// (the wasm pass) one seed, 600 steps (budget runs too), 3 random steps
// and the same 2000 runs (they stop at the first that reaches it).
func DefaultOptions() Options {
	if testing.Short() {
		return Options{Seeds: []uint64{1}, MaxSteps: 600, Picks: 3, ReachRuns: 2000, BudgetSteps: 600}
	}
	return Options{Seeds: []uint64{1, 2}, MaxSteps: 3000, Picks: 6, ReachRuns: 2000}
}

// Conform runs every check on every scenario of reg: the properties and
// budgets of each scenario, then seek, clone and hash, and determinism for
// each preset, variant and seed, as subtests named scenario/preset/variant.
func Conform(t *testing.T, reg *scenario.Registry, opt Options) {
	for _, sc := range reg.List() {
		t.Run(sc.ID, func(t *testing.T) {
			if err := CheckProperties(reg, sc); err != nil {
				t.Error(err)
			}
			if err := CheckBudgets(reg, sc, opt.BudgetSteps); err != nil {
				t.Error(err)
			}
			for _, p := range sc.Presets {
				for _, v := range sc.Variants {
					t.Run(p.ID+"/"+v.ID, func(t *testing.T) {
						if err := CheckReach(reg, scenario.RunSpec{Scenario: sc.ID, Preset: p.ID, Variant: v.ID}, opt.ReachRuns); err != nil {
							t.Error(err)
						}
						for _, seed := range opt.Seeds {
							spec := scenario.RunSpec{Scenario: sc.ID, Preset: p.ID, Variant: v.ID, Seed: seed, MaxSteps: opt.MaxSteps}
							for _, check := range []func() error{
								func() error { return CheckDeterminism(reg, spec) },
								func() error { return CheckSeek(reg, spec, opt.Picks) },
								func() error { return CheckCloneHash(reg, spec, opt.Picks) },
								func() error { return CheckCodec(reg, spec, opt.Picks) },
								func() error { return CheckDerived(reg, spec, opt.Picks) },
							} {
								if err := check(); err != nil {
									t.Error(err)
								}
							}
						}
					})
				}
			}
		})
	}
}

// ErrNonconforming is wrapped by every failed check.
var ErrNonconforming = errors.New("modeltest: model does not conform")

func fail(spec scenario.RunSpec, step int, format string, args ...any) error {
	return fmt.Errorf("%w: %s/%s/%s seed %d: %s\n  %s", ErrNonconforming, spec.Scenario, spec.Preset, spec.Variant, spec.Seed,
		fmt.Sprintf(format, args...), describe(spec, step))
}

// CheckProperties checks that the properties a model checks are those its
// catalog entry lists (name, kind and help, in order: both come from
// one sim.Props declaration), that they are
// named once, and that each preset names one of them.
func CheckProperties(reg *scenario.Registry, sc *scenario.Scenario) error {
	names := map[string]bool{}
	for _, v := range sc.Variants {
		_, _, w, err := reg.Build(scenario.RunSpec{Scenario: sc.ID, Variant: v.ID}, scenario.Options{})
		if err != nil {
			return fmt.Errorf("%w: %s/%s: %v", ErrNonconforming, sc.ID, v.ID, err)
		}
		got := w.PropertyList()
		if len(got) != len(sc.Properties) {
			return fmt.Errorf("%w: %s/%s checks %d properties, its catalog entry lists %d", ErrNonconforming, sc.ID, v.ID, len(got), len(sc.Properties))
		}
		for i := range got {
			p, info := &got[i], sc.Properties[i]
			if p.Info() != info {
				return fmt.Errorf("%w: %s/%s property %d is %s (%s: %q) in the model and %s (%s: %q) in the catalog",
					ErrNonconforming, sc.ID, v.ID, i, p.Name, p.Kind, p.Help, info.Name, info.Kind, info.Help)
			}
			if names[p.Name] && v.ID == sc.DefaultVariant() {
				return fmt.Errorf("%w: %s: property %s is declared twice", ErrNonconforming, sc.ID, p.Name)
			}
			names[p.Name] = true
		}
	}
	for _, p := range sc.Presets {
		if p.Property != "" && !names[p.Property] {
			return fmt.Errorf("%w: %s preset %s shows property %q, which the model does not check", ErrNonconforming, sc.ID, p.ID, p.Property)
		}
	}
	return nil
}

// CheckBudgets checks that every preset's default budgets fit the limits
// every engine grants (scenario.PresetMaxSteps, scenario.MaxTimeCap) and
// that every preset runs with its defaults, in every variant, without an
// error. maxSteps > 0 caps the runs (the budgets are still checked whole).
func CheckBudgets(reg *scenario.Registry, sc *scenario.Scenario, maxSteps int) error {
	for _, p := range sc.Presets {
		if p.MaxSteps > scenario.PresetMaxSteps || p.MaxTime > scenario.MaxTimeCap {
			return fmt.Errorf("%w: %s preset %s defaults to maxSteps %d and maxTime %v ms; every engine grants at most %d steps and %d ms",
				ErrNonconforming, sc.ID, p.ID, p.MaxSteps, p.MaxTime, scenario.PresetMaxSteps, scenario.MaxTimeCap)
		}
		for _, v := range sc.Variants {
			spec := scenario.RunSpec{Scenario: sc.ID, Preset: p.ID, Variant: v.ID, Seed: 1}
			if maxSteps > 0 && maxSteps < p.MaxSteps {
				spec.MaxSteps = maxSteps
			}
			if _, err := reg.Execute(spec, scenario.Options{}); err != nil {
				return fail(spec, 0, "does not run with its defaults: %v", err)
			}
		}
	}
	return nil
}

// CheckDeterminism runs spec twice, traced, and compares the digests of
// the two runs: any ambient nondeterminism (map order, a global) shows.
func CheckDeterminism(reg *scenario.Registry, spec scenario.RunSpec) error {
	var digests [2]uint64
	var steps [2]int
	for i := range digests {
		run, err := reg.Execute(spec, scenario.Options{Trace: true})
		if err != nil {
			return fail(spec, 0, "%v", err)
		}
		digests[i], steps[i] = run.World.Digest(), run.World.Steps()
	}
	if digests[0] != digests[1] {
		return fail(spec, min(steps[0], steps[1]), "two runs of one spec differ: digests %016x (%d steps) and %016x (%d steps)",
			digests[0], steps[0], digests[1], steps[1])
	}
	return nil
}

// picks returns the last index below n and k distinct random ones, sorted,
// drawn from a generator seeded by the spec (so a failure reproduces).
func picks(spec scenario.RunSpec, n, k int) []int {
	if n <= 0 {
		return nil
	}
	rng := rand.New(rand.NewPCG(spec.Seed, 0x5eec))
	set := map[int]bool{n - 1: true}
	for range k {
		set[rng.IntN(n)] = true
	}
	out := make([]int, 0, len(set))
	// order-independent: sorted below
	for i := range set {
		out = append(out, i)
	}
	sort.Ints(out)
	return out
}

// CheckSeek records spec as a timeline with a small snapshot interval and
// compares the world a seek returns, at random steps, with a fresh run
// stopped after the same number of steps: state hash, virtual time,
// schedule, violations and the model's view must all agree. A model whose
// Clone drops state, or whose steps depend on anything but its state and
// the chooser, fails it.
func CheckSeek(reg *scenario.Registry, spec scenario.RunSpec, k int) error {
	tl, err := timeline.Record(reg, spec, timeline.Options{SnapshotEvery: 16})
	if err != nil {
		return fail(spec, 0, "record: %v", err)
	}
	ns := tl.Spec()
	for _, i := range picks(ns, tl.Len(), k) {
		w, err := tl.Seek(i)
		if err != nil {
			return fail(ns, i, "seek %d: %v", i, err)
		}
		f, err := fresh(reg, ns, i+1)
		if err != nil {
			return fail(ns, i, "fresh run to step %d: %v", i, err)
		}
		if msg := differ(w, f); msg != "" {
			return fail(ns, i, "seek(%d) differs from a fresh run of %d steps: %s", i, i+1, msg)
		}
	}
	return nil
}

// fresh runs spec from its start for n steps.
func fresh(reg *scenario.Registry, spec scenario.RunSpec, n int) (*sim.World, error) {
	ns, _, w, err := reg.Build(spec, scenario.Options{})
	if err != nil {
		return nil, err
	}
	for w.Steps() < n {
		if !w.StepWithin(ns.Limits()) {
			return nil, fmt.Errorf("stopped (%s) at step %d: %v", w.Stop(), w.Steps(), w.Err())
		}
	}
	return w, nil
}

// differ says how two worlds differ, or returns "".
func differ(a, b *sim.World) string {
	switch {
	case a.Steps() != b.Steps():
		return fmt.Sprintf("steps %d and %d", a.Steps(), b.Steps())
	case a.Now() != b.Now():
		return fmt.Sprintf("time %s and %s", a.Now(), b.Now())
	case !slices.Equal(a.Schedule(), b.Schedule()):
		return fmt.Sprintf("schedules of %d and %d choices", len(a.Schedule()), len(b.Schedule()))
	case !reflect.DeepEqual(a.Violations(), b.Violations()):
		return fmt.Sprintf("violations %v and %v", a.Violations(), b.Violations())
	case a.Hash() != b.Hash():
		return fmt.Sprintf("state hashes %016x and %016x", a.Hash(), b.Hash())
	}
	if va, vb := modelView(a), modelView(b); !reflect.DeepEqual(va, vb) {
		return "the model's views differ: " + firstFieldDiff(va, vb)
	}
	return ""
}

// modelView is the model's own view, or nil when it has none.
func modelView(w *sim.World) *sim.View {
	v, ok := w.View()
	if !ok {
		return nil
	}
	return &v
}

func firstFieldDiff(a, b *sim.View) string {
	for i := range min(len(a.Groups), len(b.Groups)) {
		ga, gb := a.Groups[i], b.Groups[i]
		for j := range min(len(ga.Fields), len(gb.Fields)) {
			if fa, fb := ga.Fields[j], gb.Fields[j]; fa != fb {
				return fmt.Sprintf("%s.%s is %q and %q", ga.ID, fa.Name, fa.Value, fb.Value)
			}
		}
		if len(ga.Fields) != len(gb.Fields) || ga.ID != gb.ID {
			return fmt.Sprintf("group %d is %s with %d fields and %s with %d", i, ga.ID, len(ga.Fields), gb.ID, len(gb.Fields))
		}
	}
	return fmt.Sprintf("%d and %d groups", len(a.Groups), len(b.Groups))
}

// modelHash hashes the model's state alone.
func modelHash(w *sim.World) uint64 {
	h := sim.NewHasher()
	w.Model().Hash(&h)
	return h.Sum()
}

// cloneSteps is how far the clone check steps a clone.
const cloneSteps = 40

// probed builds spec twice: w, the world a check steps, and a probe run
// to its end (after calls each of its steps first, when not nil), whose
// length tells the check where to pick its steps.
func probed(reg *scenario.Registry, spec scenario.RunSpec, after func(*sim.World)) (scenario.RunSpec, *sim.World, *sim.World, error) {
	ns, _, w, err := reg.Build(spec, scenario.Options{})
	if err != nil {
		return ns, nil, nil, fail(spec, 0, "%v", err)
	}
	probe, _, pw, err := reg.Build(spec, scenario.Options{})
	if err != nil {
		return ns, nil, nil, fail(spec, 0, "%v", err)
	}
	for pw.StepWithin(probe.Limits()) {
		if after != nil {
			after(pw)
		}
	}
	return ns, w, pw, nil
}

// CheckCloneHash runs spec and, at random steps, checks that a clone
// hashes and shows like its original; that two clones driven by the same
// choices stay equal step for step (the clone holds everything that
// decides the future); and that stepping a clone leaves the original's
// hash and view unchanged (the clone shares nothing mutable). Over the
// run, a model whose view changes must have a hash that changes too.
func CheckCloneHash(reg *scenario.Registry, spec scenario.RunSpec, k int) error {
	ns, w, pw, err := probed(reg, spec, nil)
	if err != nil {
		return err
	}
	lim := ns.Limits()
	views, hashes := map[string]bool{}, map[uint64]bool{}
	for _, at := range picks(ns, pw.Steps(), k) {
		for w.Steps() < at && w.StepWithin(lim) {
			if v := modelView(w); v != nil {
				views[fmt.Sprint(*v)] = true
			}
			hashes[modelHash(w)] = true
		}
		h0, v0 := w.Hash(), modelView(w)
		a, b := w.Clone(), w.Clone()
		if a.Hash() != h0 {
			return fail(ns, at, "a clone at step %d hashes %016x, its original %016x", at, a.Hash(), h0)
		}
		if !reflect.DeepEqual(modelView(a), v0) {
			return fail(ns, at, "a clone at step %d shows differently from its original: %s", at, firstFieldDiff(modelView(a), v0))
		}
		a.SetChooser(sim.NewRandomChooser(uint64(at)))
		b.SetChooser(sim.NewRandomChooser(uint64(at)))
		moved := false
		for j := 0; j < cloneSteps && a.StepWithin(lim); j++ {
			b.StepWithin(lim)
			if msg := differ(a, b); msg != "" {
				return fail(ns, at, "two clones taken at step %d and driven by the same choices differ after %d more steps: %s", at, j+1, msg)
			}
			moved = moved || a.Hash() != h0
		}
		if w.Hash() != h0 || !reflect.DeepEqual(modelView(w), v0) {
			return fail(ns, at, "stepping a clone taken at step %d changed its original (Clone shares mutable state)", at)
		}
		if a.Steps() > w.Steps() && !moved {
			return fail(ns, at, "%d steps of a clone taken at step %d never changed its state hash", a.Steps()-w.Steps(), at)
		}
	}
	if len(views) > 1 && len(hashes) < 2 {
		return fail(ns, w.Steps(), "the model's view took %d values over %d steps, its Hash only one: Hash misses the state", len(views), w.Steps())
	}
	return nil
}

// derivedHash is sim.HashFields of the model's state.
func derivedHash(m sim.Model) uint64 {
	h := sim.NewHasher()
	sim.HashFields(&h, m)
	return h.Sum()
}

// CheckDerived holds the model's hand-written Clone and Hash to the ones
// sim derives by reflection (sim.DeepClone, sim.HashFields), on every
// state of a run of spec: two states whose fields are equal hash the same
// by the model's Hash (it reads nothing else); at random steps the
// model's Clone copies every field (its copy's fields equal the
// original's) and a derived copy hashes as the original by the model's
// Hash; and both copies stay as they were while the run goes on (neither
// shares memory with the original). A model that DeepClone cannot copy
// (sim.Derivable) is held only to the first.
func CheckDerived(reg *scenario.Registry, spec scenario.RunSpec, k int) error {
	ns, w, pw, err := probed(reg, spec, nil)
	if err != nil {
		return err
	}
	lim := ns.Limits()
	derivable := sim.Derivable(w.Model()) == nil
	type copied struct {
		m       sim.Model
		derived uint64
		at      int
		by      string
	}
	var copies []copied
	byFields := map[uint64]uint64{} // derived hash -> the model's Hash
	visit := func() error {
		d, h := derivedHash(w.Model()), modelHash(w)
		if prev, ok := byFields[d]; ok && prev != h {
			return fail(ns, w.Steps(), "two states with equal fields hash %016x and %016x by the model's Hash: it reads something besides the state", prev, h)
		}
		byFields[d] = h
		return nil
	}
	if err := visit(); err != nil {
		return err
	}
	for _, at := range picks(ns, pw.Steps(), k) {
		for w.Steps() < at && w.StepWithin(lim) {
			if err := visit(); err != nil {
				return err
			}
		}
		m := w.Model()
		d := derivedHash(m)
		c := m.Clone()
		if derivedHash(c) != d {
			return fail(ns, at, "the model's Clone at step %d leaves out state: %s", at, firstFieldDiffOf(m, c))
		}
		copies = append(copies, copied{c, d, at, "the model's Clone"})
		if derivable {
			dc := sim.DeepClone(m)
			if h := modelHash(w); handHash(dc) != h {
				return fail(ns, at, "a derived copy at step %d hashes %016x by the model's Hash, the original %016x", at, handHash(dc), h)
			}
			copies = append(copies, copied{dc, d, at, "sim.DeepClone"})
		}
	}
	for w.StepWithin(lim) {
	}
	for _, c := range copies {
		if derivedHash(c.m) != c.derived {
			return fail(ns, c.at, "a copy by %s taken at step %d changed as the run went on: it shares memory with the original", c.by, c.at)
		}
	}
	return nil
}

// handHash is the model's own Hash of m.
func handHash(m sim.Model) uint64 {
	h := sim.NewHasher()
	m.Hash(&h)
	return h.Sum()
}

// firstFieldDiffOf names the first field in which two copies of a model
// differ.
func firstFieldDiffOf(a, b sim.Model) string {
	va, vb := reflect.ValueOf(a), reflect.ValueOf(b)
	for va.Kind() == reflect.Pointer && vb.Kind() == reflect.Pointer && !va.IsNil() && !vb.IsNil() {
		va, vb = va.Elem(), vb.Elem()
	}
	if va.Kind() != reflect.Struct || va.Type() != vb.Type() {
		return fmt.Sprintf("a %s copied as a %s", va.Type(), vb.Type())
	}
	for i := range va.NumField() {
		if !va.Type().Field(i).IsExported() {
			continue // reflection cannot read it out; named below
		}
		hx, hy := sim.NewHasher(), sim.NewHasher()
		sim.HashFields(&hx, va.Field(i).Interface())
		sim.HashFields(&hy, vb.Field(i).Interface())
		if hx.Sum() != hy.Sum() {
			return "field " + va.Type().Field(i).Name + " differs"
		}
	}
	return "an unexported field differs"
}

// CheckReach searches spec's preset with random runs (up to runs of them,
// capped at spec.MaxSteps steps when set) for the Sometimes property the
// preset names as Reach, and fails when no run reaches it: every variant,
// the fixed ones included, must meet the situation its bug needs.
func CheckReach(reg *scenario.Registry, spec scenario.RunSpec, runs int) error {
	sc, ok := reg.Lookup(spec.Scenario)
	if !ok {
		return fmt.Errorf("%w: unknown scenario %q", ErrNonconforming, spec.Scenario)
	}
	p, ok := sc.Preset(spec.Preset)
	if !ok || p.Reach == "" {
		return nil
	}
	kind := sim.PropertyKind(0)
	for _, info := range sc.Properties {
		if info.Name == p.Reach {
			kind = info.Kind
		}
	}
	if kind != sim.KindSometimes {
		return fmt.Errorf("%w: %s preset %s: Reach %q is not a Sometimes property of the model", ErrNonconforming, sc.ID, p.ID, p.Reach)
	}
	x, err := check.New(reg, check.Config{Scenario: spec.Scenario, Preset: spec.Preset, Variant: spec.Variant, Property: p.Reach,
		Strategy: check.Random, Budget: check.Budget{Runs: runs, Depth: spec.MaxSteps}, NoShrink: true})
	if err != nil {
		return fail(spec, 0, "%v", err)
	}
	if r := x.Run(); !r.Found {
		return fail(spec, 0, "no run of %d reaches %s (%s)", r.Runs, p.Reach, r.Verdict)
	}
	return nil
}
