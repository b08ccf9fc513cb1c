package cli

import (
	"bytes"
	"context"
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
	ctx, stop := context.WithCancel(context.Background())
	done := make(chan int, 1)
	go func() {
		var out bytes.Buffer
		done <- (&Program{Name: "racetrack", Registry: catalog.New()}).Run(ctx, []string{"worker", "-nats", node.ClientURL(), "-workers", "2"}, &out, &out)
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

func TestWorkerNeedsNATS(t *testing.T) {
	code, _, errOut := racetrack(t, "worker")
	assert.Equal(t, ExitUsage, code)
	assert.Contains(t, errOut, "-nats")
}
