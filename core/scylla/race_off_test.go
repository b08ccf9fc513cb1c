//go:build !race

package scylla

const raceEnabled = false
