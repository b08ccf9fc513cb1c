//go:build race

package ingest_test

// raceEnabled: the test binary runs under the race detector.
const raceEnabled = true
