// Command server serves the page with this module's model next to
// Racetrack's built-in bugs. Run it with -wasm DIR to serve the in-tab
// engine built from ./cmd/wasm (see the README).
package main

import (
	"github.com/racetrack-sim/racetrack/api/serve"
	"github.com/racetrack-sim/racetrack/core/catalog"

	"github.com/racetrack-sim/racetrack/examples/ownmodel"
)

func main() {
	serve.Main("ownmodel", serve.Config{Registry: catalog.With(ownmodel.Scenario())})
}
