// Package api is the HTTP face of Racetrack: the v1 REST routes, the
// WebSocket streams of runs and searches, the search job pool and the
// embedded store that keeps run specs and search results across restarts.
//
// It only carries what core computes: every run is core/scenario's
// Execute of a normalised spec, every timeline core/timeline's, every
// search core/check's. What it adds is bounds (body size, run budgets,
// search budgets and queue, one memory budget that every piece of work
// reserves from core's estimate before it starts, WebSocket send
// queues), guards against cross-site requests and DNS rebinding, errors
// as RFC 9457 problem details that name the field, persistence, metrics
// and shutdown. It never lets internal error text reach a client and
// never turns a client's mistake into a 5xx.
package api
