package check

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/racetrack-sim/racetrack/core/scenario"
)

// Strategy names.
const (
	Random = "random"
	PCT    = "pct"
	BFS    = "bfs"
	DFS    = "dfs"
)

// Strategies lists the strategy names in the order a client shows them.
var Strategies = []string{Random, PCT, BFS, DFS}

// Sentinel errors.
var (
	// ErrUnsupported is wrapped when a model cannot be searched the way it
	// was asked (a timed model under bfs, a step with too many values).
	ErrUnsupported = errors.New("check: model not supported by this strategy")
	// ErrReplay is wrapped when a counterexample does not replay to the
	// violation it was found with (a bug in a model's Clone or Hash).
	ErrReplay = errors.New("check: counterexample does not replay")
	// ErrStateKey: a state given to Expander.Expand is not the state its
	// fingerprint names.
	ErrStateKey = errors.New("check: a state does not match its key")
)

// Budget bounds a search. Zero fields take the strategy's default.
type Budget struct {
	// States bounds the distinct states an exhaustive search stores.
	States int `json:"states,omitempty"`
	// Runs bounds the runs of random and pct.
	Runs int `json:"runs,omitempty"`
	// Depth bounds the steps of one schedule (0: the preset's maxSteps).
	Depth int `json:"depth,omitempty"`
	// HorizonMs bounds the virtual time of bfs and dfs, in milliseconds:
	// a state past it is not expanded (0: no bound). With the state hash
	// taking times relative to the current time, it is what makes the
	// search of a timed preset finite.
	HorizonMs int64 `json:"horizonMs,omitempty"`
}

// Reductions switch the state-space reductions of bfs and dfs.
type Reductions struct {
	// Sleep turns on sleep sets: a step already explored from a state is
	// not taken again after an independent step of another process.
	Sleep bool `json:"sleep"`
	// POR turns on the persistent-set reduction for deadlock and end-state
	// properties: stubborn sets for models with LockSets; otherwise, when
	// a thread's next step touches no kernel object, only that step.
	POR bool `json:"por"`
	// DPOR makes dfs stateless with dynamic partial-order reduction
	// (deadlock and end-state properties; see dporEngine).
	DPOR bool `json:"dpor"`
	// Symmetry hashes states canonically under the permutations of
	// identical processes a model declares (see Symmetric).
	Symmetry bool `json:"symmetry"`
}

// DefaultReductions are the reductions a client should offer switched on:
// bfs keeps the shortest counterexample (no persistent sets, which may
// lengthen it); dfs adds persistent (stubborn) sets. DPOR is opt-in: it
// stores no state, which pays off only when few interleavings conflict.
func DefaultReductions(strategy string) Reductions {
	switch strategy {
	case BFS:
		return Reductions{Sleep: true, Symmetry: true}
	case DFS:
		return Reductions{Sleep: true, POR: true, Symmetry: true}
	}
	return Reductions{}
}

// ParamRange is the range a swarm draws one parameter from per run:
// either one of Values, or a number in [Min, Max] (integers for integer
// parameters).
type ParamRange struct {
	Values []any   `json:"values,omitempty"`
	Min    float64 `json:"min,omitempty"`
	Max    float64 `json:"max,omitempty"`
}

