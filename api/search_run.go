package api

import (
	"errors"
	"fmt"
	"runtime/debug"
	"time"

	"github.com/racetrack-sim/racetrack/core/check"
	"github.com/racetrack-sim/racetrack/core/scenario"
	"github.com/racetrack-sim/racetrack/internal/parallel"
)

// defaultSearchSeconds is the time budget of a search that names none.
const defaultSearchSeconds = 30

// Slices of search work are sized to take about this long, so that a
// cancel or the time budget is noticed promptly.
const (
	sliceTarget = 50 * time.Millisecond
	maxSlice    = 1 << 14
)

// searchPlan is a validated search: the explorer to step and its budget
// in seconds of the server's clock.
type searchPlan struct {
	explorer *check.Explorer
	seconds  float64
	bytes    int64 // the memory it will hold at most (core's estimate)
}

// DecodeSearchRequest parses a search request body; a 400 problem for bad
// syntax.
func DecodeSearchRequest(data []byte) (SearchRequest, error) {
	var req SearchRequest
	if err := decodeStrict(data, &req); err != nil {
		return SearchRequest{}, err
	}
	return req, nil
}

// planSearch checks a request against the server's bounds and the
// catalog and builds its explorer. Errors name the field.
func (s *Server) planSearch(req SearchRequest) (*searchPlan, error) {
	// Every rejected field is reported: the server's bounds first, then
	// what the catalog and the checker reject (a field once).
	var errs scenario.Collector
	switch req.Strategy {
	case check.Random, check.PCT, check.BFS, check.DFS:
	case "":
		errs.Add("strategy", "is required: random, pct, bfs or dfs")
	default:
		errs.Add("strategy", "unknown strategy %q: random, pct, bfs or dfs", truncate(req.Strategy, 20))
	}
	b := req.Budget
	if b.States < 0 || b.States > s.cfg.MaxSearchStates {
		errs.Add("budget.states", "is %d, outside [0, %d]", b.States, s.cfg.MaxSearchStates)
	}
	if b.Runs < 0 || b.Runs > s.cfg.MaxSearchRuns {
		errs.Add("budget.runs", "is %d, outside [0, %d]", b.Runs, s.cfg.MaxSearchRuns)
	}
	if !(b.Seconds >= 0 && b.Seconds <= s.cfg.MaxSearchSeconds) {
		errs.Add("budget.seconds", "is %v, outside [0, %v]", b.Seconds, s.cfg.MaxSearchSeconds)
	}
	if req.Seed > scenario.MaxSeed {
		errs.Add("seed", "is %d, above the largest allowed seed %d", req.Seed, uint64(scenario.MaxSeed))
	}
	if errs.Len() > 0 {
		_, err := check.New(s.reg, check.Config{Scenario: req.Scenario, Preset: req.Preset, Variant: req.Variant, Params: req.Params,
			Property: req.Property, Strategy: check.Random})
		seen := map[string]bool{}
		for _, fe := range scenario.AllFieldErrors(errs.Err()) {
			seen[fe.Field] = true
		}
		for _, fe := range scenario.AllFieldErrors(err) {
			if !seen[fe.Field] {
				errs.Add(fe.Field, "%s", fe.Msg)
			}
		}
		return nil, fromFieldErrors(errs.Err(), false)
	}
	seconds := b.Seconds
	if seconds == 0 {
		seconds = min(defaultSearchSeconds, s.cfg.MaxSearchSeconds)
	}
	red := check.DefaultReductions(req.Strategy)
	if req.Reductions != nil {
		red = *req.Reductions
	}
	x, err := check.New(s.reg, check.Config{
		Scenario: req.Scenario, Preset: req.Preset, Variant: req.Variant, Params: req.Params,
		Property: req.Property, Strategy: req.Strategy, Seed: req.Seed,
		Budget: check.Budget{States: b.States, Runs: b.Runs}, Reductions: red, Workers: req.Workers,
	})
	if err != nil {
		if p := fromFieldErrors(err, false); p != nil {
			return nil, p
		}
		if errors.Is(err, check.ErrUnsupported) {
			return nil, invalid("strategy", "%v", err)
		}
		return nil, err
	}
	return &searchPlan{explorer: x, seconds: seconds, bytes: x.EstimateBytes()}, nil
}

