//go:build !race

package tarantool

const raceEnabled = false
