package cli

import (
	"github.com/racetrack-sim/racetrack/core/scenario"
	"github.com/racetrack-sim/racetrack/core/sim"
)

// verdicts name the exit codes in the summaries.
var verdicts = map[int]string{
	ExitHolds:    "holds",
	ExitFailure:  "failed",
	ExitDeadlock: "deadlock",
	ExitSafety:   "safety violation",
	ExitLiveness: "liveness violation",
	ExitBudget:   "budget exhausted without a verdict",
	ExitDiverges: "the log leaves the model",
}

// violationCode is the exit code of a violation of the named property of
// sc (nil for an imported log): by the property's kind.
func violationCode(sc *scenario.Scenario, property string) int {
	var props []sim.PropertyInfo
	if sc != nil {
		props = sc.Properties
	}
	for _, p := range props {
		if p.Name != property {
			continue
		}
		switch p.Kind {
		case sim.KindNoDeadlock:
			return ExitDeadlock
		case sim.KindEventually:
			return ExitLiveness
		default:
			return ExitSafety
		}
	}
	if property == sim.NoDeadlockName {
		return ExitDeadlock
	}
	return ExitSafety
}

// firstViolation is the first violation in vs of property ("" = any).
func firstViolation(vs []scenario.Violation, property string) (scenario.Violation, bool) {
	for _, v := range vs {
		if property == "" || v.Property == property {
			return v, true
		}
	}
	return scenario.Violation{}, false
}
