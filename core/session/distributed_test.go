package session_test

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/racetrack-sim/racetrack/core/session"
)

// A session steps its searches itself: "distributed": true, which a
// server's search job honours, is refused naming the field.
func TestSessionRefusesDistributedSearch(t *testing.T) {
	s := newSession()
	_, err := s.StartSearch("s1", json.RawMessage(`{"scenario":"dining-philosophers","preset":"lock-level","strategy":"bfs","distributed":true}`))
	var se *session.Error
	if !errors.As(err, &se) || se.Code != session.CodeInvalid || se.Field != "distributed" {
		t.Fatalf("distributed search in a session: %v, want an invalid distributed", err)
	}
}
