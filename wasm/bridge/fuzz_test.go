package bridge

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/racetrack-sim/racetrack/core/catalog"
	"github.com/racetrack-sim/racetrack/core/scenario"
)

// FuzzCall sends arbitrary arguments to every per-run method of the
// bridge (the page's input crosses it as JSON): it must answer with a
// result or an error, never panic. "$ID" in the arguments stands for a
// recorded run, so the fuzzer reaches past the id lookup.
func FuzzCall(f *testing.F) {
	methods := []string{"steps", "state", "alternatives", "slice", "layout", "charts", "export", "compare", "nope"}
	for i := range methods {
		f.Add(uint8(i), []byte(`{"id":"$ID","step":3,"from":0,"to":10,"limit":5,"format":"json","width":600}`))
	}
	f.Add(uint8(0), []byte(`{"id":"$ID","from":-5,"limit":-1}`))
	f.Add(uint8(4), []byte(`{"id":"$ID","from":9,"to":2}`))
	f.Add(uint8(7), []byte(`{"a":"$ID","b":"$ID"}`))
	f.Add(uint8(1), []byte(`[]`))
	b := New(catalog.New())
	v, err := b.Call("run", []byte(`{"spec":`+lockLevel+`}`))
	if err != nil {
		f.Fatal(err)
	}
	id := v.(scenario.Summary).ID
	f.Fuzz(func(t *testing.T, m uint8, args []byte) {
		method := methods[int(m)%len(methods)]
		args = bytes.ReplaceAll(args, []byte("$ID"), []byte(id))
		out, err := b.Call(method, args)
		if err != nil {
			return
		}
		if _, raw := out.(Raw); !raw {
			if _, err := json.Marshal(out); err != nil {
				t.Fatalf("%s(%s): result does not marshal: %v", method, args, err)
			}
		}
	})
}
