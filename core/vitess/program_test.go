package vitess

import "testing"

// TestProgramsHaveEveryStep: every program counter of every goroutine has
// its step and its description, so a step cannot be added without both.
func TestProgramsHaveEveryStep(t *testing.T) {
	for _, c := range []struct {
		name     string
		steps    int
		counters int
		missing  []int
	}{
		{"client", len(client), cExit + 1, client.Missing()},
		{"poller", len(poller), pExit + 1, poller.Missing()},
		{"vstream", len(vstream), rExit + 1, vstream.Missing()},
		{"runSend", len(runSend), sExit + 1, runSend.Missing()},
		{"send", len(send), dExit + 1, send.Missing()},
		{"closer", len(closer), kReturned + 1, closer.Missing()},
	} {
		if len(c.missing) > 0 || c.steps != c.counters {
			t.Errorf("%s: %d steps for %d program counters, missing %v", c.name, c.steps, c.counters, c.missing)
		}
	}
}
