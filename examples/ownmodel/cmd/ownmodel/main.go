// Command ownmodel is Racetrack's command line on this module's model
// (next to the built-in bugs): run, search, verify, export, list, serve
// and worker, with racetrack's flags, output and exit codes. A CI step
// verifies the model with it:
//
//	go run ./cmd/ownmodel verify -scenario ownmodel -variant fencing -exhaustive bfs
package main

import (
	"github.com/racetrack-sim/racetrack/cmd/racetrack/cli"
	"github.com/racetrack-sim/racetrack/core/catalog"

	"github.com/racetrack-sim/racetrack/examples/ownmodel"
)

func main() {
	cli.Main("ownmodel", catalog.With(ownmodel.Scenario()))
}
