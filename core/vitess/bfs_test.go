package vitess_test

import (
	"github.com/racetrack-sim/racetrack/core/scenario"
	"github.com/racetrack-sim/racetrack/core/sim"
)

// bfsResult is what a breadth-first search of an untimed preset found.
type bfsResult struct {
	schedule []int // choices of the shortest violating run (nil if none)
	steps    int   // its length in steps
	states   int   // distinct states stored
	complete bool  // the whole state space was explored
}

// bfs explores every interleaving of spec breadth first (see explore);
// the first violation of property found is a shortest one.
func bfs(spec scenario.RunSpec, property string, maxStates int) (bfsResult, error) {
	_, _, root, err := reg.Build(spec, scenario.Options{})
	if err != nil {
		return bfsResult{}, err
	}
	var r bfsResult
	states, complete, err := explore(root, maxStates, func(c *sim.World) (expand, stop bool) {
		if c.Violated(property) {
			r.schedule, r.steps = c.Schedule(), c.Steps()
			return false, true
		}
		return true, false
	})
	r.states, r.complete = states, complete && r.schedule == nil
	return r, err
}

// explore walks every interleaving from root breadth first, one step at a
// time: from each state it clones the world once per ready event and
// forces the k-th with a ScriptChooser. States are deduplicated by the
// world's canonical hash; visit sees each new state once and says whether
// to explore past it, or to stop the walk. It returns the number of
// states stored and whether the whole space was explored.
func explore(root *sim.World, maxStates int, visit func(c *sim.World) (expand, stop bool)) (int, bool, error) {
	seen := map[uint64]bool{root.Hash(): true}
	frontier := []*sim.World{root}
	for len(frontier) > 0 {
		var next []*sim.World
		for _, w := range frontier {
			for k := range w.Ready() {
				c := w.Clone()
				c.SetChooser(&sim.ScriptChooser{Schedule: []int{k}})
				if !c.Step() {
					if c.Err() != nil {
						return len(seen), false, c.Err()
					}
					continue
				}
				h := c.Hash()
				if seen[h] {
					continue
				}
				seen[h] = true
				expand, stop := visit(c)
				if stop {
					return len(seen), false, nil
				}
				if len(seen) > maxStates {
					return len(seen), false, nil
				}
				if expand {
					next = append(next, c)
				}
			}
		}
		frontier = next
	}
	return len(seen), true, nil
}
