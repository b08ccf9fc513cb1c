package session_test

import (
	"strings"
	"testing"
	"time"

	"github.com/racetrack-sim/racetrack/core/philo"
	"github.com/racetrack-sim/racetrack/core/scenario"
	"github.com/racetrack-sim/racetrack/core/scenario/scenariotest"
	"github.com/racetrack-sim/racetrack/core/session"
)

// recorder is a pipe that keeps what the session sends.
type recorder struct{ got []session.Message }

func (r *recorder) Send(m session.Message) bool { r.got = append(r.got, m); return true }
func (*recorder) Now() time.Duration            { return 0 }
func (*recorder) Wait(time.Duration) bool       { return true }

// A panic in a model fails the request that met it with an internal
// error naming the method and the panic, and the session goes on: every
// transport relies on Serve for this.
func TestServeFailsOnlyTheRequestThatPanics(t *testing.T) {
	s := session.New(session.Config{Registry: scenario.NewRegistry(philo.Scenario(), scenariotest.Broken(philo.Scenario(), "broken", "model bug"))})
	serve := func(text string) session.Message {
		t.Helper()
		req, err := session.DecodeRequest([]byte(text))
		if err != nil {
			t.Fatal(err)
		}
		var r recorder
		s.Serve(req, &r)
		if len(r.got) != 1 {
			t.Fatalf("%s: %d messages, want 1", text, len(r.got))
		}
		return r.got[0]
	}
	m := serve(`{"id":1,"method":"open","args":{"spec":{"scenario":"broken","seed":1}}}`)
	if m.Error == nil || m.Error.Code != session.CodeInternal || !strings.Contains(m.Error.Message, "open: internal error: model bug") {
		t.Fatalf("open of a panicking model answered %+v, want an internal error naming open and the panic", m.Error)
	}
	if m := serve(`{"id":2,"method":"open","args":{"spec":{"scenario":"dining-philosophers","seed":1}}}`); m.Error != nil {
		t.Fatalf("the next request failed too: %+v", m.Error)
	}
}
