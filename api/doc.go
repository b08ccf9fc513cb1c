// Package api is the HTTP face of Racetrack: the v1 REST routes, the
// session WebSocket (core/session spoken over one socket: the page's
// server engine), the search stream and job pool, and the embedded store
// that keeps run specs and search results across restarts.
//
// It only carries what core computes: every view of a run is a function
// of core/session over the run's timeline, every search request is
// decoded and planned by core/session, every search is core/check's.
// What it adds is transport: bounds (body and message size, run budgets,
// search budgets and queue, one memory budget that every piece of work
// reserves from core's estimate before it starts, requests in flight and
// send queues per socket), guards against cross-site requests and DNS
// rebinding, errors as RFC 9457 problem details (REST) or the session's
// {code, field, message} (socket) that name the field, persistence,
// metrics and shutdown. It never lets internal error text reach a client
// and never turns a client's mistake into a 5xx.
package api
