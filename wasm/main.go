//go:build js && wasm

// Command wasm is the browser's bridge to the core: it exposes the
// scenario catalog and runs to JavaScript as JSON text. It is the only
// place that touches syscall/js.
package main

import (
	"encoding/json"
	"syscall/js"

	"github.com/racetrack-sim/racetrack/core/catalog"
	"github.com/racetrack-sim/racetrack/core/scenario"
)

func main() {
	reg := catalog.New()
	api := js.Global().Get("Object").New()
	api.Set("scenarios", js.FuncOf(func(js.Value, []js.Value) any {
		b, err := json.Marshal(reg.List())
		if err != nil {
			return jsError(err)
		}
		return string(b)
	}))
	api.Set("run", js.FuncOf(func(_ js.Value, args []js.Value) any {
		if len(args) != 1 || args[0].Type() != js.TypeString {
			return jsError(errArg("run takes one argument: the RunSpec as a JSON string"))
		}
		spec, err := scenario.DecodeRunSpec([]byte(args[0].String()))
		if err != nil {
			return jsError(err)
		}
		run, err := reg.Execute(spec, scenario.Options{})
		if err != nil {
			return jsError(err)
		}
		b, err := json.Marshal(run.Summary())
		if err != nil {
			return jsError(err)
		}
		return string(b)
	}))
	js.Global().Set("racetrack", api)
	select {}
}

type errArg string

func (e errArg) Error() string { return string(e) }

func jsError(err error) js.Value {
	return js.Global().Get("Error").New(err.Error())
}
