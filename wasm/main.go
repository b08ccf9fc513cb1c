//go:build js && wasm

// Command wasm is the page's in-tab engine for the built-in catalog:
// package wasm/worker serving catalog.New().
package main

import (
	"github.com/racetrack-sim/racetrack/core/catalog"
	"github.com/racetrack-sim/racetrack/wasm/worker"
)

func main() { worker.Serve(catalog.New()) }
