package api

import (
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/racetrack-sim/racetrack/core/export"
	"github.com/racetrack-sim/racetrack/core/session"
	"github.com/racetrack-sim/racetrack/core/timeline"
)

// TestExportStreamsTheCoresBytes: the streamed body is exactly what the
// core's writer produces in memory, for a run larger than the buffer.
func TestExportStreamsTheCoresBytes(t *testing.T) {
	ts := newTestServer(t)
	run := ts.createRun(t, `{"scenario":"dining-philosophers","params":{"philosophers":12,"meals":40},"seed":2}`)
	rec, ok := ts.timelines.peek(run.ID)
	require.True(t, ok)
	defer rec.drop()
	want, err := export.JSON(rec.tl)
	require.NoError(t, err)
	require.Greater(t, len(want), 4*exportBuffer, "the export spans several buffers")
	res := ts.get(t, "/api/v1/runs/"+run.ID+"/export?format=json")
	require.Equal(t, http.StatusOK, res.Status)
	assert.Empty(t, res.Header.Get("Content-Length"), "streamed, not built whole")
	assert.Equal(t, want, res.Body)
}

// failAfter is an export writer that fails once it has written n bytes.
func failAfter(n int) export.Writer {
	return func(w io.Writer, tl *timeline.Timeline) error {
		chunk := strings.Repeat("x", 1000)
		for written := 0; written < n; written += len(chunk) {
			if _, err := io.WriteString(w, chunk); err != nil {
				return err
			}
		}
		return errors.New("the writer broke")
	}
}

func TestExportThatCannotCompleteIsNeverATruncated200(t *testing.T) {
	ts := newTestServer(t)
	run := ts.createRun(t, philoSpec)
	orig := exportWriter
	exportWriter = func(format string, parent *timeline.Branch) (session.Format, export.Writer, error) {
		f := session.Format{ID: format, Media: "application/json", Suffix: ".json"}
		switch format {
		case "broken-late":
			return f, failAfter(10 * exportBuffer), nil
		case "broken-early":
			return f, failAfter(1000), nil
		}
		return orig(format, parent)
	}
	defer func() { exportWriter = orig }()

	res, err := http.Get(ts.URL + "/api/v1/runs/" + run.ID + "/export?format=broken-late")
	require.NoError(t, err)
	_, err = io.ReadAll(res.Body)
	res.Body.Close()
	require.Error(t, err, "the client sees the body fail, not a complete 200")
	assert.ErrorIs(t, err, io.ErrUnexpectedEOF)
	assert.Equal(t, 1.0, metric(t, ts, "racetrack_exports_aborted_total"))

	// Failing before anything was sent is an ordinary error response.
	r := ts.get(t, "/api/v1/runs/"+run.ID+"/export?format=broken-early")
	assert.Equal(t, http.StatusInternalServerError, r.Status)
	assert.Equal(t, "application/problem+json", r.Header.Get("Content-Type"))
	assert.Empty(t, r.Header.Get("Content-Disposition"))
}

func TestExportsHaveAConcurrencyLimit(t *testing.T) {
	ts := newTestServer(t, func(c *Config) { c.ExportSlots = 1 })
	run := ts.createRun(t, philoSpec)
	ts.exportSlots <- struct{}{} // an export in progress
	res := ts.get(t, "/api/v1/runs/"+run.ID+"/export?format=json")
	require.Equal(t, http.StatusTooManyRequests, res.Status)
	assert.NotEmpty(t, res.Header.Get("Retry-After"))
	<-ts.exportSlots
	res = ts.get(t, "/api/v1/runs/"+run.ID+"/export?format=json")
	assert.Equal(t, http.StatusOK, res.Status)
	settled(t, ts)
	assert.Zero(t, ts.mem.inUse()-ts.timelinesBytes(), "the export's memory is given back")
}

func (ts *testServer) timelinesBytes() int64 {
	ts.timelines.mu.Lock()
	defer ts.timelines.mu.Unlock()
	return ts.timelines.bytes
}
