package cli

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/racetrack-sim/racetrack/core/check"
)

// TestSearchProfile: search -profile prints the broker's profile, the
// follower's log first among the fields and b1 first among the
// processes, as text and as JSON; a budget beyond the profile's bound,
// or a flag of a search the profile does not run, is bad input naming it.
func TestSearchProfile(t *testing.T) {
	args := []string{"search", "-scenario", "broker-hw-truncation", "-preset", "lossy", "-variant", "leader-epoch", "-param", "records=2", "-profile"}
	code, out, errOut := racetrack(t, args...)
	require.Equal(t, ExitHolds, code, errOut)
	assert.Contains(t, out, "profile bfs broker-hw-truncation/lossy/leader-epoch: 939 states (every state within the depth bound)\n")
	assert.Contains(t, out, "fields by distinct values:\n         6  b1: log\n")
	assert.Contains(t, out, "processes by distinct local states:\n        56  b1\n        36  b0\n")

	code, out, errOut = racetrack(t, append(args, "-json")...)
	require.Equal(t, ExitHolds, code, errOut)
	var p check.Profile
	require.NoError(t, json.Unmarshal([]byte(out), &p))
	assert.Equal(t, check.FieldProfile{Group: "b1", Field: "log", Distinct: 6}, p.Fields[0])

	for _, c := range []struct {
		args []string
		say  string
	}{
		{[]string{"-states", "1000000"}, "budget.states"},
		{[]string{"-strategy", "dfs"}, "takes no -strategy"},
		{[]string{"-store", t.TempDir()}, "takes no -store"},
	} {
		code, _, errOut = racetrack(t, append([]string{"search", "-scenario", "dining-philosophers", "-profile"}, c.args...)...)
		assert.Equal(t, ExitUsage, code, "%q", c.args)
		assert.Contains(t, errOut, c.say, "%q", c.args)
	}
}
