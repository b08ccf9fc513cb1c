package cli

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"strings"
	"time"

	"github.com/racetrack-sim/racetrack/core/check"
	"github.com/racetrack-sim/racetrack/core/scenario"
	"github.com/racetrack-sim/racetrack/core/session"
	"github.com/racetrack-sim/racetrack/core/timeline"
	"github.com/racetrack-sim/racetrack/internal/cluster"
	"github.com/racetrack-sim/racetrack/internal/parallel"
)

// searchFlags are the flags of a search (search, verify -exhaustive).
type searchFlags struct {
	states, runs, depth, pctDepth *int
	reductions                    *string
	noShrink                      *bool
	timeout, horizon              *time.Duration
	workers, samples              *int
}

func addSearchFlags(fs *flag.FlagSet) *searchFlags {
	return &searchFlags{
		states:     fs.Int("states", 0, "bfs/dfs: the most distinct states to store (default 2,000,000)"),
		runs:       fs.Int("runs", 0, "random/pct: the runs to try (default 2000)"),
		depth:      fs.Int("depth", 0, "the most steps of one schedule (default: the preset's maxSteps)"),
		pctDepth:   fs.Int("pct-depth", 0, "pct: the bug depth d (default 3)"),
		reductions: fs.String("reductions", "default", "bfs/dfs reductions: default, none, or a list of sleep,por,dpor,symmetry"),
		noShrink:   fs.Bool("no-shrink", false, "keep a counterexample as found"),
		timeout:    fs.Duration("timeout", 0, "stop after this long (0: no limit); a search stopped this way exits 14"),
		workers:    fs.Int("workers", 0, "bfs, dfs: goroutines to search on (0: one per CPU); results do not depend on it"),
		samples:    fs.Int("value-samples", 0, "bfs/dfs on a timed preset: try each drawn value at this many evenly spread options (not a proof)"),
		horizon:    fs.Duration("horizon", 0, "bfs/dfs: do not expand states past this virtual time (0: no bound)"),
	}
}

// apply writes the flags the user set over cfg.
func (f *searchFlags) apply(fs *flag.FlagSet, cfg *check.Config) error {
	set := setFlags(fs)
	if set["states"] {
		cfg.Budget.States = *f.states
	}
	if set["runs"] {
		cfg.Budget.Runs = *f.runs
	}
	if set["depth"] {
		cfg.Budget.Depth = *f.depth
	}
	if set["pct-depth"] {
		cfg.PCTDepth = *f.pctDepth
	}
	if set["no-shrink"] {
		cfg.NoShrink = *f.noShrink
	}
	if set["workers"] {
		cfg.Workers = *f.workers
	}
	if set["value-samples"] {
		cfg.ValueSamples = *f.samples
	}
	if set["horizon"] {
		if *f.horizon < 0 || *f.horizon%time.Millisecond != 0 {
			return fmt.Errorf("-horizon is %v; it must be a non-negative whole number of milliseconds", *f.horizon)
		}
		cfg.Budget.HorizonMs = f.horizon.Milliseconds()
	}
	if *f.timeout < 0 {
		return fmt.Errorf("-timeout is %v; it cannot be negative", *f.timeout)
	}
	switch r := *f.reductions; {
	case r == "default" && !set["reductions"]:
		// cfg keeps its reductions: the config's, or the strategy's defaults.
	case r == "default":
		cfg.Reductions = check.DefaultReductions(cfg.Strategy)
	case r == "none":
		cfg.Reductions = check.Reductions{}
	default:
		cfg.Reductions = check.Reductions{}
		for _, name := range strings.Split(r, ",") {
			switch strings.TrimSpace(name) {
			case "sleep":
				cfg.Reductions.Sleep = true
			case "por":
				cfg.Reductions.POR = true
			case "dpor":
				cfg.Reductions.DPOR = true
			case "symmetry":
				cfg.Reductions.Symmetry = true
			default:
				return fmt.Errorf("-reductions: unknown reduction %q; default, none, or a list of sleep, por, dpor, symmetry", name)
			}
		}
	}
	return nil
}

