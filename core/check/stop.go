package check

import (
	"fmt"
	"strconv"
	"time"
)

// Reasons a search stopped (Stop.Reason).
const (
	// StopFound: it found what it searched for (a violation, or the
	// step that reached a Sometimes property).
	StopFound = "found"
	// StopCovered: it covered every schedule within its bounds.
	StopCovered = "covered"
	// StopDepth: it covered every schedule up to its depth (or horizon)
	// bound, which cut some.
	StopDepth = "depth"
	// StopStates: bfs or dfs stored its states budget.
	StopStates = "states"
	// StopRuns: random or pct ran its runs budget.
	StopRuns = "runs"
	// StopSeconds: the transport's clock ran out (the budget's seconds,
	// a command's -timeout).
	StopSeconds = "seconds"
	// StopCancel: it was cancelled.
	StopCancel = "cancel"
	// StopError: an error ended it (Result.Error says which).
	StopError = "error"
)

// Stop says why a search ended and, when a limit ended it, which limit,
// its value and the field that raises it, so that "no violation within
// budget" always comes with the budget that was reached.
type Stop struct {
	Reason string `json:"reason"`
	// Limit is the value reached (states, runs, steps, seconds), 0 when
	// no limit ended the search.
	Limit float64 `json:"limit,omitempty"`
	// Raise names the request field that raises the limit
	// (budget.states), empty when none.
	Raise string `json:"raise,omitempty"`
	// Message says it in one line for a person: "stopped at 2,000,000
	// states: raise budget.states".
	Message string `json:"message"`
}

// stop is why the search ended; the zero Stop while it runs.
func (x *Explorer) stop() Stop {
	switch {
	case !x.prog.Done:
		return Stop{}
	case x.found != nil:
		return Stop{Reason: StopFound, Message: "stopped at the first counterexample"}
	case x.err != nil:
		return Stop{Reason: StopError, Message: "stopped by an error: " + x.err.Error()}
	case x.bounded:
		s := Stop{Reason: StopDepth, Limit: float64(x.cfg.Budget.Depth), Raise: "budget.depth",
			Message: fmt.Sprintf("cut at depth %s on some schedules: raise budget.depth", Thousands(int64(x.cfg.Budget.Depth)))}
		if h := x.cfg.Budget.HorizonMs; h > 0 {
			s.Message = fmt.Sprintf("cut at depth %s or at %s ms of virtual time on some schedules: raise budget.depth or budget.horizonMs",
				Thousands(int64(x.cfg.Budget.Depth)), Thousands(h))
		}
		return s
	case x.verified:
		return Stop{Reason: StopCovered, Message: "covered every schedule within its bounds"}
	case x.cfg.Strategy == BFS || x.cfg.Strategy == DFS:
		return LimitStop(StopStates, float64(x.cfg.Budget.States))
	}
	return LimitStop(StopRuns, float64(x.cfg.Budget.Runs))
}

// FinalStop is the Stop of a finished search's result that carries none
// (one a cluster assembled from its workers' results): what its found,
// error and verdict say, else the budget of its strategy.
func FinalStop(r Result) Stop {
	switch {
	case r.Stop.Reason != "":
		return r.Stop
	case r.Found:
		return Stop{Reason: StopFound, Message: "stopped at the first counterexample"}
	case r.Error != "":
		return Stop{Reason: StopError, Message: "stopped by an error: " + r.Error}
	case r.Verdict == VerdictBounded:
		return Stop{Reason: StopDepth, Limit: float64(r.Bounds.Depth), Raise: "budget.depth",
			Message: fmt.Sprintf("cut at depth %s on some schedules: raise budget.depth", Thousands(int64(r.Bounds.Depth)))}
	case r.Exhaustive || r.Verdict == VerdictSampled || r.Verdict == VerdictUnreachable:
		return Stop{Reason: StopCovered, Message: "covered every schedule within its bounds"}
	case r.Strategy == BFS || r.Strategy == DFS:
		return LimitStop(StopStates, float64(r.Bounds.States))
	}
	return LimitStop(StopRuns, float64(r.Bounds.Runs))
}

// LimitStop is the Stop of a search that reached limit of reason
// (StopStates, StopRuns, StopSeconds), or was cancelled (limit unused).
func LimitStop(reason string, limit float64) Stop {
	switch reason {
	case StopStates:
		return Stop{Reason: reason, Limit: limit, Raise: "budget.states",
			Message: fmt.Sprintf("stopped at %s states: raise budget.states", Thousands(int64(limit)))}
	case StopRuns:
		return Stop{Reason: reason, Limit: limit, Raise: "budget.runs",
			Message: fmt.Sprintf("stopped after %s runs: raise budget.runs", Thousands(int64(limit)))}
	case StopSeconds:
		return Stop{Reason: reason, Limit: limit, Raise: "budget.seconds",
			Message: fmt.Sprintf("stopped at %v: raise budget.seconds", time.Duration(limit*float64(time.Second)).Round(time.Millisecond))}
	}
	return Stop{Reason: StopCancel, Message: "cancelled before the search ended"}
}

// Thousands writes n with a comma between groups of three digits.
func Thousands(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := n < 0
	if neg {
		s = s[1:]
	}
	out := make([]byte, 0, len(s)+len(s)/3+1)
	if neg {
		out = append(out, '-')
	}
	for i := range len(s) {
		if i > 0 && (len(s)-i)%3 == 0 {
			out = append(out, ',')
		}
		out = append(out, s[i])
	}
	return string(out)
}
