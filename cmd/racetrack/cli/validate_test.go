package cli

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/racetrack-sim/racetrack/core/conform"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// slipTrace is a poller of the fixed locking that wakes runSend after
// releasing mu (examples/messager's Slip): line 5 leaves the model.
const slipTrace = `{"node":"tablet","thread":"client1","kind":"lock","obj":"mu"}
{"node":"tablet","thread":"client1","kind":"local","label":"startVStream"}
{"node":"tablet","thread":"client1","kind":"state","label":"Subscribe: receivers = append(..)","fields":{"receivers":1}}
{"node":"tablet","thread":"client1","kind":"unlock","obj":"mu"}
{"node":"tablet","thread":"poller","kind":"lock","obj":"cacheManagementMu"}
{"node":"tablet","thread":"poller","kind":"lock","obj":"mu"}
{"node":"tablet","thread":"poller","kind":"local","label":"readPending"}
{"node":"tablet","thread":"poller","kind":"state","label":"runPoller: rows added to the cache","fields":{"cache":1}}
{"node":"tablet","thread":"poller","kind":"unlock","obj":"mu"}
{"node":"tablet","thread":"poller","kind":"send","msg":"w1","to":"tablet","label":"cond.Broadcast: wake runSend"}
{"node":"tablet","thread":"poller","kind":"unlock","obj":"cacheManagementMu"}
`

var messagerModel = []string{"-scenario", "vitess-messager", "-preset", "lock-level", "-variant", "fixed", "-param", "clients=1", "-param", "iterations=2"}

// TestValidateConformsAndLeaves: the fixed poller's trace conforms
// (exit 0); the slip's leaves the model at the wake-up outside mu (exit
// 15), naming the event, its line, why, and what the model could do.
func TestValidateConformsAndLeaves(t *testing.T) {
	fixed := strings.Replace(slipTrace, `{"node":"tablet","thread":"poller","kind":"unlock","obj":"mu"}
{"node":"tablet","thread":"poller","kind":"send","msg":"w1","to":"tablet","label":"cond.Broadcast: wake runSend"}`,
		`{"node":"tablet","thread":"poller","kind":"send","msg":"w1","to":"tablet","label":"cond.Broadcast: wake runSend"}
{"node":"tablet","thread":"poller","kind":"unlock","obj":"mu"}`, 1)
	require.NotEqual(t, fixed, slipTrace)
	code, stdout, stderr := racetrack(t, append([]string{"validate", "-trace", writeTemp(t, "fixed.ndjson", fixed)}, messagerModel...)...)
	require.Equal(t, ExitHolds, code, stderr)
	assert.Contains(t, stdout, "(mapping messager): conforms (11 events matched")

	code, stdout, stderr = racetrack(t, append([]string{"validate", "-trace", writeTemp(t, "slip.ndjson", slipTrace)}, messagerModel...)...)
	require.Equal(t, ExitDiverges, code, stderr)
	assert.Contains(t, stdout, "LEAVES THE MODEL at event 9 (line 10;")
	assert.Contains(t, stdout, `poller: local "cond.Broadcast: wake runSend"`)
	assert.Contains(t, stdout, "runPoller wakes runSend while it holds mu")
	assert.Contains(t, stdout, "runPoller: unlock cacheManagementMu")

	code, stdout, stderr = racetrack(t, append([]string{"validate", "-json", "-trace", writeTemp(t, "slip.ndjson", slipTrace)}, messagerModel...)...)
	require.Equal(t, ExitDiverges, code, stderr)
	var v conform.Verdict
	require.NoError(t, json.Unmarshal([]byte(stdout), &v))
	assert.Equal(t, 9, v.At.Event)
	assert.Equal(t, int32(-1), v.Reached[9])
}

// TestValidateBadInput: a missing trace, a lane the mapping does not
// know, an unknown mapping and a timed preset are bad input (exit 2),
// each named.
func TestValidateBadInput(t *testing.T) {
	code, _, stderr := racetrack(t, append([]string{"validate"}, messagerModel...)...)
	assert.Equal(t, ExitUsage, code)
	assert.Contains(t, stderr, "-trace LOG is required")

	stray := writeTemp(t, "stray.ndjson", `{"node":"tablet","thread":"janitor","kind":"lock","obj":"mu"}`+"\n")
	code, _, stderr = racetrack(t, append([]string{"validate", "-trace", stray}, messagerModel...)...)
	assert.Equal(t, ExitUsage, code)
	assert.Contains(t, stderr, `ndjson line 1, field "lane": the log's lane "janitor"`)

	ok := writeTemp(t, "ok.ndjson", slipTrace)
	code, _, stderr = racetrack(t, append([]string{"validate", "-trace", ok, "-mapping", "etcd"}, messagerModel...)...)
	assert.Equal(t, ExitUsage, code)
	assert.Contains(t, stderr, `mapping`)
	assert.Contains(t, stderr, `"etcd"`)

	code, _, stderr = racetrack(t, "validate", "-trace", ok, "-scenario", "vitess-messager", "-preset", "churn", "-variant", "fixed")
	assert.Equal(t, ExitUsage, code)
	assert.Contains(t, stderr, "-seed")
}

// TestValidateTimedExportWithSeed: a timed preset's exported run
// validates with its seed (its durations drawn as the run drew them).
func TestValidateTimedExportWithSeed(t *testing.T) {
	out := filepath.Join(t.TempDir(), "run.json")
	spec := []string{"-scenario", "vitess-messager", "-preset", "unsubscribe-vs-poller", "-variant", "buggy", "-seed", "2"}
	code, _, stderr := racetrack(t, append([]string{"export", "-format", "json", "-max-steps", "300", "-o", out}, spec...)...)
	require.Contains(t, []int{ExitHolds, ExitDeadlock}, code, stderr)
	code, stdout, stderr := racetrack(t, append([]string{"validate", "-trace", out, "-mapping", "identity"}, spec...)...)
	require.Equal(t, ExitHolds, code, stderr)
	assert.Contains(t, stdout, "(mapping identity): conforms")
}

// TestValidateOwnExport: a run exported as JSON validates against its
// own model under the identity mapping.
func TestValidateOwnExport(t *testing.T) {
	out := filepath.Join(t.TempDir(), "run.json")
	spec := []string{"-scenario", "vitess-messager", "-preset", "lock-level", "-variant", "buggy", "-seed", "3"}
	code, _, stderr := racetrack(t, append([]string{"export", "-format", "json", "-o", out}, spec...)...)
	require.Contains(t, []int{ExitHolds, ExitDeadlock}, code, stderr)
	code, stdout, stderr := racetrack(t, append([]string{"validate", "-trace", out, "-mapping", "identity"}, spec[:6]...)...)
	require.Equal(t, ExitHolds, code, stderr)
	assert.Contains(t, stdout, "(mapping identity): conforms")
}

// TestListNamesTheMappings: list shows the log mappings a model declares.
func TestListNamesTheMappings(t *testing.T) {
	code, out, stderr := racetrack(t, "list")
	require.Equal(t, ExitHolds, code, stderr)
	assert.Contains(t, out, "  mapping  messager                   traces of examples/messager")
}