func searchCmd(ctx context.Context, e *Env, args []string) int {
	fs := e.Flags("search", "[-config JSON|@FILE] [-scenario S -preset P -variant V -param k=v] [-strategy random|pct|bfs|dfs] [-property P] [budget flags] [-store DIR] [-json] [-profile]",
		"Searches the schedules of a scenario for a violation and shrinks the counterexample. The config\n"+
			"is the JSON body of POST /api/v1/searches; the flags override its fields.")
	config := fs.String("config", "", "the search config as JSON, or @FILE")
	sf := addSpecFlags(fs, "", false)
	strategy := fs.String("strategy", check.Random, "random, pct, bfs or dfs (bfs and dfs search a timed preset with -value-samples)")
	property := fs.String("property", "", "the property to violate (default: any)")
	sfl := addSearchFlags(fs)
	store := fs.String("store", "", "write a run folder under DIR (the search result and its counterexample run)")
	asJSON := fs.Bool("json", false, "print the result as JSON")
	natsURL := fs.String("nats", "", "run the search on the workers of this NATS cluster (random, pct, bfs; racetrack worker joins one)")
	profile := fs.Bool("profile", false, "instead of searching, profile a bounded bfs (-states, default 20,000): the view fields and processes with the most distinct values, and new states by depth")
	if code := e.Parse(fs, args); code >= 0 {
		return code
	}
	// The config is decoded as the server decodes a search request
	// (core/session), so one body works in both places.
	var req session.SearchRequest
	if *config != "" {
		data, err := readInput(*config)
		if err == nil {
			req, err = session.DecodeSearchRequest(data)
		}
		if err != nil {
			return e.Fail("search", ExitUsage, fmt.Errorf("-config: %w", err))
		}
	}
	set := setFlags(fs)
	if req.Distributed && *natsURL == "" {
		return e.Fail("search", ExitUsage, fmt.Errorf("-config: distributed needs -nats URL (%s worker joins a cluster)", e.Name))
	}
	timeout := *sfl.timeout
	if !set["timeout"] && req.Budget.Seconds > 0 {
		timeout = time.Duration(req.Budget.Seconds * float64(time.Second))
	}
	sf.override(fs, &req.Scenario, &req.Preset, &req.Variant, &req.Seed, &req.Params)
	if set["strategy"] || req.Strategy == "" {
		req.Strategy = *strategy
	}
	cfg := req.Config()
	if set["property"] {
		cfg.Property = *property
	}
	if err := sfl.apply(fs, &cfg); err != nil {
		return e.Fail("search", ExitUsage, err)
	}
	if *profile {
		for _, f := range []string{"strategy", "store", "nats"} {
			if set[f] && (f != "strategy" || cfg.Strategy != check.BFS) {
				return e.Fail("search", ExitUsage, fmt.Errorf("-profile runs a bfs and prints its profile; it takes no -%s", f))
			}
		}
		return profileCmd(e, cfg, *asJSON)
	}
	return search(ctx, e, "search", cfg, timeout, *store, *asJSON, *natsURL, args)
}

