// Command racetrack is Racetrack on the command line: package cli on the
// built-in catalog, with the page's in-tab engine and `new`, which writes
// a module of your own (whose cmd/NAME is the same command line on its
// model).
//
//	racetrack run -scenario vitess-messager -preset unsubscribe-vs-poller -seed 1
//	racetrack verify -scenario vitess-messager -preset lock-level -variant fixed -exhaustive bfs
//	racetrack new model lease -module example.com/lease
package main

import (
	"github.com/racetrack-sim/racetrack/cmd/racetrack/cli"
	"github.com/racetrack-sim/racetrack/core/catalog"
	"github.com/racetrack-sim/racetrack/static"
)

// racetrackProgram is the program; new writes modules.
var racetrackProgram = &cli.Program{Name: "racetrack", Registry: catalog.New(), Wasm: static.Wasm(),
	Commands: []cli.Command{{Name: "new", Summary: "new model NAME: write a Go module holding a model of your own", Run: newCmd}}}

func main() { racetrackProgram.Main() }
