package check_test

import (
	"testing"

	"github.com/racetrack-sim/racetrack/core/catalog"
	"github.com/racetrack-sim/racetrack/core/check"
	"github.com/racetrack-sim/racetrack/core/scenario"
)

// timedPresets lists the timed presets of the seed models (every scenario
// but the philosophers) that name the property they show failing.
func timedPresets(t *testing.T, reg *scenario.Registry) []check.Config {
	var out []check.Config
	for _, sc := range reg.List() {
		if sc.ID == "dining-philosophers" {
			continue
		}
		for _, p := range sc.Presets {
			if p.Property == "" {
				continue
			}
			_, _, w, err := reg.Build(scenario.RunSpec{Scenario: sc.ID, Preset: p.ID}, scenario.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if w.Untimed() {
				continue
			}
			out = append(out, check.Config{Scenario: sc.ID, Preset: p.ID, Property: p.Property, Seed: 1, NoShrink: true})
		}
	}
	return out
}

// unfixed says the fixed variant is known to violate the preset's
// property (an upstream limitation the preset shows).
func unfixed(sc *scenario.Scenario, preset string) bool {
	for _, p := range sc.Presets {
		if p.ID == preset {
			return p.Unfixed != ""
		}
	}
	return false
}

// Every seed bug is found by random or pct on its timed presets within
// the default budget, and the counterexample replays to the same
// violation; the fixed variants show nothing over a smaller budget.
func TestRandomOrPCTFindsEverySeedBug(t *testing.T) {
	reg := catalog.New()
	presets := timedPresets(t, reg)
	if len(presets) == 0 {
		t.Fatal("no timed presets")
	}
	for _, cfg := range presets {
		var r check.Result
		for _, s := range []string{check.Random, check.PCT} {
			cfg.Strategy = s
			if r = search(t, reg, cfg); r.Found {
				break
			}
		}
		if !r.Found {
			t.Errorf("%s/%s: neither random nor pct violates %s in %d runs", cfg.Scenario, cfg.Preset, cfg.Property, r.Runs)
			continue
		}
		t.Logf("%s/%s: %s violates %s in run %d (seed %d, %d choices): %s", cfg.Scenario, cfg.Preset, r.Strategy, r.Property, r.Runs, r.Counterexample.Seed, r.Length, r.Violation)
		replays(t, reg, r)
	}
}

func TestRandomFindsNothingInFixedVariants(t *testing.T) {
	reg := catalog.New()
	runs := 40
	if testing.Short() {
		runs = 8
	}
	for _, cfg := range timedPresets(t, reg) {
		sc, _ := reg.Lookup(cfg.Scenario)
		if !sc.HasVariant("fixed") || unfixed(sc, cfg.Preset) {
			continue
		}
		cfg.Variant, cfg.Strategy, cfg.Budget.Runs = "fixed", check.Random, runs
		r := search(t, reg, cfg)
		if r.Found {
			t.Errorf("%s/%s fixed: %s violated (seed %d): %s", cfg.Scenario, cfg.Preset, r.Property, r.Counterexample.Seed, r.Violation)
		}
	}
}
