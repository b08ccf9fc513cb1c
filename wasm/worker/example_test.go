//go:build js && wasm

package worker_test

import (
	"github.com/racetrack-sim/racetrack/core/bank"
	"github.com/racetrack-sim/racetrack/core/scenario"
	"github.com/racetrack-sim/racetrack/wasm/worker"
)

// The main of a wasm engine for a model of your own (core/bank stands in
// for it here); catalog.With(yours) keeps the built-in bugs next to it.
// The server that serves this app.wasm must serve the same registry.
func ExampleServe() {
	worker.Serve(scenario.NewRegistry(bank.Scenario()))
}