// search runs cfg to its end (or the timeout), prints the result and
// stores it; the exit code is the verdict.
func search(ctx context.Context, e *Env, cmd string, cfg check.Config, timeout time.Duration, store string, asJSON bool, natsURL string, args []string) int {
	if cfg.Scenario == "" {
		return e.Fail(cmd, ExitUsage, fmt.Errorf("-scenario (or a -config naming one) is required; %s list shows the scenarios", e.Name))
	}
	reg := e.reg
	x, err := check.New(reg, cfg)
	if err != nil {
		code := ExitFailure
		if errors.Is(err, scenario.ErrInvalid) || errors.Is(err, check.ErrUnsupported) {
			code = ExitUsage
		}
		return e.Fail(cmd, code, err)
	}
	start := time.Now()
	var res check.Result
	var stop stopBy
	if natsURL != "" {
		dctx := ctx
		if timeout > 0 {
			var cancel context.CancelFunc
			dctx, cancel = context.WithTimeout(ctx, timeout)
			defer cancel()
		}
		res, err = distributedSearch(dctx, e.reg, natsURL, x.Config())
		if err != nil && dctx.Err() == nil && res.Error == "" {
			return e.Fail(cmd, ExitFailure, err)
		}
		stop = stopBy{timeout: dctx.Err() != nil && ctx.Err() == nil, signal: ctx.Err() != nil}
		res.Stop = check.FinalStop(res)
	} else {
		parallel.TuneGCForExhaustive(x.Config().Strategy)
		r := session.NewSearch(x, timeout.Seconds()).Run(session.Hooks{
			Elapsed: func() time.Duration { return time.Since(start) },
			Step: func(x *check.Explorer, n int) check.Progress {
				return parallel.Step(x, n, x.Config().Workers)
			},
			Cancelled: func() bool { return ctx.Err() != nil },
		})
		res, stop = r.Result, stopBy{timeout: r.TimedOut, signal: r.Cancelled}
		// A model the strategy cannot search (a value drawn from too many
		// options) is bad input, found once the search meets it.
		if err := x.Err(); errors.Is(err, check.ErrUnsupported) {
			return e.Fail(cmd, ExitUsage, err)
		}
	}
	elapsed := time.Since(start)
	sc, _ := reg.Lookup(x.Config().Scenario)
	code := searchCode(sc, res, stop.timeout || stop.signal)
	if asJSON {
		enc := json.NewEncoder(e.Stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(res); err != nil {
			return e.Fail(cmd, ExitFailure, err)
		}
	} else {
		printSearch(e, x.Config(), res, stop, timeout, elapsed)
	}
	if store != "" {
		if err := storeSearch(e, reg, store, x.Config(), res, code, args); err != nil {
			return e.Fail(cmd, ExitFailure, err)
		}
	}
	return code
}

// profileCmd prints the state-space profile of cfg's preset.
func profileCmd(e *Env, cfg check.Config, asJSON bool) int {
	if cfg.Scenario == "" {
		return e.Fail("search", ExitUsage, fmt.Errorf("-scenario (or a -config naming one) is required; %s list shows the scenarios", e.Name))
	}
	p, err := check.ProfileSearch(e.reg, cfg)
	if err != nil {
		code := ExitFailure
		if errors.Is(err, scenario.ErrInvalid) || errors.Is(err, check.ErrUnsupported) {
			code = ExitUsage
		}
		return e.Fail("search", code, err)
	}
	if asJSON {
		enc := json.NewEncoder(e.Stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(p); err != nil {
			return e.Fail("search", ExitFailure, err)
		}
		return ExitHolds
	}
	fmt.Fprint(e.Stdout, p.Text(0))
	return ExitHolds
}

// distributedSearch runs cfg on the workers of the NATS cluster at url.
func distributedSearch(ctx context.Context, reg *scenario.Registry, url string, cfg check.Config) (check.Result, error) {
	nc, err := cluster.Dial(url, "racetrack-search", cluster.AuthFromEnv(cluster.CoordinatorUser))
	if err != nil {
		return check.Result{}, err
	}
	defer nc.Close()
	c, err := cluster.NewCoordinator(nc, reg, cluster.Options{})
	if err != nil {
		return check.Result{}, err
	}
	return c.Search(ctx, cfg, nil)
}

// searchCode: a counterexample by its property's kind; a search that
// stopped early (error, timeout, state budget) without one is 1 or 14;
// otherwise the property holds for what was searched.
func searchCode(sc *scenario.Scenario, res check.Result, stopped bool) int {
	switch {
	case res.Found:
		return violationCode(sc, res.Property)
	case res.Error != "":
		return ExitFailure
	case stopped:
		return ExitBudget
	case (res.Strategy == check.BFS || res.Strategy == check.DFS) && !res.Exhaustive:
		return ExitBudget
	}
	return ExitHolds
}

// stopBy says what stopped a search before its end: -timeout or a
// signal.
type stopBy struct{ timeout, signal bool }

// budgetFlags name the flag that raises each limit a result can name.
var budgetFlags = map[string]string{"budget.states": "-states", "budget.runs": "-runs", "budget.depth": "-depth", "budget.horizonMs": "-horizon"}

func printSearch(e *Env, cfg check.Config, res check.Result, stop stopBy, timeout, elapsed time.Duration) {
	prop := res.Property
	if prop == "" {
		prop = "any property"
	}
	fmt.Fprintf(e.Stdout, "search %s %s/%s/%s for %s: %s\n", res.Strategy, cfg.Scenario, cfg.Preset, cfg.Variant, prop, res.Verdict)
	fmt.Fprintf(e.Stdout, "  %d states, %d transitions, %d runs, depth %d, %.1f s\n", res.States, res.Transitions, res.Runs, res.Depth, elapsed.Seconds())
	switch {
	case stop.timeout:
		fmt.Fprintf(e.Stdout, "  stopped by -timeout at %v before the search finished: raise -timeout\n", timeout)
	case stop.signal:
		fmt.Fprintln(e.Stdout, "  stopped by a signal before the search finished")
	case res.Stop.Raise != "" && !res.Found:
		fmt.Fprintf(e.Stdout, "  %s (%s)\n", res.Stop.Message, budgetFlags[res.Stop.Raise])
	}
	if res.Error != "" {
		fmt.Fprintf(e.Stdout, "  error: %s\n", res.Error)
	}
	if res.Found && res.Counterexample != nil {
		fmt.Fprintf(e.Stdout, "  VIOLATED %s at step %d: %s\n", res.Property, res.Step+1, res.Violation)
		b, _ := json.Marshal(res.Counterexample)
		fmt.Fprintf(e.Stdout, "  counterexample (%d choices, shrunk from %d): %s run -spec '%s'\n", res.Length, res.OriginalLength, e.Name, b)
	}
}

// storeSearch writes the search's folder: its result in summary.json and
// the counterexample's run, when there is one.
func storeSearch(e *Env, reg *scenario.Registry, dir string, cfg check.Config, res check.Result, code int, args []string) error {
	payload := map[string]any{"search": res, "config": cfg}
	if res.Counterexample == nil {
		path, err := runFolder(e, dir, scenario.RunSpec{Scenario: cfg.Scenario, Preset: cfg.Preset, Variant: cfg.Variant})
		if err != nil {
			return err
		}
		fmt.Fprintf(e.Stderr, "stored in %s\n", path)
		return writeSummary(e, path, payload, code, args)
	}
	tl, err := timeline.Record(reg, *res.Counterexample, timeline.Options{})
	if err != nil {
		return fmt.Errorf("record the counterexample: %w", err)
	}
	payload["run"] = tl.Summary()
	return storeRun(e, dir, tl, payload, code, args)
}
