package tarantool

import (
	"testing"

	"github.com/racetrack-sim/racetrack/core/scenario"
)

// The tags bound every instance id and count by MaxInstances (they
// cannot name the constant): a change to one must change the other.
func TestParamsBoundInstancesByMaxInstances(t *testing.T) {
	params, err := scenario.ParamsOf[Params]()
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range params {
		switch p.Name {
		case "instances", "quorum", "lateFollower", "lateSource", "anonymous", "oldVersion":
			if p.Max == nil || *p.Max != MaxInstances {
				t.Errorf("%s: max %v, want MaxInstances (%d)", p.Name, p.Max, MaxInstances)
			}
		}
	}
}
