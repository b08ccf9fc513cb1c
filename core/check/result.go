package check

import "github.com/racetrack-sim/racetrack/core/scenario"

// Verdicts of a search.
const (
	VerdictViolation = "violation found"
	VerdictNone      = "no violation within budget"
	VerdictVerified  = "verified: no schedule violates it"
	// VerdictSampled ends a bfs or dfs that covered every schedule of
	// the sampled values (Config.ValueSamples) within its bounds and
	// found no violation.
	VerdictSampled = "no violation in the schedules of the sampled values (not a proof)"
	// VerdictBounded ends a bfs or dfs that covered every schedule up to
	// its depth or horizon bound, which cut some, and found no violation.
	VerdictBounded = "no violation up to the depth or horizon bound (not a proof)"
	// The verdicts of a search for a Sometimes property.
	VerdictReached     = "reached"
	VerdictNotReached  = "not reached within budget"
	VerdictUnreachable = "unreachable: no schedule reaches it"
)

// Progress is where a search stands after a slice of work.
type Progress struct {
	// States is the number of distinct states stored (bfs, dfs).
	States int `json:"states"`
	// Transitions is the number of steps executed to compute successors
	// (bfs, dfs).
	Transitions int `json:"transitions"`
	// Runs is the number of complete runs (random, pct) or replays spent
	// shrinking.
	Runs int `json:"runs"`
	// Depth is the deepest schedule reached so far (steps).
	Depth int `json:"depth"`
	// Frontier is the number of states waiting to be expanded.
	Frontier int  `json:"frontier"`
	Done     bool `json:"done"`
	Found    bool `json:"found"`
	// BestLength is the schedule length of the best counterexample so far
	// (0 while none).
	BestLength int `json:"bestLength"`
	// Shrinking is true while a found counterexample is being shrunk.
	Shrinking bool `json:"shrinking"`
	// Rerun is true once a dfs split among workers has started over on
	// one goroutine (a worker met a violation, a bound or an error, or
	// the states budget ran out), for the answer one worker gives: the
	// counts above are then the rerun's, from zero.
	Rerun bool `json:"rerun,omitempty"`
}

// Bounds state what a search was allowed to do.
type Bounds struct {
	States   int `json:"states,omitempty"`
	Runs     int `json:"runs,omitempty"`
	Depth    int `json:"depth"`
	PCTDepth int `json:"pctDepth,omitempty"`
}

// Result is the outcome of a search: what was searched, the verdict, the
// counts and the counterexample.
type Result struct {
	Strategy string `json:"strategy"`
	Bounds   Bounds `json:"bounds"`
	// Reductions are those applied (a reduction that does not preserve
	// the searched property is left off).
	Reductions Reductions `json:"reductions"`
	Verdict    string     `json:"verdict"`
	Found      bool       `json:"found"`
	// Property is the property searched for ("" = any) or, when Found,
	// the property violated.
	Property string `json:"property"`
	// Violation is the one-line explanation of the violation.
	Violation   string `json:"violation,omitempty"`
	States      int    `json:"states"`
	Transitions int    `json:"transitions"`
	Runs        int    `json:"runs"`
	// Depth is the deepest schedule explored. Several dfs workers may
	// reach a state first at different depths, so a parallel dfs's Depth
	// can differ from run to run; its states, transitions and verdict
	// do not.
	Depth int `json:"depth"`
	// Exhaustive is true when every schedule within the bounds was
	// covered (bfs and dfs that ran to completion).
	Exhaustive bool `json:"exhaustive"`
	// Sampled is true when some drawn value was tried at sampled options
	// only (Config.ValueSamples): then the search is not exhaustive.
	Sampled bool `json:"sampled,omitempty"`
	// Storage is how bfs and dfs stored states (fingerprint or exact);
	// OmissionProbability bounds the probability that a fingerprint
	// collision left a state unexplored (see StorageFingerprint).
	Storage             string  `json:"storage,omitempty"`
	OmissionProbability float64 `json:"omissionProbability,omitempty"`
	// Counterexample replays the violation (reg.Execute).
	Counterexample *scenario.RunSpec `json:"counterexample,omitempty"`
	// Step is the step of the violation in the counterexample.
	Step int `json:"step,omitempty"`
	// Length is the counterexample's schedule length (choices).
	Length int `json:"length,omitempty"`
	// Shrunk says the counterexample was shrunk from OriginalLength.
	Shrunk         bool `json:"shrunk"`
	OriginalLength int  `json:"originalLength,omitempty"`
	// Error says why a search stopped early, if it did.
	Error string `json:"error,omitempty"`
	// Stop says why the search ended and the limit it reached (the zero
	// Stop while it runs; a transport that stops it sets seconds or
	// cancel).
	Stop Stop `json:"stop"`
}
