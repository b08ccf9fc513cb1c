package serve_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"

	"github.com/racetrack-sim/racetrack/api/serve"
	"github.com/racetrack-sim/racetrack/core/bank"
	"github.com/racetrack-sim/racetrack/core/scenario"
)

// A server binary for a model of your own is one call: the API and the
// page offer the registry's scenarios. (Use catalog.With(yours) to show
// them next to the built-in bugs.) With Wasm nil the page runs on the
// server engine; pass your own wasm build (see package wasm/worker) as
// Config.Wasm or with -wasm DIR for the in-tab engine.
func ExampleMain() {
	serve.Main("bank", serve.Config{Registry: scenario.NewRegistry(bank.Scenario())})
}

// Run is Main under the caller's control: its own context, arguments
// and log, and a callback with the address it listens on.
func ExampleRun() {
	reg := scenario.NewRegistry(bank.Scenario())
	dir, _ := os.MkdirTemp("", "serve-example")
	defer os.RemoveAll(dir)

	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	addr := make(chan string, 1)
	done := make(chan error, 1)
	go func() {
		args := []string{"-addr", "127.0.0.1:0", "-data", dir + "/racetrack.db"}
		done <- serve.Run(ctx, serve.Config{Registry: reg}, "bank", args, io.Discard, func(a string) { addr <- a })
	}()
	base := "http://" + <-addr

	res, err := http.Get(base + "/api/v1/scenarios")
	if err != nil {
		fmt.Println(err)
		return
	}
	var list []struct{ ID string }
	_ = json.NewDecoder(res.Body).Decode(&list)
	res.Body.Close()
	for _, s := range list {
		fmt.Println(s.ID)
	}
	res, err = http.Get(base + "/engine.json")
	if err == nil {
		b, _ := io.ReadAll(res.Body)
		res.Body.Close()
		fmt.Print(string(b))
	}

	stop()
	fmt.Println("stopped:", <-done)
	http.DefaultClient.CloseIdleConnections()
	// Output:
	// bank-overdraft
	// {"engine": "server", "wasm": false}
	// stopped: <nil>
}
