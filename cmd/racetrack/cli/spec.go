package cli

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/racetrack-sim/racetrack/core/scenario"
)

// maxInputBytes bounds a -spec or -config file.
const maxInputBytes = 16 << 20

// params collects repeated -param name=value flags.
type params map[string]any

func (p params) String() string { return "" }

// Set takes name=value; the value is read as JSON (3, true, "x") and
// otherwise as a string.
func (p params) Set(s string) error {
	name, raw, ok := strings.Cut(s, "=")
	if !ok || name == "" {
		return fmt.Errorf("want name=value, got %q", s)
	}
	var v any
	dec := json.NewDecoder(strings.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil || dec.More() {
		v = raw
	}
	p[name] = v
	return nil
}

// specFlags are the flags that name a run (or the model a search
// explores): -spec as the base, the single-field flags over it.
type specFlags struct {
	base     *string
	scenario *string
	preset   *string
	variant  *string
	seed     *uint64
	params   params
	maxSteps *int
	maxTime  *float64
}

// addSpecFlags registers the spec flags; baseName is "spec" for runs
// (a RunSpec) or "" when the command has its own base (search's -config).
func addSpecFlags(fs *flag.FlagSet, baseName string, withBudgets bool) *specFlags {
	f := &specFlags{params: params{}}
	if baseName != "" {
		f.base = fs.String(baseName, "", "the RunSpec as JSON, or @FILE to read it from FILE (the flags below override its fields)")
	}
	f.scenario = fs.String("scenario", "", "scenario id (the list command shows them)")
	f.preset = fs.String("preset", "", "preset id (default: the scenario's first)")
	f.variant = fs.String("variant", "", "variant id (default: the scenario's first, the buggy one)")
	f.seed = fs.Uint64("seed", 0, "seed of the run's choices")
	fs.Var(f.params, "param", "a parameter as name=value (repeatable)")
	if withBudgets {
		f.maxSteps = fs.Int("max-steps", 0, "step budget of the run (default: the preset's)")
		f.maxTime = fs.Float64("max-time", 0, "virtual-time budget of the run in ms (default: the preset's)")
	}
	return f
}

// spec is the RunSpec the flags name.
func (f *specFlags) spec(fs *flag.FlagSet) (scenario.RunSpec, error) {
	var s scenario.RunSpec
	if f.base != nil && *f.base != "" {
		data, err := readInput(*f.base)
		if err != nil {
			return s, fmt.Errorf("-spec: %w", err)
		}
		if s, err = scenario.DecodeRunSpec(data); err != nil {
			return s, fmt.Errorf("-spec: %w", err)
		}
	}
	f.override(fs, &s.Scenario, &s.Preset, &s.Variant, &s.Seed, &s.Params)
	set := setFlags(fs)
	if set["max-steps"] {
		s.MaxSteps = *f.maxSteps
	}
	if set["max-time"] {
		s.MaxTime = *f.maxTime
	}
	if s.Scenario == "" {
		return s, fmt.Errorf("-scenario (or a -spec naming one) is required; list shows the scenarios")
	}
	return s, nil
}

// override writes the flags the user set over the fields of a base.
func (f *specFlags) override(fs *flag.FlagSet, sc, preset, variant *string, seed *uint64, ps *map[string]any) {
	set := setFlags(fs)
	if set["scenario"] {
		*sc = *f.scenario
	}
	if set["preset"] {
		*preset = *f.preset
	}
	if set["variant"] {
		*variant = *f.variant
	}
	if set["seed"] {
		*seed = *f.seed
	}
	if len(f.params) > 0 {
		if *ps == nil {
			*ps = map[string]any{}
		}
		for k, v := range f.params {
			(*ps)[k] = v
		}
	}
}

func setFlags(fs *flag.FlagSet) map[string]bool {
	set := map[string]bool{}
	fs.Visit(func(fl *flag.Flag) { set[fl.Name] = true })
	return set
}

// readInput is the text of a flag: inline, or @FILE.
func readInput(v string) ([]byte, error) {
	name, ok := strings.CutPrefix(v, "@")
	if !ok {
		return []byte(v), nil
	}
	fh, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	var buf bytes.Buffer
	n, err := buf.ReadFrom(io.LimitReader(fh, maxInputBytes+1))
	if err != nil {
		return nil, err
	}
	if n > maxInputBytes {
		return nil, fmt.Errorf("%s is larger than %d bytes", name, maxInputBytes)
	}
	return buf.Bytes(), nil
}

// seedRange parses "A-B" or "N" (inclusive).
func seedRange(s string) (lo, hi uint64, err error) {
	a, b, ok := strings.Cut(s, "-")
	if !ok {
		b = a
	}
	if lo, err = strconv.ParseUint(strings.TrimSpace(a), 10, 64); err == nil {
		hi, err = strconv.ParseUint(strings.TrimSpace(b), 10, 64)
	}
	if err != nil || hi < lo {
		return 0, 0, fmt.Errorf("-seeds %q: want FIRST-LAST with FIRST <= LAST, e.g. 1-500", s)
	}
	if hi > scenario.MaxSeed {
		return 0, 0, fmt.Errorf("-seeds %q: the largest seed is %d", s, uint64(scenario.MaxSeed))
	}
	return lo, hi, nil
}
