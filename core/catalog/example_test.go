package catalog_test

import (
	"fmt"

	"github.com/racetrack-sim/racetrack/core/catalog"
	"github.com/racetrack-sim/racetrack/core/philo"
)

// With puts a model of another module next to the built-in bugs; the
// server (api/serve) and the wasm engine (wasm/worker) take the result.
// An id already taken panics, so a model cannot shadow a built-in one.
func ExampleWith() {
	mine := philo.Scenario()
	mine.ID = "my-philosophers"
	for _, sc := range catalog.With(mine).List() {
		fmt.Println(sc.ID)
	}
	// Output:
	// bank-overdraft
	// broker-hw-truncation
	// dining-philosophers
	// my-philosophers
	// scylla-mv-backlog
	// tarantool-raft-relay
	// vitess-messager
}
