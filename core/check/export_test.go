package check

// SetSignaturePruning turns the signature pruning of symmetric state
// hashing on or off and returns a function that restores it.
func SetSignaturePruning(on bool) (restore func()) {
	old := pruneSignatures
	pruneSignatures = on
	return func() { pruneSignatures = old }
}

// SetInPlaceSteps turns on or off bfs's and dfs's stepping of an expanded state's
// world into its last successor, and returns a function that restores it.
func SetInPlaceSteps(on bool) (restore func()) {
	old := inPlaceSteps
	inPlaceSteps = on
	return func() { inPlaceSteps = old }
}

// Rebuilds is the number of states x's bfs or dfs rebuilt because their world
// was stepped into a successor before the expansion was done.
func Rebuilds(x *Explorer) int { return x.rebuilds }

// RunDFSTask runs task i of x's parallel dfs phase and returns how many
// states it expanded.
func RunDFSTask(x *Explorer, i int) int { return x.eng.(*dfsEngine).runTask(i) }

// DFSShortQuota is a parallel dfs's quota a worker in its first phase.
const DFSShortQuota = dfsShortQuota

// MovedProcs are the processes some symmetry of x's bfs or dfs renames
// (the ones symmetric hashing computes and compares signatures of).
func MovedProcs(x *Explorer) []int { return x.graph().moved }
