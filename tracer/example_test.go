package tracer_test

import (
	"os"
	"sync"

	"github.com/racetrack-sim/racetrack/tracer"
)

// A client subscribes to a server over a channel, carrying the trace's
// message id in its own request; the server takes its mutex to record
// the subscriber. The trace is written without times so that it prints
// the same every run.
func Example() {
	tr := tracer.New(os.Stdout, tracer.WithoutTimes())
	client := tr.Node("client")
	server := tr.Node("tablet").Thread("subscribe")

	type request struct {
		name    string
		traceID tracer.MsgID
	}
	requests := make(chan request, 1)
	var mu sync.Mutex
	receivers := 0

	requests <- request{name: "c1", traceID: client.Send("subscribe c1", "tablet")}
	r := <-requests
	server.Receive(r.traceID, "subscribe "+r.name)
	server.Lock(&mu, "mu")
	receivers++
	server.State("receivers", tracer.F("receivers", receivers), tracer.F("last", r.name))
	server.Unlock(&mu, "mu")
	// Output:
	// {"node":"client","kind":"send","msg":"client#1","to":"tablet","label":"subscribe c1"}
	// {"node":"tablet","thread":"subscribe","kind":"receive","msg":"client#1","label":"subscribe c1"}
	// {"node":"tablet","thread":"subscribe","kind":"lock","obj":"mu"}
	// {"node":"tablet","thread":"subscribe","kind":"state","label":"receivers","fields":{"receivers":1,"last":"c1"}}
	// {"node":"tablet","thread":"subscribe","kind":"unlock","obj":"mu"}
}
