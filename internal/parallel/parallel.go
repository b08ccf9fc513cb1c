// Package parallel runs a core/check search on several goroutines. The
// core never starts a goroutine (it must run the same natively and in
// the browser), so it offers the work of a level-synchronous bfs, and of
// a dfs split into one stack per worker, as phases of independent tasks
// (check.Explorer.PlanWorkers, Tasks, RunTask, EndPhase); this package
// runs each phase's tasks on a pool of workers and the rest of the
// search (random, pct, shrinking) on the caller's goroutine. Results do
// not depend on the number of workers: bfs decides everything in task
// order, not in the order tasks finish, and a parallel dfs keeps its
// result only when it ran to its end (see check.Config.Workers).
//
// It is the one place the server (api), the command line and the
// benchmarks start search workers; the wasm build runs searches with one
// worker through check.Explorer.Step.
package parallel

import (
	"os"
	"runtime"
	"runtime/debug"
	"sync"
	"sync/atomic"

	"github.com/racetrack-sim/racetrack/core/check"
)

// Workers resolves a configured worker count: 0 means one per CPU.
func Workers(n int) int {
	if n <= 0 {
		return runtime.NumCPU()
	}
	return n
}

// Step does about budget units of the search's work (as
// check.Explorer.Step) on up to workers goroutines and reports the
// progress. A parallel phase always runs to its end, so one call may do
// more than budget when a phase is larger.
func Step(x *check.Explorer, budget, workers int) check.Progress {
	workers = Workers(workers)
	if budget < 1 {
		budget = 1
	}
	x.PlanWorkers(workers, newLocks)
	for budget > 0 {
		n := x.Tasks()
		if n == 0 || workers == 1 {
			return x.Step(budget)
		}
		run(x, n, workers)
		p := x.EndPhase()
		budget -= n * 64
		if p.Done {
			return p
		}
	}
	return x.Progress()
}

// locks are the locks a parallel dfs takes (check.Locks), each on a
// cache line of its own.
type locks []paddedMutex

type paddedMutex struct {
	sync.Mutex
	_ [56]byte
}

func newLocks(n int) check.Locks { return make(locks, n) }

func (l locks) Lock(i int)   { l[i].Lock() }
func (l locks) Unlock(i int) { l[i].Unlock() }

// Run steps the search to its end on workers goroutines.
func Run(x *check.Explorer, workers int) check.Result {
	for !Step(x, 1<<14, workers).Done {
	}
	return x.Result()
}

// run runs tasks 0..n-1 of the current phase on up to workers
// goroutines, each taking the next task not yet taken.
func run(x *check.Explorer, n, workers int) {
	workers = min(workers, n)
	if workers == 1 {
		sc := x.Scratch(0)
		for i := 0; i < n; i++ {
			x.RunTaskWith(i, sc)
		}
		return
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		sc := x.Scratch(w)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1) - 1)
				if i >= n {
					return
				}
				x.RunTaskWith(i, sc)
			}
		}()
	}
	wg.Wait()
}

// ExhaustiveGCPercent is the GOGC a process running one exhaustive
// search (bfs, dfs) from the command line sets, unless GOGC is in its
// environment. Such a heap is mostly the visited set and the level logs,
// arrays without pointers that the collector does not scan, so
// collecting at 50 % growth instead of 100 % costs little (about 5 % more
// time on vitess fixed C=3 ITER=2) and keeps the peak near the live heap
// (peak RSS 108 -> 89 MB, 77 -> 62 bytes per stored state).
const ExhaustiveGCPercent = 50

// TuneGCForExhaustive sets ExhaustiveGCPercent for a command-line
// process about to run an exhaustive search, unless the user set GOGC.
// A server, which runs many things at once, keeps its own setting.
func TuneGCForExhaustive(strategy string) {
	if strategy != check.BFS && strategy != check.DFS {
		return
	}
	if _, set := os.LookupEnv("GOGC"); set {
		return
	}
	debug.SetGCPercent(ExhaustiveGCPercent)
}
