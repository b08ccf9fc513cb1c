package api

import (
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestRefusedSearchLeavesNoRecord(t *testing.T) {
	ts := newTestServer(t, func(c *Config) { c.SearchWorkers, c.SearchQueue = 1, 2 })
	long := `{"scenario":"dining-philosophers","variant":"fixed","strategy":"random","budget":{"runs":1000000,"seconds":60}}`
	accepted, refused := 0, 0
	for range 12 {
		res := ts.post(t, "/api/v1/searches", long)
		switch res.Status {
		case http.StatusAccepted:
			accepted++
		case http.StatusTooManyRequests:
			refused++
			assert.NotEmpty(t, res.Header.Get("Retry-After"))
		default:
			t.Fatalf("unexpected %d: %s", res.Status, res.Body)
		}
	}
	require.Positive(t, refused)
	recs, err := ts.store.Searches()
	require.NoError(t, err)
	assert.Len(t, recs, accepted, "only accepted searches are stored")
	for _, r := range recs {
		ts.do(t, http.MethodDelete, "/api/v1/searches/"+r.ID, nil)
	}
}

func TestDuplicateKeysAreRefused(t *testing.T) {
	ts := newTestServer(t)
	res := ts.post(t, "/api/v1/runs", `{"scenario":"dining-philosophers","seed":1,"seed":2}`)
	require.Equal(t, http.StatusBadRequest, res.Status)
	p := res.problem(t)
	assert.Equal(t, "seed", p.Field)
	assert.Contains(t, p.Detail, "duplicate key")
	res = ts.post(t, "/api/v1/searches", `{"scenario":"dining-philosophers","strategy":"random","budget":{"runs":1,"runs":2}}`)
	require.Equal(t, http.StatusBadRequest, res.Status)
	assert.Equal(t, "budget.runs", res.problem(t).Field)
}

func TestSecondServerOnTheSameFileIsToldItIsLocked(t *testing.T) {
	path := filepath.Join(t.TempDir(), "locked.db")
	st, err := OpenStore(path)
	require.NoError(t, err)
	defer st.Close()
	storeLockWait = 50 * time.Millisecond
	defer func() { storeLockWait = 2 * time.Second }()
	_, err = OpenStore(path)
	require.ErrorIs(t, err, ErrStoreLocked)
	assert.Contains(t, err.Error(), "locked by another process")
	assert.NotContains(t, err.Error(), "timeout")
}

func TestStoreFaultsAreProblemsWithTheirCause(t *testing.T) {
	for errno, status := range map[syscall.Errno]int{
		syscall.ENOSPC: http.StatusInsufficientStorage, syscall.EDQUOT: http.StatusInsufficientStorage,
		syscall.EROFS: http.StatusServiceUnavailable, syscall.EIO: http.StatusServiceUnavailable,
	} {
		err := storeFault(&os.PathError{Op: "write", Path: "x.db", Err: errno})
		var p *Problem
		require.ErrorAs(t, err, &p)
		assert.Equal(t, status, p.Status)
		assert.Contains(t, p.Detail, errno.Error())
		assert.Positive(t, p.retryAfter)
	}
	assert.NotErrorAs(t, storeFault(os.ErrPermission), new(*Problem))
}

// TestFullDiskAnswers507 fills a small tmpfs under the store: runs are
// refused with 507 and the cause, never a 500. It needs root to mount.
func TestFullDiskAnswers507(t *testing.T) {
	dir := t.TempDir()
	if os.Geteuid() != 0 || exec.Command("mount", "-t", "tmpfs", "-o", "size=192k", "tmpfs", dir).Run() != nil {
		t.Skip("needs root and mount to make a small file system")
	}
	t.Cleanup(func() { _ = exec.Command("umount", "-l", dir).Run() })
	ts := startTestServer(t, filepath.Join(dir, "full.db"))
	filler, err := os.Create(filepath.Join(dir, "filler"))
	require.NoError(t, err)
	for {
		if _, err := filler.Write(make([]byte, 4096)); err != nil {
			break
		}
	}
	require.NoError(t, filler.Close())
	var last response
	for seed := 1; seed <= 400; seed++ {
		last = ts.post(t, "/api/v1/runs", `{"scenario":"dining-philosophers","maxSteps":50,"seed":`+itoa(seed)+`}`)
		if last.Status != http.StatusCreated {
			break
		}
	}
	require.Equal(t, http.StatusInsufficientStorage, last.Status, "%s", last.Body)
	p := last.problem(t)
	assert.True(t, strings.Contains(p.Detail, "no space left on device"), p.Detail)
	assert.NotEmpty(t, last.Header.Get("Retry-After"))
}

// TestCrashedSearchIsResumedAtMostOnce plays the records a crashed
// process leaves behind: a running search is resumed once (and the count
// is stored before it runs); one that was already resumed is failed with
// the reason; a graceful stop clears the count.
func TestCrashedSearchIsResumedAtMostOnce(t *testing.T) {
	path := filepath.Join(t.TempDir(), "crash.db")
	st, err := OpenStore(path)
	require.NoError(t, err)
	long, err := DecodeSearchRequest([]byte(`{"scenario":"dining-philosophers","variant":"fixed","strategy":"random","budget":{"runs":1000000,"seconds":60}}`))
	require.NoError(t, err)
	fresh := SearchStatus{ID: "s0000000000000001", State: StateRunning, Request: long, Created: time.Now().UTC()}
	again := SearchStatus{ID: "s0000000000000002", State: StateRunning, Request: long, Created: time.Now().UTC(), Resumed: 1}
	require.NoError(t, st.PutSearch(&fresh))
	require.NoError(t, st.PutSearch(&again))
	require.NoError(t, st.Close())

	ts := startTestServer(t, path, func(c *Config) { c.SearchWorkers = 1 })
	rec, err := ts.store.Search(fresh.ID)
	require.NoError(t, err)
	assert.Equal(t, 1, rec.Resumed, "the resume is counted in the store before the search runs")
	assert.False(t, rec.final())
	rec, err = ts.store.Search(again.ID)
	require.NoError(t, err)
	assert.Equal(t, StateFailed, rec.State)
	assert.Contains(t, rec.Error, "not resumed again")

	ts.stop()
	st, err = OpenStore(path)
	require.NoError(t, err)
	defer st.Close()
	rec, err = st.Search(fresh.ID)
	require.NoError(t, err)
	assert.False(t, rec.final(), "a graceful stop leaves it to resume")
	assert.Zero(t, rec.Resumed, "a graceful stop is not a crash")
}
