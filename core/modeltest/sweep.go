package modeltest

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/racetrack-sim/racetrack/core/scenario"
	"github.com/racetrack-sim/racetrack/core/sim"
)

// Seeds returns n consecutive seeds from first.
func Seeds(first uint64, n int) []uint64 {
	out := make([]uint64, n)
	for i := range out {
		out[i] = first + uint64(i)
	}
	return out
}

// Run is one seed of a sweep: its normalised spec and what it violated.
type Run struct {
	Spec       scenario.RunSpec
	Violations []sim.Violation
}

// Tally is the outcome of a sweep: one Run per seed, in seed order.
type Tally struct {
	Spec scenario.RunSpec
	Runs []Run
}

// Sweep executes spec once per seed (spec.Seed is replaced) and tallies
// the violations. An error (a spec that does not run) fails t at once.
func Sweep(t testing.TB, reg *scenario.Registry, spec scenario.RunSpec, seeds []uint64) Tally {
	t.Helper()
	tl := Tally{Spec: spec, Runs: make([]Run, 0, len(seeds))}
	for _, seed := range seeds {
		spec.Seed = seed
		run, err := reg.Execute(spec, scenario.Options{})
		if err != nil {
			t.Fatalf("%s seed %d: %v\n  replay: go run ./cmd/racetrack -spec '%s'", tl.name(), seed, err, Replay(spec))
		}
		tl.Runs = append(tl.Runs, Run{Spec: run.Spec, Violations: run.World.Violations()})
	}
	return tl
}

func (tl Tally) name() string {
	s := tl.Spec
	return s.Scenario + "/" + s.Preset + "/" + s.Variant
}

// violation returns r's first violation of any of props (all when none).
func (r *Run) violation(props []string) (sim.Violation, bool) {
	for _, v := range r.Violations {
		if len(props) == 0 || slices.Contains(props, v.Property) {
			return v, true
		}
	}
	return sim.Violation{}, false
}

// Count is the number of seeds that violate any of props (any property
// when props is empty).
func (tl Tally) Count(props ...string) int {
	n := 0
	for i := range tl.Runs {
		if _, ok := tl.Runs[i].violation(props); ok {
			n++
		}
	}
	return n
}

func (tl Tally) propsText(props []string) string {
	if len(props) == 0 {
		return "any property"
	}
	return strings.Join(props, " or ")
}

// firstWith returns the first run that violates props (want true) or
// that does not (want false), with the replay text of its step.
func (tl Tally) firstWith(props []string, want bool) (string, bool) {
	for i := range tl.Runs {
		r := &tl.Runs[i]
		v, ok := r.violation(props)
		if ok != want {
			continue
		}
		if ok {
			return fmt.Sprintf("seed %d: %s at step %d: %s\n  %s", r.Spec.Seed, v.Property, v.Step, v.Message, describe(r.Spec, v.Step)), true
		}
		return fmt.Sprintf("seed %d holds\n  %s", r.Spec.Seed, describe(r.Spec, 0)), true
	}
	return "", false
}

// Never fails t when some seed violates any of props, with the first such
// seed's replayable spec and a link to the violating step.
func (tl Tally) Never(t testing.TB, props ...string) {
	t.Helper()
	if k := tl.Count(props...); k > 0 {
		ex, _ := tl.firstWith(props, true)
		t.Errorf("%s: %s violated on %d of %d seeds, want none; first %s", tl.name(), tl.propsText(props), k, len(tl.Runs), ex)
	}
}

// Rate is a measured figure "K of N seeds", as the README states it, over
// N consecutive seeds from First.
type Rate struct {
	K, N  int
	First uint64
}

func (r Rate) String() string { return fmt.Sprintf("%d / %d", r.K, r.N) }

// Bounds is the range of counts over m seeds consistent with r. When the
// m seeds are the first m of r's (the same seeds, and runs are
// deterministic), the count is at least K-(N-m) and at most min(K, m);
// it must also lie within 4 binomial standard deviations of m*K/N, plus
// one. Over all N seeds that leaves exactly K.
func (r Rate) Bounds(m int) (lo, hi int) {
	p := float64(r.K) / float64(r.N)
	mean := float64(m) * p
	sd := math.Sqrt(float64(m) * p * (1 - p))
	lo = max(int(math.Floor(mean-4*sd))-1, r.K-(r.N-m), 0)
	hi = min(int(math.Ceil(mean+4*sd))+1, r.K, m)
	return lo, hi
}

// Expect fails t unless the number of seeds violating any of props fits
// want (see Rate.Bounds). The tally must be a sweep of want's first seeds.
func (tl Tally) Expect(t testing.TB, want Rate, props ...string) {
	t.Helper()
	m := len(tl.Runs)
	if m == 0 || m > want.N || tl.Runs[0].Spec.Seed != want.First {
		t.Fatalf("%s: a sweep of %d seeds cannot be compared with %s seeds from seed %d", tl.name(), m, want, want.First)
	}
	k := tl.Count(props...)
	lo, hi := want.Bounds(m)
	if k >= lo && k <= hi {
		return
	}
	ex, _ := tl.firstWith(props, k > hi)
	t.Errorf("%s: %s violated on %d of %d seeds; the measured rate %s allows %d to %d here; e.g. %s",
		tl.name(), tl.propsText(props), k, m, want, lo, hi, ex)
}
