//go:build race

package check

// raceEnabled: the race detector is on (see stateStore.warm).
const raceEnabled = true
