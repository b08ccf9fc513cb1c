package cli

import (
	"context"
	"errors"
	"fmt"

	"github.com/racetrack-sim/racetrack/core/check"
	"github.com/racetrack-sim/racetrack/core/scenario"
	"github.com/racetrack-sim/racetrack/core/timeline"
)

// maxSeedRange bounds the runs of one verify.
const maxSeedRange = 1_000_000

func verifyCmd(ctx context.Context, e *Env, args []string) int {
	fs := e.Flags("verify", "-scenario S [-preset P -variant V -param k=v] [-property P] [-seeds FIRST-LAST | -exhaustive bfs|dfs] [-store DIR]",
		"Checks a property of a preset: on every seed of a range (one run each), or on every schedule\n"+
			"(-exhaustive; a timed preset with -value-samples, not a proof). The property defaults to the one the preset is built to show\n"+
			"(any property when it names none). Exit 0 when it holds; see the exit status below.")
	sf := addSpecFlags(fs, "", true)
	property := fs.String("property", "", "the property to check (default: the preset's; \"any\" for every property)")
	seeds := fs.String("seeds", "1-100", "the seed range, FIRST-LAST inclusive")
	exhaustive := fs.String("exhaustive", "", "bfs or dfs: check every schedule instead of a seed range")
	failFast := fs.Bool("failfast", false, "stop at the first violating seed")
	sfl := addSearchFlags(fs)
	store := fs.String("store", "", "write a run folder under DIR (the verdict, and the first violating run)")
	if code := e.Parse(fs, args); code >= 0 {
		return code
	}
	set := setFlags(fs)
	if *exhaustive != "" && set["seeds"] {
		return e.Fail("verify", ExitUsage, errors.New("-seeds and -exhaustive exclude each other"))
	}
	spec, err := sf.spec(fs)
	if err != nil {
		return e.Fail("verify", ExitUsage, err)
	}
	reg := e.reg
	ns, sc, err := reg.Normalize(spec)
	if err != nil {
		return e.Fail("verify", ExitUsage, err)
	}
	prop := *property
	if !set["property"] {
		pr, _ := sc.Preset(ns.Preset)
		prop = pr.Property
	}
	if prop == "any" {
		prop = ""
	}
	if *exhaustive != "" {
		if *exhaustive != check.BFS && *exhaustive != check.DFS {
			return e.Fail("verify", ExitUsage, fmt.Errorf("-exhaustive %q: bfs or dfs", *exhaustive))
		}
		cfg := check.Config{Scenario: ns.Scenario, Preset: ns.Preset, Variant: ns.Variant, Params: spec.Params, Property: prop, Strategy: *exhaustive,
			Reductions: check.DefaultReductions(*exhaustive)}
		if err := sfl.apply(fs, &cfg); err != nil {
			return e.Fail("verify", ExitUsage, err)
		}
		return search(ctx, e, "verify", cfg, *sfl.timeout, *store, false, "", args)
	}
	lo, hi, err := seedRange(*seeds)
	if err != nil {
		return e.Fail("verify", ExitUsage, err)
	}
	if hi-lo >= maxSeedRange {
		return e.Fail("verify", ExitUsage, fmt.Errorf("-seeds %s: %d seeds, more than the %d one verify runs", *seeds, hi-lo+1, maxSeedRange))
	}
	if prop != "" {
		if _, ok := propertyOf(sc, prop); !ok {
			return e.Fail("verify", ExitUsage, fmt.Errorf("-property: unknown property %q of %s", prop, sc.ID))
		}
	}
	return verifySeeds(ctx, e, reg, sc, ns, prop, lo, hi, *failFast, *store, args)
}

func propertyOf(sc *scenario.Scenario, name string) (scenario.PropertyInfo, bool) {
	for _, p := range sc.Properties {
		if p.Name == name {
			return p, true
		}
	}
	return scenario.PropertyInfo{}, false
}

// seedReport is the verdict of a seed range.
type seedReport struct {
	Property  string              `json:"property"`
	First     uint64              `json:"firstSeed"`
	Last      uint64              `json:"lastSeed"`
	Runs      int                 `json:"runs"`
	Violating int                 `json:"violating"`
	Example   *scenario.Violation `json:"firstViolation,omitempty"`
	Seed      uint64              `json:"firstViolatingSeed,omitempty"`
	Stopped   bool                `json:"stopped,omitempty"`
}

func verifySeeds(ctx context.Context, e *Env, reg *scenario.Registry, sc *scenario.Scenario, spec scenario.RunSpec, prop string, lo, hi uint64, failFast bool, store string, args []string) int {
	rep := seedReport{Property: prop, First: lo, Last: hi}
	for seed := lo; ; seed++ {
		if ctx.Err() != nil {
			rep.Stopped = true
			break
		}
		s := spec
		s.Seed = seed
		run, err := reg.Execute(s, scenario.Options{StopOnViolation: prop == ""})
		if err != nil {
			code := ExitFailure
			if errors.Is(err, scenario.ErrInvalid) {
				code = ExitUsage
			}
			return e.Fail("verify", code, fmt.Errorf("seed %d: %w", seed, err))
		}
		rep.Runs++
		if v, ok := firstViolation(run.Summary().Violations, prop); ok {
			rep.Violating++
			if rep.Example == nil {
				rep.Example, rep.Seed = &v, seed
			}
			if failFast {
				break
			}
		}
		if seed == hi {
			break
		}
	}
	code := ExitHolds
	switch {
	case rep.Example != nil:
		code = violationCode(sc, rep.Example.Property)
	case rep.Stopped:
		code = ExitBudget
	}
	what := prop
	if what == "" {
		what = "every property"
	}
	fmt.Fprintf(e.Stdout, "verify %s/%s/%s %s on seeds %d-%d: ", spec.Scenario, spec.Preset, spec.Variant, what, lo, hi)
	if rep.Example == nil {
		fmt.Fprintf(e.Stdout, "%s (%d runs)\n", verdicts[code], rep.Runs)
	} else {
		fmt.Fprintf(e.Stdout, "VIOLATED on %d of %d seeds\n  first: seed %d, %s at step %d: %s\n  replay: %s run -scenario %s -preset %s -variant %s -seed %d\n",
			rep.Violating, rep.Runs, rep.Seed, rep.Example.Property, rep.Example.Step+1, rep.Example.Message, e.Name,
			spec.Scenario, spec.Preset, spec.Variant, rep.Seed)
	}
	if store != "" {
		if err := storeSeeds(e, reg, store, spec, rep, code, args); err != nil {
			return e.Fail("verify", ExitFailure, err)
		}
	}
	return code
}

// storeSeeds writes the verdict of a seed range and, when a seed
// violates the property, the first violating run.
func storeSeeds(e *Env, reg *scenario.Registry, dir string, spec scenario.RunSpec, rep seedReport, code int, args []string) error {
	payload := map[string]any{"seeds": rep}
	if rep.Example == nil {
		path, err := runFolder(e, dir, spec)
		if err != nil {
			return err
		}
		fmt.Fprintf(e.Stderr, "stored in %s\n", path)
		return writeSummary(e, path, payload, code, args)
	}
	s := spec
	s.Seed = rep.Seed
	tl, err := timeline.Record(reg, s, timeline.Options{})
	if err != nil {
		return fmt.Errorf("record seed %d: %w", rep.Seed, err)
	}
	payload["run"] = tl.Summary()
	return storeRun(e, dir, tl, payload, code, args)
}
