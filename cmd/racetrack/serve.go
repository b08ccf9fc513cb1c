package main

import (
	"context"
	"errors"
	"flag"

	"github.com/racetrack-sim/racetrack/cmd/internal/serve"
)

func serveCmd(ctx context.Context, e *env, args []string) int {
	err := serve.Run(ctx, "racetrack serve", args, e.stderr, nil)
	var ue *serve.UsageError
	switch {
	case err == nil, errors.Is(err, flag.ErrHelp):
		return exitHolds
	case errors.As(err, &ue):
		return fail(e, "serve", exitUsage, err)
	}
	return fail(e, "serve", exitFailure, err)
}
