package api

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/racetrack-sim/racetrack/core/scenario"
)

// killChildEnv, when set to a store path, turns the test binary into a
// writer that stores run specs as fast as it can and prints each id once
// its transaction has committed.
const killChildEnv = "RACETRACK_KILL_CHILD_STORE"

func killChild() {
	st, err := OpenStore(os.Getenv(killChildEnv))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	for seed := uint64(1); ; seed++ {
		spec := scenario.RunSpec{Scenario: "dining-philosophers", Preset: "table", Variant: "buggy", Seed: seed,
			Params: map[string]any{"meals": float64(seed%100 + 1)}, MaxSteps: 1000, MaxTime: 1000}
		if err := st.PutRun(spec); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		fmt.Println(spec.ID())
	}
}

// TestStoreSurvivesKill9 kills a process in the middle of writing to the
// store and checks that the store opens and holds every record whose
// commit was acknowledged.
func TestStoreSurvivesKill9(t *testing.T) {
	path := filepath.Join(t.TempDir(), "kill.db")
	for round := range 3 {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), killChildEnv+"="+path)
		out, err := cmd.StdoutPipe()
		require.NoError(t, err)
		require.NoError(t, cmd.Start())
		var acked []string
		sc := bufio.NewScanner(out)
		for len(acked) < 50+round*25 && sc.Scan() {
			acked = append(acked, strings.TrimSpace(sc.Text()))
		}
		require.NoError(t, cmd.Process.Signal(syscall.SIGKILL))
		for sc.Scan() { // ids printed before the kill are committed too
			acked = append(acked, strings.TrimSpace(sc.Text()))
		}
		_ = cmd.Wait()
		require.NotEmpty(t, acked)

		st, err := OpenStore(path)
		require.NoError(t, err, "the store opens after kill -9 (round %d)", round)
		for _, id := range acked {
			_, err := st.Run(id)
			assert.NoError(t, err, "committed run %s survives", id)
		}
		require.NoError(t, st.Close())
		t.Logf("round %d: %d acknowledged records all present", round, len(acked))
	}
}

// TestRestartResolvesIDs issues a run id and a search id, stops the
// server, starts a new one on the same store and resolves both.
func TestRestartResolvesIDs(t *testing.T) {
	path := filepath.Join(t.TempDir(), "restart.db")
	ts := startTestServer(t, path)
	run := ts.createRun(t, `{"scenario":"dining-philosophers","variant":"fixed","seed":11,"params":{"meals":2}}`)
	res := ts.post(t, "/api/v1/searches", `{"scenario":"dining-philosophers","preset":"lock-level","strategy":"bfs","budget":{"seconds":20}}`)
	require.Equal(t, 202, res.Status, "%s", res.Body)
	var created struct{ ID string }
	res.json(t, &created)
	final := waitSearch(t, ts, created.ID)
	ts.stop()

	ts2 := startTestServer(t, path)
	res = ts2.get(t, "/api/v1/runs/"+run.ID)
	require.Equal(t, 200, res.Status, "%s", res.Body)
	var again scenario.Summary
	res.json(t, &again)
	assert.Equal(t, run, again, "the id resolves to the same run after a restart")

	res = ts2.get(t, "/api/v1/searches/"+created.ID)
	require.Equal(t, 200, res.Status, "%s", res.Body)
	var st SearchStatus
	res.json(t, &st)
	assert.Equal(t, final.State, st.State)
	assert.Equal(t, final.Result, st.Result)
	if st.Result != nil && st.Result.Found {
		res = ts2.get(t, "/api/v1/runs/"+st.Result.RunID)
		assert.Equal(t, 200, res.Status, "the counterexample's run resolves after a restart")
	}
}

func waitSearch(t *testing.T, ts *testServer, id string) SearchStatus {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		res := ts.get(t, "/api/v1/searches/"+id)
		require.Equal(t, 200, res.Status, "%s", res.Body)
		var st SearchStatus
		res.json(t, &st)
		if st.final() {
			return st
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("search %s did not finish", id)
	return SearchStatus{}
}
