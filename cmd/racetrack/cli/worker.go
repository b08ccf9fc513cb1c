package cli

import (
	"context"
	"fmt"

	"github.com/racetrack-sim/racetrack/internal/cluster"
)

func workerCmd(ctx context.Context, e *Env, args []string) int {
	fs := e.Flags("worker", "-nats URL [-workers N]",
		"Joins the NATS cluster at URL (a server started with -nats-listen, or the cluster it uses\n"+
			"with -nats) and runs its distributed searches until interrupted.")
	url := fs.String("nats", "", "the NATS cluster's URL(s), comma-separated (required)")
	workers := fs.Int("workers", 0, "the workers to run, each on its own connection (0: one per CPU)")
	if code := e.Parse(fs, args); code >= 0 {
		return code
	}
	if *url == "" {
		fs.Usage()
		return ExitUsage
	}
	if *workers < 0 {
		fmt.Fprintf(e.Stderr, "%s worker: -workers cannot be negative\n", e.Name)
		return ExitUsage
	}
	if err := cluster.RunWorkers(ctx, e.reg, *url, *workers, cluster.Options{}); err != nil {
		return e.Fail("worker", ExitFailure, err)
	}
	return ExitHolds
}
