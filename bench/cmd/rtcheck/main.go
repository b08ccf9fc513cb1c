// Command rtcheck runs one Racetrack search from the command line and
// prints what it found, for benchmarks against other model checkers
// (bench/spin/run.sh):
//
//	go run ./bench/cmd/rtcheck -scenario vitess-messager -preset lock-level \
//	    -param clients=3 -param iterations=3 -strategy bfs
//
// It prints one line: strategy, verdict, states, transitions, runs, the
// counterexample's length in steps and in scheduling choices, and the
// wall time of the search (building the model included), and with -json
// the whole result.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"runtime/pprof"
	"strconv"
	"strings"
	"time"

	"github.com/racetrack-sim/racetrack/core/catalog"
	"github.com/racetrack-sim/racetrack/core/check"
	"github.com/racetrack-sim/racetrack/internal/parallel"
)

type params map[string]any

func (p params) String() string { return fmt.Sprint(map[string]any(p)) }

func (p params) Set(s string) error {
	k, v, ok := strings.Cut(s, "=")
	if !ok {
		return fmt.Errorf("want name=value, got %q", s)
	}
	switch {
	case v == "true" || v == "false":
		p[k] = v == "true"
	default:
		f, err := strconv.ParseFloat(v, 64)
		if err != nil {
			p[k] = v
		} else {
			p[k] = f
		}
	}
	return nil
}

func main() {
	cfg := check.Config{Params: params{}}
	flag.StringVar(&cfg.Scenario, "scenario", "dining-philosophers", "scenario id")
	flag.StringVar(&cfg.Preset, "preset", "", "preset id (default: the scenario's first)")
	flag.StringVar(&cfg.Variant, "variant", "", "variant id (default: the scenario's first)")
	flag.Var(params(cfg.Params), "param", "name=value, repeatable")
	flag.StringVar(&cfg.Property, "property", "", "property to violate (default: any)")
	flag.StringVar(&cfg.Strategy, "strategy", check.BFS, "random, pct, bfs or dfs")
	flag.IntVar(&cfg.Budget.States, "states", 0, "state budget (0: default)")
	flag.IntVar(&cfg.Budget.Runs, "runs", 0, "run budget (0: default)")
	flag.IntVar(&cfg.Budget.Depth, "depth", 0, "depth bound (0: the preset's maxSteps)")
	flag.Uint64Var(&cfg.Seed, "seed", 1, "seed of random and pct")
	flag.IntVar(&cfg.PCTDepth, "pct-depth", 0, "PCT bug depth d (0: default)")
	reductions := flag.String("reductions", "default", "comma list of sleep, por, dpor, symmetry; or default, all, none")
	noShrink := flag.Bool("no-shrink", false, "keep the counterexample as found")
	asJSON := flag.Bool("json", false, "print the whole result as JSON")
	cpuProfile := flag.String("cpuprofile", "", "write a CPU profile of the search to this file")
	flag.IntVar(&cfg.Workers, "workers", 0, "goroutines of a bfs or dfs (0: one per CPU)")
	flag.StringVar(&cfg.Storage, "storage", "", "bfs/dfs state storage: fingerprint (default) or exact")
	flag.Parse()
	if *cpuProfile != "" {
		f, err := os.Create(*cpuProfile)
		if err != nil {
			fail(err)
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			fail(err)
		}
		defer pprof.StopCPUProfile()
	}
	cfg.NoShrink = *noShrink
	red, err := parseReductions(*reductions, cfg.Strategy)
	if err != nil {
		fail(err)
	}
	cfg.Reductions = red

	start := time.Now()
	x, err := check.New(catalog.New(), cfg)
	if err != nil {
		fail(err)
	}
	parallel.TuneGCForExhaustive(cfg.Strategy)
	r := parallel.Run(x, cfg.Workers)
	elapsed := time.Since(start)
	if err := x.Err(); err != nil {
		fail(err)
	}
	if *asJSON {
		enc := json.NewEncoder(os.Stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(r); err != nil {
			fail(err)
		}
		return
	}
	steps := "-"
	if r.Found {
		steps = strconv.Itoa(r.Step + 1)
	}
	workers := parallel.Workers(cfg.Workers)
	if cfg.Strategy != check.BFS {
		// dfs: the goroutines its result came from (one with
		// partial-order reduction, or after starting over); the others
		// run on one.
		workers = x.Workers()
	}
	fmt.Printf("racetrack %s %+v: %s; states %d, transitions %d, runs %d; counterexample %s steps, %d choices; %.2fs; workers %d\n",
		r.Strategy, r.Reductions, r.Verdict, r.States, r.Transitions, r.Runs, steps, r.Length, elapsed.Seconds(), workers)
}

func parseReductions(s, strategy string) (check.Reductions, error) {
	switch s {
	case "default":
		return check.DefaultReductions(strategy), nil
	case "none", "":
		return check.Reductions{}, nil
	case "all":
		r := check.Reductions{Sleep: true, POR: true, Symmetry: true, DPOR: strategy == check.DFS}
		return r, nil
	}
	var r check.Reductions
	for _, name := range strings.Split(s, ",") {
		switch strings.TrimSpace(name) {
		case "sleep":
			r.Sleep = true
		case "por":
			r.POR = true
		case "dpor":
			r.DPOR = true
		case "symmetry":
			r.Symmetry = true
		default:
			return r, fmt.Errorf("unknown reduction %q: sleep, por, dpor, symmetry", name)
		}
	}
	return r, nil
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "rtcheck:", err)
	os.Exit(1)
}
