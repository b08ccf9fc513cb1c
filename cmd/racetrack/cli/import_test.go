package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/racetrack-sim/racetrack/core/ingest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const deadlockLog = `{"node":"tablet","thread":"unsubscribe","kind":"lock","obj":"mu"}
{"node":"tablet","thread":"poller","kind":"lock","obj":"streamMu"}
{"node":"tablet","thread":"unsubscribe","kind":"block","obj":"streamMu"}
{"node":"tablet","thread":"poller","kind":"block","obj":"mu"}
`

func writeTemp(t *testing.T, name, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	require.NoError(t, os.WriteFile(path, []byte(content), 0o644))
	return path
}

// TestImportWritesTheJSONTimeline: a real deadlock's trace becomes the
// JSON a run's export is, which reads back with its deadlock; the exit
// status says deadlock.
func TestImportWritesTheJSONTimeline(t *testing.T) {
	in := writeTemp(t, "run.ndjson", deadlockLog)
	out := filepath.Join(t.TempDir(), "run.json")
	code, _, stderr := racetrack(t, "import", "-trace", in, "-o", out)
	require.Equal(t, ExitDeadlock, code, stderr)
	assert.Contains(t, stderr, "4 events on 2 lanes, 1 violations")
	data, err := os.ReadFile(out)
	require.NoError(t, err)
	l, err := ingest.JSON(data, ingest.Options{})
	require.NoError(t, err)
	x := l.Executions[0]
	require.Len(t, x.Violations, 1)
	assert.Equal(t, "no-deadlock", x.Violations[0].Property)
	assert.Equal(t, 3, x.Violations[0].Step)
}

// TestExportTraceMakesAShiVizLogAPerfettoTrace: a run's ShiViz export,
// given back with -trace, exports as Chrome trace JSON with one event
// per step at least.
func TestExportTraceMakesAShiVizLogAPerfettoTrace(t *testing.T) {
	dir := t.TempDir()
	shiviz := filepath.Join(dir, "run.shiviz.log")
	code, _, stderr := racetrack(t, "export", "-format", "shiviz", "-o", shiviz, "-scenario", "dining-philosophers", "-variant", "fixed", "-seed", "1")
	require.Equal(t, ExitHolds, code, stderr)
	chrome := filepath.Join(dir, "trace.json")
	code, _, stderr = racetrack(t, "export", "-format", "chrome", "-o", chrome, "-trace", shiviz)
	require.Equal(t, ExitHolds, code, stderr)
	data, err := os.ReadFile(chrome)
	require.NoError(t, err)
	var doc struct {
		TraceEvents []json.RawMessage `json:"traceEvents"`
	}
	require.NoError(t, json.Unmarshal(data, &doc))
	code, out, stderr := racetrack(t, "import", "-trace", shiviz)
	require.Equal(t, ExitHolds, code, stderr)
	var run struct {
		Steps []json.RawMessage `json:"steps"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &run))
	assert.NotEmpty(t, run.Steps)
	assert.GreaterOrEqual(t, len(doc.TraceEvents), len(run.Steps))
}

func TestImportRefuses(t *testing.T) {
	bad := writeTemp(t, "bad.ndjson", deadlockLog+`{"node":"tablet","kind":"receive","msg":"m9"}`+"\n")
	two := writeTemp(t, "two.log", "=== a ===\nx\nh {\"h\":1}\n=== b ===\ny\nh {\"h\":1}\n")
	cases := []struct {
		args []string
		say  string
	}{
		{[]string{"import"}, "-trace LOG is required"},
		{[]string{"import", "-trace", bad}, `ndjson line 5, field "msg": unknown message id "m9"`},
		{[]string{"import", "-trace", bad, "-memory", "10"}, "more than -memory 10"},
		{[]string{"import", "-trace", two, "-delimiter", `^=== (?<trace>.*) ===$`, "-execution", "3"}, "-execution 3: the log holds 2"},
		{[]string{"import", "-trace", two, "-format", "xml"}, `unknown format "xml"`},
		{[]string{"export", "-format", "json", "-trace", bad, "-scenario", "bank"}, "-scenario: -trace exports a log, not a run"},
		{[]string{"export", "-format", "json", "-parser", "x", "-scenario", "bank"}, "-parser reads a log: it needs -trace"},
	}
	for _, c := range cases {
		code, _, stderr := racetrack(t, c.args...)
		assert.Equal(t, ExitUsage, code, strings.Join(c.args, " "))
		assert.Contains(t, stderr, c.say, strings.Join(c.args, " "))
	}
	code, _, stderr := racetrack(t, "import", "-trace", two, "-delimiter", `^=== (?<trace>.*) ===$`, "-execution", "2")
	assert.Equal(t, ExitHolds, code, stderr)
	assert.Contains(t, stderr, `execution 2 ("b") of 2`)
}
