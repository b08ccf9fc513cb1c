package check

import "github.com/racetrack-sim/racetrack/core/scenario"

// What a search keeps besides its worlds.
const (
	searchBaseBytes = 1 << 20
	// stateOverhead is an exhaustive search's cost per state besides the
	// world: the frontier node and sleep set, the visited entry and the
	// map's slack.
	stateOverhead = 256
	// runStepBytes is a run's cost per step: random and pct run without
	// a trace, but keep schedules (the run's, the shrinker's copies).
	runStepBytes = 64
	// runWorlds is how many worlds a run-based search holds at once.
	runWorlds = 8
)

// BytesPerState is the memory an exhaustive search spends on each state
// it keeps: a world at the depth it was found, plus its bookkeeping.
func (x *Explorer) BytesPerState() int64 {
	c := x.sc.CostOf(scenario.Values(x.base.Params))
	return c.WorldBytes + int64(c.GrowthPerStep*float64(x.depth())) + stateOverhead
}

// EstimateBytes is the memory the search will hold at most within its
// budget, known before it starts: for bfs and dfs every state of the
// states budget kept, for random and pct a few worlds and the schedules
// of runs of the whole depth.
func (x *Explorer) EstimateBytes() int64 {
	switch x.cfg.Strategy {
	case BFS, DFS:
		return searchBaseBytes + int64(x.cfg.Budget.States)*x.BytesPerState()
	}
	c := x.sc.CostOf(scenario.Values(x.base.Params))
	world := c.WorldBytes + int64(c.GrowthPerStep*float64(x.depth()))
	return searchBaseBytes + runWorlds*world + int64(x.depth())*runStepBytes
}

// depth is the most steps one schedule may take.
func (x *Explorer) depth() int {
	if x.cfg.Budget.Depth > 0 {
		return x.cfg.Budget.Depth
	}
	return x.base.MaxSteps
}
