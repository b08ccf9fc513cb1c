package scenario_test

import (
	"errors"
	"testing"

	"github.com/racetrack-sim/racetrack/core/scenario"
)

// FuzzRunSpec decodes, validates and (briefly) runs arbitrary input: it
// must never panic, and every rejection must be a FieldError naming a
// field.
func FuzzRunSpec(f *testing.F) {
	for _, s := range []string{
		`{"scenario":"dining-philosophers"}`,
		`{"scenario":"dining-philosophers","preset":"lock-level","variant":"fixed","seed":3,"params":{"philosophers":4}}`,
		`{"scenario":"dining-philosophers","schedule":[1,0,2],"maxSteps":10,"maxTime":1.5}`,
		`{"scenario":"dining-philosophers","params":{"thinkTime":0,"eatTime":0,"timed":false}}`,
		`{"scenario":"x","params":{"a":[1,2]}}`, `[]`, `null`, `{"seed":1e400}`,
	} {
		f.Add([]byte(s))
	}
	reg := registry()
	f.Fuzz(func(t *testing.T, data []byte) {
		spec, err := scenario.DecodeRunSpec(data)
		if err == nil {
			var ns scenario.RunSpec
			ns, _, err = reg.Normalize(spec)
			if err == nil {
				ns.MaxSteps = min(ns.MaxSteps, 2000)
				_, err = reg.Execute(ns, scenario.Options{Trace: true})
			}
		}
		if err == nil {
			return
		}
		var fe *scenario.FieldError
		if !errors.As(err, &fe) || fe.Field == "" || fe.Msg == "" {
			t.Fatalf("rejection %v is not a FieldError naming a field", err)
		}
	})
}
