//go:build js && wasm

// Command wasm is the browser's bridge to the core. It exposes one object,
// globalThis.racetrack, with
//
//	call(method, argsJSON[, onProgress, callID]) -> Promise<string | Uint8Array>
//	cancel(callID)
//
// Every call returns a Promise resolved from a goroutine with JSON text (or
// the bytes of an export); a Go error rejects it with a JS Error whose
// field property names the spec field at fault. The methods live in
// package bridge, which has no syscall/js and is tested natively. This is
// the only place that touches syscall/js; it runs in a Web Worker.
package main

import (
	"encoding/json"
	"errors"
	"sync"
	"syscall/js"
	"time"

	"github.com/racetrack-sim/racetrack/core/catalog"
	"github.com/racetrack-sim/racetrack/core/scenario"
	"github.com/racetrack-sim/racetrack/wasm/bridge"
)

// The bridge's state is touched by one goroutine at a time: the page may
// fire calls while a search runs between its slices.
var (
	mu        sync.Mutex
	b         = bridge.New(catalog.New())
	cancelled = map[string]bool{}
)

func main() {
	api := js.Global().Get("Object").New()
	api.Set("call", js.FuncOf(call))
	api.Set("cancel", js.FuncOf(cancel))
	js.Global().Set("racetrack", api)
	select {}
}

func call(_ js.Value, args []js.Value) any {
	if len(args) < 2 || args[0].Type() != js.TypeString || args[1].Type() != js.TypeString {
		return reject(errors.New("racetrack.call(method, argsJSON[, onProgress, callID]): method and argsJSON must be strings"))
	}
	method, input := args[0].String(), []byte(args[1].String())
	var onProgress js.Value
	id := ""
	if len(args) > 2 && args[2].Type() == js.TypeFunction {
		onProgress = args[2]
	}
	if len(args) > 3 && args[3].Type() == js.TypeString {
		id = args[3].String()
	}
	return promise(func() (any, error) {
		if method == "search" {
			return search(input, onProgress, id)
		}
		mu.Lock()
		defer mu.Unlock()
		return b.Call(method, input)
	})
}

func search(input []byte, onProgress js.Value, id string) (any, error) {
	mu.Lock()
	locked := true
	defer func() {
		if locked {
			mu.Unlock()
		}
		delete(cancelled, id)
	}()
	return b.Search(input, bridge.Hooks{
		Progress: func(p []byte) {
			if onProgress.Type() == js.TypeFunction {
				onProgress.Invoke(string(p))
			}
		},
		// Between slices the lock is released and the goroutine sleeps, so
		// the worker's event loop delivers other calls and cancels.
		Yield: func() {
			mu.Unlock()
			locked = false
			time.Sleep(time.Millisecond)
			mu.Lock()
			locked = true
		},
		Cancelled: func() bool { return cancelled[id] },
	})
}

func cancel(_ js.Value, args []js.Value) any {
	if len(args) == 1 && args[0].Type() == js.TypeString {
		mu.Lock()
		cancelled[args[0].String()] = true
		mu.Unlock()
	}
	return nil
}

// promise runs f in a goroutine and settles a JS Promise with its result.
func promise(f func() (any, error)) js.Value {
	var executor js.Func
	executor = js.FuncOf(func(_ js.Value, pa []js.Value) any {
		resolve, rejectFn := pa[0], pa[1]
		go func() {
			v, err := f()
			if err != nil {
				rejectFn.Invoke(jsError(err))
				return
			}
			out, err := encode(v)
			if err != nil {
				rejectFn.Invoke(jsError(err))
				return
			}
			resolve.Invoke(out)
		}()
		return nil
	})
	defer executor.Release()
	return js.Global().Get("Promise").New(executor)
}

func encode(v any) (any, error) {
	if raw, ok := v.(bridge.Raw); ok {
		arr := js.Global().Get("Uint8Array").New(len(raw))
		js.CopyBytesToJS(arr, raw)
		return arr, nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return string(b), nil
}

func reject(err error) js.Value {
	return promise(func() (any, error) { return nil, err })
}

func jsError(err error) js.Value {
	e := js.Global().Get("Error").New(err.Error())
	var fe *scenario.FieldError
	if errors.As(err, &fe) {
		e.Set("field", fe.Field)
	}
	return e
}
