package main

import (
	"context"
	"errors"
	"flag"

	"github.com/racetrack-sim/racetrack/api/serve"
	"github.com/racetrack-sim/racetrack/core/catalog"
	"github.com/racetrack-sim/racetrack/static"
)

func serveCmd(ctx context.Context, e *env, args []string) int {
	err := serve.Run(ctx, serve.Config{Registry: catalog.New(), Wasm: static.Wasm()}, "racetrack serve", args, e.stderr, nil)
	var ue *serve.UsageError
	switch {
	case err == nil, errors.Is(err, flag.ErrHelp):
		return exitHolds
	case errors.As(err, &ue):
		return fail(e, "serve", exitUsage, err)
	}
	return fail(e, "serve", exitFailure, err)
}