// Config says what to search and how.
type Config struct {
	Scenario string         `json:"scenario"`
	Preset   string         `json:"preset,omitempty"`
	Variant  string         `json:"variant,omitempty"`
	Params   map[string]any `json:"params,omitempty"`
	// Property is the property to violate; empty means any.
	Property string `json:"property,omitempty"`
	// Strategy is one of random, pct, bfs, dfs.
	Strategy string `json:"strategy"`
	Budget   Budget `json:"budget"`
	// Seed derives every run's seed (random, pct); at most scenario.MaxSeed.
	Seed uint64 `json:"seed"`
	// PCTDepth is the bug depth d of pct (default 3).
	PCTDepth   int        `json:"pctDepth,omitempty"`
	Reductions Reductions `json:"reductions"`
	// ParamRanges makes random a swarm over parameters too.
	ParamRanges map[string]ParamRange `json:"paramRanges,omitempty"`
	// NoShrink keeps a counterexample as found.
	NoShrink bool `json:"noShrink,omitempty"`
	// Storage is how bfs and dfs store visited states: fingerprint (the
	// default) or exact (see StorageFingerprint).
	Storage string `json:"storage,omitempty"`
	// ValueSamples lets bfs and dfs search a model whose steps draw a
	// value (a duration, a latency, a key) from more options than they
	// enumerate (MaxValueOptions): such a value is tried at ValueSamples
	// options spread evenly over its range, both ends included. The
	// search then covers those schedules only: a counterexample is real,
	// but finding none is no proof (Result.Sampled, VerdictSampled). 0
	// (the default) refuses such a model with an error naming the value.
	ValueSamples int `json:"valueSamples,omitempty"`
	// Workers is the number of goroutines a driver outside core (package
	// internal/parallel) runs a bfs or dfs on; 0 means one per CPU.
	// Verdicts, state counts (exact storage) and counterexamples do not
	// depend on it. The core itself never starts a goroutine: Step runs
	// everything on the caller's. bfs is level-synchronous and decides in
	// task order. dfs splits its stack among the workers and keeps that
	// result only when it expanded everything; when a worker meets a
	// violation, a bound or an error, it starts over on one goroutine and
	// returns the one-worker result (see dfsEngine). A dfs with
	// partial-order reduction runs on one goroutine. The transitions of a
	// parallel dfs may differ between runs (a state reached again with a
	// smaller sleep set is expanded again, which depends on the order).
	Workers int `json:"workers,omitempty"`
}

// MaxWorkers bounds Config.Workers.
const MaxWorkers = 1024

// Defaults of a search.
const (
	DefaultPCTDepth = 3
	// ShrinkRuns and ShrinkSteps bound the replays, and the steps they
	// run, spent shrinking one counterexample.
	ShrinkRuns  = 2000
	ShrinkSteps = 2_000_000
	// MaxValueOptions is the most options a value choice inside a step
	// may have under bfs and dfs, which enumerate every value.
	MaxValueOptions = 8
	// MaxValueSamples bounds Config.ValueSamples.
	MaxValueSamples = 64
	// MaxInitialStates bounds the initial states of bfs and dfs: one per
	// combination of the values a preset draws while it is set up.
	MaxInitialStates = 4096
	// MaxHorizonMs bounds Budget.HorizonMs (about 11.6 days).
	MaxHorizonMs = 1_000_000_000
)

// DefaultBudget is the budget of a strategy when the config gives none.
func DefaultBudget(strategy string) Budget {
	switch strategy {
	case BFS, DFS:
		return Budget{States: 2_000_000}
	default:
		return Budget{Runs: 2000}
	}
}

func fieldErr(field, format string, args ...any) error {
	return &scenario.FieldError{Field: field, Msg: fmt.Sprintf(format, args...)}
}

// Validate checks cfg against the registry as New does, without building
// the search: what a caller that already rejects the request for its
// own reasons uses to report the catalog's errors too. Errors name the
// field (scenario.FieldErrors when more than one).
func Validate(reg *scenario.Registry, cfg Config) error {
	_, _, _, err := cfg.normalize(reg)
	return err
}

