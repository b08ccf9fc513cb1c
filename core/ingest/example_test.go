package ingest_test

import (
	"fmt"

	"github.com/racetrack-sim/racetrack/core/ingest"
)

// A real program's deadlock, as package tracer logs it, imported as a
// timeline whose last step closes a wait-for cycle.
func ExampleNDJSON() {
	trace := `{"node":"tablet","thread":"unsubscribe","kind":"lock","obj":"mu"}
{"node":"tablet","thread":"poller","kind":"lock","obj":"streamMu"}
{"node":"tablet","thread":"unsubscribe","kind":"block","obj":"streamMu"}
{"node":"tablet","thread":"poller","kind":"block","obj":"mu"}
`
	l, err := ingest.NDJSON([]byte(trace), ingest.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	x := l.Executions[0]
	tl := x.Timeline(ingest.LogID(ingest.FormatNDJSON, ingest.Options{}, []byte(trace)))
	for _, e := range tl.WaitCycles(tl.Len() - 1) {
		fmt.Printf("%s waits for %s, held by %s\n", x.Procs[e.Waiter].Name, x.Mutexes[e.Mutex].Name, x.Procs[e.Holder].Name)
	}
	for _, v := range tl.Violations() {
		fmt.Printf("step %d: %s: %s\n", v.Step, v.Property, v.Message)
	}
	// Output:
	// unsubscribe waits for streamMu, held by poller
	// poller waits for mu, held by unsubscribe
	// step 3: no-deadlock: poller holds streamMu, waits for mu; unsubscribe holds mu, waits for streamMu
}

// A ShiViz log in ShiViz's default format: the receive on the server is
// found from the clocks, whatever order the hosts' lines come in.
func ExampleShiViz() {
	log := `server got request
server {"server":1, "client":1}
client sent request
client {"client":1}
`
	l, err := ingest.ShiViz([]byte(log), ingest.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	x := l.Executions[0]
	for i, s := range x.Steps {
		fmt.Printf("%d %s %s: %s (line %d)\n", i, x.Procs[s.Proc].Name, s.Kind, x.StepLabel(i), x.Lines[i])
	}
	// Output:
	// 0 client local: client sent request (line 3)
	// 1 server receive: server got request (line 1)
}
