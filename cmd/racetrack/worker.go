package main

import (
	"context"

	"github.com/racetrack-sim/racetrack/core/catalog"
	"github.com/racetrack-sim/racetrack/internal/cluster"
)

func workerCmd(ctx context.Context, e *env, args []string) int {
	fs := newFlags("worker", "-nats URL [-workers N]",
		"Joins the NATS cluster at URL (a server started with -nats-listen, or the cluster it uses\n"+
			"with -nats) and runs its distributed searches until interrupted.")
	url := fs.String("nats", "", "the NATS cluster's URL(s), comma-separated (required)")
	workers := fs.Int("workers", 0, "the workers to run, each on its own connection (0: one per CPU)")
	if code := parse(fs, e, args); code >= 0 {
		return code
	}
	if *url == "" {
		fs.Usage()
		return exitUsage
	}
	if *workers < 0 {
		e.stderr.Write([]byte("racetrack worker: -workers cannot be negative\n"))
		return exitUsage
	}
	if err := cluster.RunWorkers(ctx, catalog.New(), *url, *workers, cluster.Options{}); err != nil {
		return fail(e, "worker", exitFailure, err)
	}
	return exitHolds
}
