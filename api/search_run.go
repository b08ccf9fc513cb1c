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

// searchPlan is a validated search: the explorer to step and its budget
// in seconds of the server's clock.
type searchPlan struct {
	explorer *check.Explorer
	seconds  float64
	bytes    int64 // the memory it will hold at most (core's estimate)
	// distributed runs the explorer's configuration on the cluster.
	distributed bool
}

// DecodeSearchRequest parses a search request body (the session's
// request type); a 400 problem for bad syntax.
func DecodeSearchRequest(data []byte) (session.SearchRequest, error) {
	req, err := session.DecodeSearchRequest(data)
	return req, restError(err, "")
}

// planSearch checks a request against the server's bounds and the
// catalog (the session's rules) and builds its explorer. Errors name the
// field.
func (s *Server) planSearch(req session.SearchRequest) (*searchPlan, error) {
	q, err := s.rules.Plan(req)
	if err != nil {
		return nil, restError(err, "")
	}
	if req.Distributed {
		if s.cfg.Cluster == nil {
			return nil, invalid("distributed", "this server runs no NATS cluster: start it with `racetrack serve` (an embedded one) or -nats URL")
		}
		if req.Strategy == check.DFS {
			return nil, invalid("distributed", "dfs does not run distributed; random, pct and bfs do")
		}
		if q.Explorer().Config().Reductions.POR && req.Strategy == check.BFS {
			return nil, invalid("reductions.por", "a distributed bfs cannot use persistent sets")
		}
	}
	return &searchPlan{explorer: q.Explorer(), seconds: q.Seconds(), bytes: q.Explorer().EstimateBytes(parallel.Workers(q.Explorer().Config().Workers)), distributed: req.Distributed}, nil
}

// runDistributed runs a job on the cluster.
func (p *searchPool) runDistributed(j *job) {
	start := time.Now()
	ctx, cancel := context.WithTimeout(j.ctx, time.Duration(j.plan.seconds*float64(time.Second)))
	defer cancel()
	res, err := p.s.cfg.Cluster.Search(ctx, j.plan.explorer.Config(), func(prog check.Progress) {
		j.update(func(st *SearchStatus) {
			st.Progress = SearchProgress{States: prog.States, Runs: prog.Runs, Depth: prog.Depth}
		})
	})
	if p.ctx.Err() != nil && err != nil {
		return // shutting down: resumes on the next start
	}
	state := StateDone
	switch {
	case j.ctx.Err() != nil:
		state = StateCancelled
	case err != nil && res.Error == "" && !errors.Is(err, context.DeadlineExceeded):
		res.Error = err.Error()
	}
	j.mu.Lock()
	j.outcome, j.timedOut = &res, errors.Is(err, context.DeadlineExceeded) && j.ctx.Err() == nil
	j.mu.Unlock()
	p.keep(j, res, start, state)
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
	x := j.plan.explorer
	start := time.Now()
	deadline := start.Add(time.Duration(j.plan.seconds * float64(time.Second)))
	slice, stored := 1, false
	var prog check.Progress
	for {
		t0 := time.Now()
		prog = parallel.Step(x, slice, x.Config().Workers)
		slice = session.NextSlice(slice, time.Since(t0))
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
		Sampled: res.Sampled, Message: res.Violation, Step: res.Step}
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