// run executes one job on a worker. A panic in the search (a bug in a
// model or in core) fails the job, not the server.
func (p *searchPool) run(j *job) {
	if !j.claim() {
		return
	}
	defer func() {
		if v := recover(); v != nil {
			st, _ := j.snapshot()
			p.s.log.Error("search panicked", "id", st.ID, "panic", fmt.Sprint(v), "stack", string(debug.Stack()))
			p.finish(j, func(st *SearchStatus) {
				st.State, st.Error = StateFailed, "the search stopped on an internal error"
			})
		}
	}()
	if p.ctx.Err() != nil {
		return // shutting down: the stored record resumes on the next start
	}
	j.update(func(st *SearchStatus) { st.State = StateRunning })
	x := j.plan.explorer
	start := time.Now()
	deadline := start.Add(time.Duration(j.plan.seconds * float64(time.Second)))
	slice, stored := 1, false
	var prog check.Progress
	for {
		t0 := time.Now()
		prog = parallel.Step(x, slice, x.Config().Workers)
		took := time.Since(t0)
		switch {
		case took < sliceTarget/2 && slice < maxSlice:
			slice *= 2
		case took > 2*sliceTarget && slice > 1:
			slice /= 2
		}
		j.update(func(st *SearchStatus) {
			st.Progress = SearchProgress{States: prog.States, Runs: prog.Runs, Depth: prog.Depth}
		})
		if prog.Found && !stored {
			// Keep the counterexample before shrinking it: a stop or a
			// crash from here on must not lose it.
			stored = true
			p.keep(j, x.Result(), start, StateRunning)
		}
		if prog.Done || j.ctx.Err() != nil || time.Now().After(deadline) {
			break
		}
	}
	if p.ctx.Err() != nil && !prog.Done {
		return // shutting down: resumes on the next start
	}
	state := StateDone
	if !prog.Done && j.ctx.Err() != nil {
		state = StateCancelled
	}
	res := x.Result()
	if stop := memoryStopOf(j.ctx); stop != "" && !prog.Done {
		state, res.Error = StateFailed, stop // final: never resumed
	}
	p.keep(j, res, start, state)
}

// keep records a search's result in the store (and the counterexample's
// spec, so its run id resolves) and, for a final state, finishes the job.
func (p *searchPool) keep(j *job, res check.Result, start time.Time, state string) {
	out := &SearchResult{Found: res.Found, Property: res.Property, Schedule: []int{}, Length: res.Length,
		States: res.States, ElapsedMs: float64(time.Since(start).Microseconds()) / 1000, Exhaustive: res.Exhaustive,
		Message: res.Violation, Step: res.Step}
	errText := ""
	if res.Error != "" && (!res.Found || state == StateFailed) {
		state, errText = StateFailed, res.Error
	}
	if ce := res.Counterexample; ce != nil {
		if ns, _, err := p.s.reg.Normalize(*ce); err == nil {
			if err := p.s.store.PutRun(ns); err != nil {
				p.s.log.Error("store counterexample", "search", j.status.ID, "err", err)
			}
			out.RunID, out.Seed = ns.ID(), ns.Seed
			out.Schedule = append(out.Schedule, ns.Schedule...)
		}
	}
	set := func(st *SearchStatus) {
		st.State, st.Result, st.Error = state, out, errText
		st.Progress = SearchProgress{States: res.States, Runs: res.Runs, Depth: res.Depth}
	}
	if state == StateRunning {
		st, _ := j.snapshot()
		set(&st)
		if err := p.s.store.PutSearch(&st); err != nil {
			p.s.log.Error("store search", "id", st.ID, "err", err)
		}
		j.update(set)
		return
	}
	p.finish(j, set)
}