// normalize checks cfg and fills in defaults. Errors name the field;
// every rejected field is reported (scenario.FieldErrors when more than
// one), except that nothing depending on the scenario is checked past a
// missing or unknown one.
func (cfg Config) normalize(reg *scenario.Registry) (Config, scenario.RunSpec, *scenario.Scenario, error) {
	var errs scenario.Collector
	switch {
	case cfg.Strategy == "":
		errs.Add("strategy", "is required; one of %s", strings.Join(Strategies, ", "))
	case !slices.Contains(Strategies, cfg.Strategy):
		errs.Add("strategy", "unknown strategy %q; one of %s", clip(cfg.Strategy, 20), strings.Join(Strategies, ", "))
	}
	for _, b := range []struct {
		field string
		v     int
	}{{"budget.states", cfg.Budget.States}, {"budget.runs", cfg.Budget.Runs}, {"budget.depth", cfg.Budget.Depth}} {
		if b.v < 0 {
			errs.Add(b.field, "is %d; a budget cannot be negative", b.v)
		}
	}
	if cfg.Budget.HorizonMs < 0 || cfg.Budget.HorizonMs > MaxHorizonMs {
		errs.Add("budget.horizonMs", "is %d, outside [0, %d] (0: no bound)", cfg.Budget.HorizonMs, MaxHorizonMs)
	} else if cfg.Budget.HorizonMs > 0 && cfg.Strategy != BFS && cfg.Strategy != DFS {
		errs.Add("budget.horizonMs", "bounds the virtual time of bfs and dfs; strategy is %s", cfg.Strategy)
	}
	if cfg.ValueSamples != 0 && (cfg.ValueSamples < 2 || cfg.ValueSamples > MaxValueSamples) {
		errs.Add("valueSamples", "is %d, outside [2, %d] (0: enumerate every value, at most %d options)", cfg.ValueSamples, MaxValueSamples, MaxValueOptions)
	} else if cfg.ValueSamples != 0 && cfg.Strategy != BFS && cfg.Strategy != DFS {
		errs.Add("valueSamples", "samples the values bfs and dfs enumerate; strategy is %s", cfg.Strategy)
	}
	if cfg.PCTDepth < 0 || cfg.PCTDepth > 64 {
		errs.Add("pctDepth", "is %d, outside the allowed range [1, 64]", cfg.PCTDepth)
	}
	switch cfg.Storage {
	case "", StorageFingerprint, StorageExact:
	default:
		errs.Add("storage", "unknown storage %q; one of %s", cfg.Storage, strings.Join(Storages, ", "))
	}
	if cfg.Workers < 0 || cfg.Workers > MaxWorkers {
		errs.Add("workers", "is %d, outside [0, %d] (0: one per CPU)", cfg.Workers, MaxWorkers)
	}
	if cfg.Reductions.DPOR && cfg.Strategy != DFS {
		errs.Add("reductions.dpor", "dynamic partial-order reduction is a dfs reduction; strategy is %s", cfg.Strategy)
	}
	spec, sc, err := reg.Normalize(scenario.RunSpec{Scenario: cfg.Scenario, Preset: cfg.Preset, Variant: cfg.Variant, Params: cfg.Params, Seed: cfg.Seed})
	if err != nil {
		if !errs.AddErr(err) {
			return cfg, spec, nil, err
		}
		if sc, _ = reg.Lookup(cfg.Scenario); sc == nil {
			return cfg, spec, nil, errs.Err()
		}
	}
	if cfg.Property != "" {
		names := make([]string, 0, len(sc.Properties))
		found := false
		for _, p := range sc.Properties {
			names = append(names, p.Name)
			found = found || p.Name == cfg.Property
		}
		if !found {
			errs.Add("property", "unknown property %q of %s; one of %s", cfg.Property, sc.ID, strings.Join(names, ", "))
		}
	}
	for _, name := range sortedRangeKeys(cfg.ParamRanges) {
		r := cfg.ParamRanges[name]
		field := "paramRanges." + name
		if _, ok := sc.Param(name); !ok {
			errs.Add(field, "unknown parameter of %s", sc.ID)
			continue
		}
		if len(r.Values) == 0 && r.Min > r.Max {
			errs.Add(field, "min %v is above max %v", r.Min, r.Max)
			continue
		}
		for _, v := range r.Values {
			p := cfg.withParam(spec, name, v)
			if _, _, err := reg.Normalize(p); err != nil {
				errs.Add(field, "value %v: %v", v, err)
				break
			}
		}
	}
	if err := errs.Err(); err != nil {
		return cfg, spec, nil, err
	}
	cfg.Preset, cfg.Variant = spec.Preset, spec.Variant
	if cfg.Storage == "" {
		cfg.Storage = StorageFingerprint
	}
	def := DefaultBudget(cfg.Strategy)
	if cfg.Budget.States == 0 {
		cfg.Budget.States = def.States
	}
	if cfg.Budget.Runs == 0 {
		cfg.Budget.Runs = def.Runs
	}
	if cfg.Budget.Depth == 0 || cfg.Budget.Depth > spec.MaxSteps {
		cfg.Budget.Depth = spec.MaxSteps
	}
	if cfg.PCTDepth == 0 {
		cfg.PCTDepth = DefaultPCTDepth
	}
	return cfg, spec, sc, nil
}

func (cfg Config) withParam(spec scenario.RunSpec, name string, v any) scenario.RunSpec {
	params := maps.Clone(spec.Params)
	if params == nil {
		params = map[string]any{}
	}
	params[name] = v
	spec.Params = params
	return spec
}

// clip shortens a value a client sent before an error quotes it.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

func sortedRangeKeys(m map[string]ParamRange) []string {
	return slices.Sorted(maps.Keys(m))
}
