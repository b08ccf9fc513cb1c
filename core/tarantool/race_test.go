//go:build race

package tarantool

// raceEnabled: the race detector makes runs about five times slower, so
// the seed sweeps run their -short counts.
const raceEnabled = true
