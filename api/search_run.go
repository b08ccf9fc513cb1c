package api

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"time"

	"github.com/racetrack-sim/racetrack/core/check"
	"github.com/racetrack-sim/racetrack/core/session"
	"github.com/racetrack-sim/racetrack/internal/parallel"
)

// searchPlan is a validated search: the session's planned search (its
// explorer and its budget in seconds of the server's clock) and what the
// server adds. Everything after planSearch takes it and trusts it.
type searchPlan struct {
	search *session.Search
	bytes  int64 // the memory it will hold at most (core's estimate)
	// distributed runs the explorer's configuration on the cluster.
	distributed bool
}

func (p *searchPlan) explorer() *check.Explorer { return p.search.Explorer() }

// DecodeSearchRequest parses a search request body (the session's
// request type); a 400 problem for bad syntax.
func DecodeSearchRequest(data []byte) (session.SearchRequest, error) {
	req, err := session.DecodeSearchRequest(data)
	return req, problemOf(err)
}

// planSearch checks a request against the server's bounds and the
// catalog (the session's rules) and builds its explorer. Errors name the
// field.
func (s *Server) planSearch(req session.SearchRequest) (*searchPlan, error) {
	q, err := s.rules.Plan(req)
	if err != nil {
		return nil, err
	}
	cfg := q.Explorer().Config()
	if req.Distributed {
		if s.cfg.Cluster == nil {
			return nil, invalid("distributed", "this server runs no NATS cluster: start it with `racetrack serve` (an embedded one) or -nats URL")
		}
		if cfg.Strategy == check.DFS {
			return nil, invalid("distributed", "dfs does not run distributed; random, pct and bfs do")
		}
		if cfg.Reductions.POR && cfg.Strategy == check.BFS {
			return nil, invalid("reductions.por", "a distributed bfs cannot use persistent sets")
		}
	}
	return &searchPlan{search: q, bytes: q.Explorer().EstimateBytes(parallel.Workers(cfg.Workers)), distributed: req.Distributed}, nil
}

// runDistributed runs a job on the cluster.
func (p *searchPool) runDistributed(j *job) {
	start := time.Now()
	ctx, cancel := context.WithTimeout(j.ctx, time.Duration(j.plan.search.Seconds()*float64(time.Second)))
	defer cancel()
	budget := session.ProgressBudget(j.plan.explorer().Config())
	res, err := p.s.cfg.Cluster.Search(ctx, j.plan.explorer().Config(), func(prog check.Progress) {
		j.update(func(st *SearchStatus) { st.Progress = session.SearchProgress{Progress: prog, Budget: budget} })
	})
	if p.ctx.Err() != nil && err != nil {
		return // shutting down: resumes on the next start
	}
	out := session.SearchResult{Result: res}
	switch {
	case j.ctx.Err() != nil:
		out.Cancelled, out.Stop = true, check.LimitStop(check.StopCancel, 0)
	case errors.Is(err, context.DeadlineExceeded):
		out.TimedOut, out.Stop = true, check.LimitStop(check.StopSeconds, j.plan.search.Seconds())
	case err != nil && res.Error == "":
		out.Error = err.Error()
	}
	out.Stop = check.FinalStop(out.Result)
	p.keep(j, out, start, stateOf(out))
}

// stateOf is the final state of a job that ended with res.
func stateOf(res session.SearchResult) string {
	if res.Cancelled {
		return StateCancelled
	}
	return StateDone
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
	if j.plan.distributed {
		p.runDistributed(j)
		return
	}
	start := time.Now()
	res := j.plan.search.Run(session.Hooks{
		Elapsed: func() time.Duration { return time.Since(start) },
		Step: func(x *check.Explorer, n int) check.Progress {
			return parallel.Step(x, n, x.Config().Workers)
		},
		Progress: func(prog session.SearchProgress) {
			j.update(func(st *SearchStatus) { st.Progress = prog })
		},
		Cancelled: func() bool { return j.ctx.Err() != nil },
		// Keep the counterexample before shrinking it: a stop or a crash
		// from here on must not lose it.
		Found: func(r check.Result) { p.keep(j, session.SearchResult{Result: r}, start, StateRunning) },
	})
	if p.ctx.Err() != nil && res.Cancelled {
		return // shutting down: resumes on the next start
	}
	state := stateOf(res)
	if stop := memoryStopOf(j.ctx); stop != "" && res.Cancelled {
		state, res.Error = StateFailed, stop // final: never resumed
		res.Stop = check.Stop{Reason: check.StopError, Message: stop}
	}
	p.keep(j, res, start, state)
}

// keep records a search's result in the store (and the counterexample's
// spec, so its run id resolves) and, for a final state, finishes the job.
func (p *searchPool) keep(j *job, res session.SearchResult, start time.Time, state string) {
	out := &SearchResult{SearchResult: res, Schedule: []int{}, ElapsedMs: float64(time.Since(start).Microseconds()) / 1000, Message: res.Violation}
	errText := ""
	if res.Error != "" && (!res.Found || state == StateFailed) {
		state, errText = StateFailed, res.Error
	}
	if ce := res.Counterexample; ce != nil {
		// The explorer's counterexample is a normalised spec (its base
		// spec and the schedule it found): stored as it is.
		if err := p.s.store.PutRun(*ce); err != nil {
			p.s.log.Error("store counterexample", "search", j.status.ID, "err", err)
		}
		out.RunID, out.Seed = ce.ID(), ce.Seed
		out.Schedule = append(out.Schedule, ce.Schedule...)
	}
	set := func(st *SearchStatus) {
		st.State, st.Result, st.Error = state, out, errText
		st.Progress = session.SearchProgress{Progress: check.Progress{States: res.States, Transitions: res.Transitions, Runs: res.Runs,
			Depth: res.Depth, Done: state != StateRunning, Found: res.Found, BestLength: res.Length}, Budget: session.ProgressBudget(j.plan.explorer().Config())}
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
