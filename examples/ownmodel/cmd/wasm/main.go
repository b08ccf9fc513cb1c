//go:build js && wasm

// Command wasm is the page's in-tab engine with this module's model next
// to Racetrack's built-in bugs: build it to app.wasm and serve it with
// the server's -wasm flag.
package main

import (
	"github.com/racetrack-sim/racetrack/core/catalog"
	"github.com/racetrack-sim/racetrack/wasm/worker"

	"github.com/racetrack-sim/racetrack/examples/ownmodel"
)

func main() { worker.Serve(catalog.With(ownmodel.Scenario())) }
