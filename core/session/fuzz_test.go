package session_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/racetrack-sim/racetrack/core/scenario"
	"github.com/racetrack-sim/racetrack/core/session"
)

// FuzzCall drives the dispatcher with arbitrary methods and arguments:
// it never panics, and every failure is an *Error with a code and a
// message (the field when the arguments name one).
func FuzzCall(f *testing.F) {
	s := session.New(session.Config{Registry: reg, Limits: session.Limits{MaxRunSteps: 200_000, MaxSearchStates: 2000, MaxSearchRuns: 50}})
	out, err := s.Call("0", "open", json.RawMessage(`{"spec":{"scenario":"dining-philosophers","preset":"lock-level","seed":3}}`))
	if err != nil {
		f.Fatal(err)
	}
	id := out.(scenario.Summary).ID
	for _, m := range session.Methods {
		f.Add(m, []byte(fmt.Sprintf(`{"run":%q,"step":3,"from":0,"to":5,"kind":"lock","format":"svg","a":%q,"b":%q}`, id, id, id)))
		f.Add(m, []byte(fmt.Sprintf(`{"run":%q,"step":-7,"choice":0,"option":1,"width":1e300}`, id)))
		f.Add(m, []byte(`{"scenario":"vitess-messager","strategy":"dfs","budget":{"states":100}}`))
		f.Add(m, []byte(`{"spec":{"scenario":"tarantool-raft-relay","schedule":[1,2,3]}}`))
		f.Add(m, []byte(`[1,2`))
		f.Add(m, []byte(`{"format":"shiviz","log":"a x\na {\"a\":1}\nb y\nb {\"a\":1, \"b\":1}\n","parser":"","delimiter":"^-$"}`))
		f.Add(m, []byte(`{"format":"ndjson","log":"{\"node\":\"a\",\"kind\":\"lock\",\"obj\":\"mu\"}\n"}`))
	}
	f.Fuzz(func(t *testing.T, method string, args []byte) {
		out, err := s.Call("f", method, args)
		if err != nil {
			var e *session.Error
			if !errors.As(err, &e) || e.Code == "" || e.Message == "" {
				t.Fatalf("%s %s: error %#v", method, args, err)
			}
			if e.Code == session.CodeInternal {
				t.Fatalf("%s %s: internal error %v", method, args, e)
			}
			return
		}
		switch v := out.(type) {
		case *session.Search:
			c := &clock{tick: time.Second}
			v.Run(session.Hooks{Elapsed: c.elapsed})
		case *session.Player:
			for i := 0; i < 3 && !v.Stopped(); i++ {
				if _, err := v.Advance(i * 7); err != nil {
					t.Fatal(err)
				}
			}
			s.Pause()
		default:
			if _, err := json.Marshal(v); err != nil {
				t.Fatalf("%s: result does not encode: %v", method, err)
			}
		}
	})
}

// FuzzDecodeRequest reads arbitrary client messages: an error always
// names the problem, and carries the id when one could be read.
func FuzzDecodeRequest(f *testing.F) {
	for _, s := range []string{`{"id":1,"method":"state","args":{"run":"r1","step":2}}`, `{"id":"a","method":"x"}`,
		`{"id":null}`, `{"id":{"a":1},"method":"x"}`, `[]`, `{"id":1e999,"method":"x"}`, `{"id":"` + strings.Repeat("x", 70) + `"}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		req, err := session.DecodeRequest(data)
		if err != nil {
			if err.Code == "" || err.Message == "" || len(req.ID) == 0 {
				t.Fatalf("%q: error %+v with id %q", data, err, req.ID)
			}
			return
		}
		if req.Method == "" || len(req.ID) == 0 || len(req.ID) > 64 {
			t.Fatalf("%q: accepted %+v", data, req)
		}
		if _, err := json.Marshal(session.Reply(req.ID, nil, nil)); err != nil {
			t.Fatalf("%q: the reply's id does not encode: %v", data, err)
		}
	})
}
