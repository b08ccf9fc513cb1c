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

// bfs explores every interleaving of spec breadth first, one step at a
// time: from each state it clones the world once per ready event and
// forces the k-th with a ScriptChooser. States are deduplicated by the
// world's canonical hash, so the first violation of property found is a
// shortest one.
func bfs(spec scenario.RunSpec, property string, maxStates int) (bfsResult, error) {
	_, _, root, err := reg.Build(spec, scenario.Options{})
	if err != nil {
		return bfsResult{}, err
	}
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
						return bfsResult{}, c.Err()
					}
					continue
				}
				if c.Violated(property) {
					return bfsResult{schedule: c.Schedule(), steps: c.Steps(), states: len(seen)}, nil
				}
				h := c.Hash()
				if seen[h] {
					continue
				}
				seen[h] = true
				if len(seen) > maxStates {
					return bfsResult{states: len(seen)}, nil
				}
				next = append(next, c)
			}
		}
		frontier = next
	}
	return bfsResult{states: len(seen), complete: true}, nil
}
