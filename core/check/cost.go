package check

import "github.com/racetrack-sim/racetrack/core/scenario"

// What a search keeps besides its worlds.
const (
	searchBaseBytes = 1 << 20
	// stateOverhead is an exhaustive search's cost per state with exact
	// storage besides the world: the frontier node and sleep set, the
	// visited entry and the map's slack.
	stateOverhead = 256
	// bfsLogBytes is what a bfs keeps per state besides its visited
	// slot: its level-log entry (parent, offset, the choices that reach
	// it) and its sleep set, with the slack of slices grown by doubling.
	bfsLogBytes = 48
	// dfsNodeBytes is a dfs's cost per state besides its visited slot and
	// the worlds of its stack: the slack of the stacks and free lists.
	dfsNodeBytes = 16
	// pathWorlds is how many worlds besides its cached path a bfs worker
	// holds (the successors of the state it expands), and dfsBranch how
	// many a dfs stack holds per step of depth (the unexpanded siblings
	// on it), for the estimate: a model that branches more is held to
	// its budget by the server's heap watchdog, not by these figures.
	pathWorlds = 64
	dfsBranch  = 16
	// runStepBytes is a run's cost per step: random and pct run without
	// a trace, but keep schedules (the run's, the shrinker's copies).
	runStepBytes = 64
	// runWorlds is how many worlds a run-based search holds at once.
	runWorlds = 8
)

// BytesPerState is the memory an exhaustive search spends on each state
// it keeps besides the worlds of its frontier. With fingerprints that is
// the visited slot (8 bytes and the sleep mask), four slots' worth
// (right after the table doubles it is 3/8 full, and the old table is
// alive while it is copied), plus bfs's level log or dfs's bookkeeping.
// With exact storage it is a world at the depth the state was found
// (the canonical encoding is no larger) and its bookkeeping.
func (x *Explorer) BytesPerState() int64 {
	e := x.graph()
	if e == nil || e.exact {
		return x.worldBytes() + stateOverhead
	}
	slot := int64(8 + e.store.masks/8)
	if x.cfg.Strategy == BFS {
		return 4*slot + bfsLogBytes
	}
	return 4*slot + dfsNodeBytes
}

// EstimateBytes is the memory the search will hold at most within its
// budget when it runs on workers goroutines, known before it starts:
// for bfs and dfs every state of the states budget (BytesPerState)
// plus the worlds they keep — a bfs worker's cached path (a world per
// level, at most the depth bound) and the successors it computes, the
// dfs stacks' (unexpanded siblings along each worker's path: at most
// one per state stored) — and for random and pct a few worlds and the
// schedules of runs of the whole depth.
func (x *Explorer) EstimateBytes(workers int) int64 {
	workers = max(workers, 1)
	states := int64(x.cfg.Budget.States)
	depth := int64(x.depth())
	world := x.worldBytes()
	switch x.cfg.Strategy {
	case BFS:
		worlds := int64(workers) * (min(depth, states) + pathWorlds)
		return searchBaseBytes + states*x.BytesPerState() + worlds*world
	case DFS:
		worlds := min(states, int64(workers)*depth*dfsBranch)
		return searchBaseBytes + states*x.BytesPerState() + worlds*world
	}
	return searchBaseBytes + runWorlds*world + depth*runStepBytes
}

// worldBytes is the size of a world at the depth bound.
func (x *Explorer) worldBytes() int64 {
	c := x.sc.CostOf(scenario.Values(x.base.Params))
	return c.WorldBytes + int64(c.GrowthPerStep*float64(x.depth()))
}

// depth is the most steps one schedule may take.
func (x *Explorer) depth() int {
	if x.cfg.Budget.Depth > 0 {
		return x.cfg.Budget.Depth
	}
	return x.base.MaxSteps
}
