//go:build race

package scylla

// raceEnabled: the race detector slows runs about tenfold, and core/ runs
// no goroutines for it to watch, so seed sweeps use the short count.
const raceEnabled = true
