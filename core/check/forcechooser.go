package check

import (
	"slices"

	"github.com/racetrack-sim/racetrack/core/sim"
)

// forceChooser takes one given ready event, then the given values for the
// value choices inside the step (0 past their end), recording how many
// options each value choice had so the caller can enumerate them. With
// samples > 0, a value choice of more than MaxValueOptions options (and
// more than samples) offers samples of them, evenly spread.
type forceChooser struct {
	event    int
	values   []int
	samples  int
	ns       []int // options of each value choice met (sampled: samples)
	used     []int // value taken at each, as an index among its options
	tooMany  string
	tooManyN int
	sampled  bool
}

func (f *forceChooser) Choose(c *sim.Choice) int {
	if c.Kind == sim.ChooseEvent {
		return f.event
	}
	n := c.N
	if n > MaxValueOptions {
		if f.samples == 0 {
			if f.tooMany == "" {
				f.tooMany, f.tooManyN = c.Label, c.N
			}
			return 0
		}
		if n > f.samples {
			n, f.sampled = f.samples, true
		}
	}
	v := 0
	if i := len(f.ns); i < len(f.values) {
		v = f.values[i]
	}
	f.ns = append(f.ns, n)
	f.used = append(f.used, v)
	return sampleOption(v, n, c.N)
}

// sampleOption is the option of a choice of total options that sample v
// of n (n <= total) stands for: n evenly spread options, both ends kept.
func sampleOption(v, n, total int) int {
	if n == total || n < 2 {
		return v
	}
	return int((int64(v)*int64(total-1) + int64(n-1)/2) / int64(n-1))
}

// next is the next vector of values in lexicographic order, given the
// options met this time (an odometer over a tree of choices).
func (f *forceChooser) next() ([]int, bool) {
	for j := len(f.used) - 1; j >= 0; j-- {
		if f.used[j]+1 < f.ns[j] {
			out := slices.Clone(f.used[:j+1])
			out[j]++
			return out, true
		}
	}
	return nil, false
}
