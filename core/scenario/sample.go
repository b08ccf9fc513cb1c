package scenario

import (
	"math"
	"math/rand/v2"
)

// Sample draws a spec inside the published schema, as a client reading
// only the catalog could write it: a scenario, often a preset and a
// variant, and values within range for a random subset of the
// parameters, ends of the ranges included. It may break a Rule; such a
// spec must be refused with a FieldError, and any other must run. The
// budgets (maxSteps, maxTime) are left to the caller.
func (r *Registry) Sample(rng *rand.Rand) RunSpec {
	sc := r.list[rng.IntN(len(r.list))]
	spec := RunSpec{Scenario: sc.ID, Seed: rng.Uint64N(MaxSeed + 1), Params: map[string]any{}}
	if rng.IntN(4) > 0 {
		spec.Preset = sc.Presets[rng.IntN(len(sc.Presets))].ID
	}
	if rng.IntN(4) > 0 {
		spec.Variant = sc.Variants[rng.IntN(len(sc.Variants))].ID
	}
	for i := range sc.Params {
		if rng.IntN(2) == 0 {
			p := &sc.Params[i]
			spec.Params[p.Name] = p.sample(rng)
		}
	}
	return spec
}

// sample draws one value within the parameter's range, as JSON would
// decode it (float64 numbers, []any lists).
func (p *Param) sample(rng *rand.Rand) any {
	switch p.Type {
	case TypeInt:
		return float64(sampleInt(rng, *p.Min, *p.Max))
	case TypeFloat, TypeDuration:
		lo, hi := *p.Min, *p.Max
		switch rng.IntN(4) {
		case 0:
			return lo
		case 1:
			return hi
		}
		return lo + rng.Float64()*(hi-lo)
	case TypeBool:
		return rng.IntN(2) == 0
	case TypeEnum:
		return p.Enum[rng.IntN(len(p.Enum))]
	case TypeIntList:
		n := 1 + rng.IntN(min(maxListLen, 8))
		if rng.IntN(8) == 0 {
			n = maxListLen
		}
		out := make([]any, n)
		for i := range out {
			out[i] = float64(sampleInt(rng, *p.Min, *p.Max))
		}
		return out
	}
	return p.Default
}

// sampleInt favours the ends of [lo, hi], where the bugs in validation
// live, and is uniform otherwise.
func sampleInt(rng *rand.Rand, lo, hi float64) int64 {
	a, b := int64(math.Ceil(lo)), int64(math.Floor(hi))
	switch rng.IntN(4) {
	case 0:
		return a
	case 1:
		return b
	}
	return a + rng.Int64N(b-a+1)
}
