// Package worker is the wasm engine's entry point: the Web Worker's
// transport to the debugging session (core/session), for any registry of
// scenarios. A js/wasm main is one call,
//
//	func main() { worker.Serve(catalog.New()) }
//
// (this module's wasm/main.go); a model in another module passes its own
// registry (catalog.With(yours) to keep the built-in bugs too), builds
//
//	GOOS=js GOARCH=wasm go build -o build/app.wasm ./cmd/wasm
//	cp "$(go env GOROOT)/lib/wasm/wasm_exec.js" build/
//
// and serves that directory with its server (package api/serve, -wasm
// build): the page's Web Worker then loads an engine that knows the same
// scenarios as the server. Serve exposes one function,
//
//	racetrack.handle(requestJSON, post)
//
// which answers the session protocol's request {id, method, args} by
// calling post(messageJSON) with each message for it ({id, result},
// {id, error}, {id, progress}, {id, frame}): the same text the server's
// /api/v1/session WebSocket sends. Requests are served one at a time; a
// search or a playback hands the session over between its slices and
// frames, so calls (cancel, pause, steps) land in between. This is the
// only place that touches syscall/js. Natively the package is empty.
package worker
