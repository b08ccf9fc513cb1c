package cli

import (
	"context"
	"errors"
	"flag"

	"github.com/racetrack-sim/racetrack/api/serve"
)

func serveCmd(ctx context.Context, e *Env, args []string) int {
	err := serve.Run(ctx, serve.Config{Registry: e.reg, Wasm: e.wasm}, e.Name+" serve", args, e.Stderr, nil)
	var ue *serve.UsageError
	switch {
	case err == nil, errors.Is(err, flag.ErrHelp):
		return ExitHolds
	case errors.As(err, &ue):
		return e.Fail("serve", ExitUsage, err)
	}
	return e.Fail("serve", ExitFailure, err)
}
