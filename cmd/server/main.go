// Command server serves Racetrack: the v1 API, its WebSocket streams and
// the browser app. It is `racetrack serve` under another name.
//
//	server -addr 127.0.0.1:8080 -data ./racetrack.db -memory-budget 4GiB
//
// -memory-budget (default: a quarter of the machine's or the cgroup's
// memory) bounds the whole process: work is refused up front when it
// does not fit, and the garbage collector is told the limit. The server
// answers to IP literals, localhost and the -addr host; -allowed-hosts
// adds DNS names (any other Host is refused: DNS rebinding), and
// -allow-origin trusts other origins for WebSockets and browser POSTs.
//
// It serves the page and the wasm build embedded in its binary (packages
// web and static: build the wasm first, as `make run` does; without it the
// page runs on the server engine only), or with -static DIR the files of
// DIR. SIGINT or SIGTERM shut it down gracefully: requests in flight
// finish, streams close with a going-away status, running searches are
// kept in the store and resume on the next start. The whole of it is
// package api/serve with the built-in catalog.
package main

import (
	"github.com/racetrack-sim/racetrack/api/serve"
	"github.com/racetrack-sim/racetrack/core/catalog"
	"github.com/racetrack-sim/racetrack/static"
)

func main() {
	serve.Main("server", serve.Config{Registry: catalog.New(), Wasm: static.Wasm()})
}
