package check

import "fmt"

// LowerStates lowers the states budget of a bfs or dfs that has not
// expanded a state to n, in [1, its budget] and no lower than the
// initial states it stored: what a server does with the default
// budget of a search that does not fit its free memory, without checking
// the configuration again. The result's bounds and stop say n.
func (x *Explorer) LowerStates(n int) error {
	switch {
	case x.cfg.Strategy != BFS && x.cfg.Strategy != DFS:
		return fmt.Errorf("check: the states budget bounds bfs and dfs; strategy is %s", x.cfg.Strategy)
	case x.prog.Transitions > 0 || x.prog.Done:
		return fmt.Errorf("check: the states budget of a running search cannot change")
	case n < max(1, x.prog.States) || n > x.cfg.Budget.States:
		return fmt.Errorf("check: states budget %d is outside [%d, %d]", n, max(1, x.prog.States), x.cfg.Budget.States)
	}
	x.cfg.Budget.States = n
	return nil
}
