package main

import (
	"bytes"
	"os"
	"testing"
)

// TestHostileSuiteSmall runs the whole suite at the small scale against a
// server in this process: every case must get its expected outcome. The
// memory and kill -9 cases need the server in a child process (-server);
// TestHostileSuiteChild runs them when RACETRACK_SERVER names a binary.
func TestHostileSuiteSmall(t *testing.T) {
	if testing.Short() {
		t.Skip("plays the whole hostile suite (about a minute)")
	}
	rep, err := run(options{scale: "small"})
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	f, _ := os.CreateTemp(t.TempDir(), "report")
	rep.print(f)
	_, _ = f.Seek(0, 0)
	_, _ = out.ReadFrom(f)
	t.Log("\n" + out.String())
	for _, c := range rep.checks {
		if !c.OK {
			t.Errorf("%s: expected %s, got %s", c.Case, c.Expected, c.Got)
		}
	}
	if len(rep.checks) < 68 { // every case of the in-process suite: HTTP (25), budget (10), traces (6), tokens (15), NATS (12)
		t.Errorf("only %d checks ran", len(rep.checks))
	}
}

// TestHostileSuiteChild runs the suite against a cmd/server binary in a
// child process, with the peak-memory and kill -9 checks:
//
//	go build -o /tmp/rtserver ./cmd/server && RACETRACK_SERVER=/tmp/rtserver go test -run Child ./cmd/hostile
func TestHostileSuiteChild(t *testing.T) {
	bin := os.Getenv("RACETRACK_SERVER")
	if bin == "" {
		t.Skip("set RACETRACK_SERVER to a cmd/server binary")
	}
	rep, err := run(options{scale: "small", server: bin, port: 18017})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range rep.checks {
		if !c.OK {
			t.Errorf("%s: expected %s, got %s", c.Case, c.Expected, c.Got)
		}
	}
}
