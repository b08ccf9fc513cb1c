//go:build race

package api

// raceEnabled is set under the race detector, which makes the search
// part of the parity test about ten times slower.
const raceEnabled = true
