package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/racetrack-sim/racetrack/core/catalog"
	"github.com/racetrack-sim/racetrack/internal/cluster"
)

// racetrack worker joins a listening embedded NATS server, and racetrack
// search -nats runs on it with the local search's answer (same exit
// code, same JSON result).
func TestWorkerAndDistributedSearch(t *testing.T) {
	node, err := cluster.StartNode(catalog.New(), cluster.NodeOptions{Dir: t.TempDir(), Listen: "127.0.0.1:0", Workers: -1})
	require.NoError(t, err)
	defer node.Close()
	pwFile := filepath.Join(t.TempDir(), "worker-password")
	require.NoError(t, os.WriteFile(pwFile, []byte(node.Embedded().Auth().Worker+"\n"), 0o600))
	t.Setenv(cluster.EnvPassword, node.Embedded().Auth().Coordinator) // racetrack search is a coordinator
	ctx, stop := context.WithCancel(context.Background())
	done := make(chan int, 1)
	go func() {
		var out bytes.Buffer
		done <- (&Program{Name: "racetrack", Registry: catalog.New()}).Run(ctx, []string{"worker", "-nats", node.ClientURL(), "-workers", "2", "-nats-password-file", pwFile}, &out, &out)
	}()
	args := []string{"search", "-scenario", "dining-philosophers", "-preset", "lock-level", "-variant", "buggy", "-strategy", "random", "-seed", "2", "-runs", "300", "-json"}
	code, local, _ := racetrack(t, args...)
	dcode, dist, derr := racetrack(t, append(args, "-nats", node.ClientURL())...)
	stop()
	assert.Equal(t, ExitHolds, <-done, "the worker ends cleanly on interrupt")
	assert.Equal(t, code, dcode, "%s", derr)
	assert.Equal(t, ExitDeadlock, dcode)
	assert.JSONEq(t, local, dist)
}

// A worker without the password, or with a wrong one, is refused by the
// server: nothing runs.
func TestWorkerNeedsThePassword(t *testing.T) {
	node, err := cluster.StartNode(catalog.New(), cluster.NodeOptions{Dir: t.TempDir(), Listen: "127.0.0.1:0", Workers: -1})
	require.NoError(t, err)
	defer node.Close()
	t.Setenv(cluster.EnvPassword, "")
	code, _, errOut := racetrack(t, "worker", "-nats", node.ClientURL())
	assert.Equal(t, ExitUsage, code)
	assert.Contains(t, errOut, "no NATS password")
	t.Setenv(cluster.EnvPassword, "not-the-password-of-the-worker")
	code, _, errOut = racetrack(t, "worker", "-nats", node.ClientURL())
	assert.Equal(t, ExitFailure, code)
	assert.Contains(t, errOut, "Authorization Violation")
}

func TestWorkerNeedsNATS(t *testing.T) {
	code, _, errOut := racetrack(t, "worker")
	assert.Equal(t, ExitUsage, code)
	assert.Contains(t, errOut, "-nats")
}
