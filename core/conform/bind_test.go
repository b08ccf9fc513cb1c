package conform_test

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/racetrack-sim/racetrack/core/conform"
	"github.com/racetrack-sim/racetrack/core/ingest"
	"github.com/racetrack-sim/racetrack/core/scenario"
	"github.com/racetrack-sim/racetrack/core/vitess"
)

// messagerSpec is the model a small messager trace is validated
// against: one client (a model process no lane is stays free to step,
// and a second client's Subscribe would change the receiver count).
var messagerSpec = scenario.RunSpec{Scenario: vitess.ID, Preset: vitess.PresetLockLevel, Variant: "fixed",
	Params: map[string]any{"clients": 1, "iterations": 2}}

// subscribe is a trace of examples/messager's shape: client1 subscribes
// (the first receiver starts the vstream) and leaves.
const subscribe = `{"node":"tablet","thread":"client1","kind":"lock","obj":"mu"}
{"node":"tablet","thread":"client1","kind":"local","label":"startVStream"}
{"node":"tablet","thread":"client1","kind":"state","label":"Subscribe: receivers = append(..)","fields":{"receivers":1}}
{"node":"tablet","thread":"client1","kind":"unlock","obj":"mu"}
{"node":"tablet","thread":"client1","kind":"lock","obj":"mu"}
{"node":"tablet","thread":"client1","kind":"state","label":"unsubscribe: receiver removed","fields":{"receivers":0}}
{"node":"tablet","thread":"client1","kind":"local","label":"stopVStream"}
{"node":"tablet","thread":"client1","kind":"unlock","obj":"mu"}
`

func validateNDJSON(t testing.TB, trace string) (*conform.Verdict, error) {
	t.Helper()
	l, err := ingest.NDJSON([]byte(trace), ingest.Options{})
	if err != nil {
		t.Fatalf("the trace does not import: %v", err)
	}
	return conform.Validate(check(t.(*testing.T), messagerSpec), l.Executions[0], conform.Options{Format: ingest.FormatNDJSON})
}

// TestFieldsAreChecked: the logged receiver counts are the model's after
// the step that follows them; a wrong count leaves the model at the step
// whose state it contradicts, saying which field.
func TestFieldsAreChecked(t *testing.T) {
	v, err := validateNDJSON(t, subscribe)
	if err != nil || !v.Conforms {
		t.Fatalf("the trace should conform: %v %+v", err, v)
	}
	bad := strings.Replace(subscribe, `"receivers":1`, `"receivers":2`, 1)
	v, err = validateNDJSON(t, bad)
	if err != nil {
		t.Fatal(err)
	}
	if v.Conforms || v.At.Event != 3 || !strings.Contains(v.At.Waiting[0].Why, "field receivers is 2 in the log (line 3), 1 in the model") {
		t.Fatalf("a wrong receiver count: %s at %+v", v.Stop, v.At)
	}
}

// TestOptionalBlockIsPassedOver: a logged block where the model's mutex
// is free (the real holder is a lane the mapping leaves out) cannot be a
// model block: the search passes over it, and the lock after it is the
// model's. The verdict marks it reached with no model step matching it.
func TestOptionalBlockIsPassedOver(t *testing.T) {
	trace := `{"node":"tablet","thread":"runSend","kind":"lock","obj":"mu"}
{"node":"tablet","thread":"client1","kind":"block","obj":"mu"}
{"node":"tablet","thread":"runSend","kind":"unlock","obj":"mu"}
` + subscribe
	v, err := validateNDJSON(t, trace)
	if err != nil || !v.Conforms {
		t.Fatalf("%v %+v", err, v)
	}
	if v.Reached[1] < 0 || slices.Contains(v.StepEvents, 1) {
		t.Fatalf("the block: reached %d, matched by a step: %v", v.Reached[1], slices.Contains(v.StepEvents, 1))
	}
}

// TestBindRefusesWhatTheMappingDoesNotKnow: a lane, an event or a mutex
// the mapping does not know is refused naming the line and the field.
func TestBindRefusesWhatTheMappingDoesNotKnow(t *testing.T) {
	for _, c := range []struct{ name, trace, field, says string }{
		{"lane", `{"node":"tablet","thread":"client2","kind":"lock","obj":"mu"}`, "lane", `"client2"`},
		{"label", `{"node":"tablet","thread":"poller","kind":"local","label":"vacuum"}`, "label", `"vacuum"`},
		{"mutex", `{"node":"tablet","thread":"poller","kind":"lock","obj":"purgeMu"}`, "obj", `"purgeMu"`},
	} {
		_, err := validateNDJSON(t, `{"node":"tablet","thread":"client1","kind":"local","label":"startVStream"}`+"\n"+c.trace+"\n")
		var ie *ingest.Error
		if !errors.As(err, &ie) || ie.Line != 2 || ie.Field != c.field || !strings.Contains(ie.Msg, c.says) {
			t.Errorf("%s: got %v, want line 2, field %s, naming %s", c.name, err, c.field, c.says)
		}
	}
}

// TestUnknownMappingAndBudget: a mapping the model lacks and a bad state
// budget are refused naming the field; a timed configuration is refused
// as unsupported.
func TestUnknownMappingAndBudget(t *testing.T) {
	l, err := ingest.NDJSON([]byte(subscribe), ingest.Options{})
	if err != nil {
		t.Fatal(err)
	}
	n := check(t, messagerSpec)
	var fe *scenario.FieldError
	if _, err := conform.Validate(n, l.Executions[0], conform.Options{Mapping: "etcd"}); !errors.As(err, &fe) || fe.Field != "mapping" {
		t.Errorf("unknown mapping: %v", err)
	}
	if _, err := conform.Validate(n, l.Executions[0], conform.Options{MaxStates: -1}); !errors.As(err, &fe) || fe.Field != "maxStates" {
		t.Errorf("negative budget: %v", err)
	}
	timed := check(t, scenario.RunSpec{Scenario: vitess.ID, Preset: vitess.PresetChurn, Variant: "fixed"})
	if _, err := conform.Validate(timed, l.Executions[0], conform.Options{}); !errors.Is(err, conform.ErrUnsupported) {
		t.Errorf("timed preset: %v", err)
	}
}

// TestMappingsListsDeclaredThenIdentity: what a client offers to choose.
func TestMappingsListsDeclaredThenIdentity(t *testing.T) {
	got := conform.Mappings(vitess.Scenario())
	if len(got) != 2 || got[0].Name != vitess.MessagerLog || got[1].Name != conform.Identity || got[0].Help == "" {
		t.Fatalf("mappings %+v", got)
	}
}

// TestBudgetStops: a search out of states says so rather than
// pretending the log leaves the model.
func TestBudgetStops(t *testing.T) {
	l, err := ingest.NDJSON([]byte(subscribe), ingest.Options{})
	if err != nil {
		t.Fatal(err)
	}
	v, err := conform.Validate(check(t, messagerSpec), l.Executions[0], conform.Options{MaxStates: 2})
	if err != nil || v.Stop != conform.StopBudget || v.Conforms || v.States != 2 {
		t.Fatalf("budget of 2 states: %v %+v", err, v)
	}
	// Room for three worlds of one client (4096 + 300 bytes each): the
	// path is cut at three steps, short of the six the trace needs.
	v, err = conform.Validate(check(t, messagerSpec), l.Executions[0], conform.Options{MaxBytes: 3 * 4396})
	if err != nil || v.Stop != conform.StopBudget || v.Conforms {
		t.Fatalf("room for 3 worlds: %v %+v", err, v)
	}
	var fe *scenario.FieldError
	if _, err := conform.Validate(check(t, messagerSpec), l.Executions[0], conform.Options{MaxBytes: 100}); !errors.As(err, &fe) || fe.Field != "maxBytes" {
		t.Fatalf("room for no world: %v", err)
	}
}

// FuzzValidate feeds any NDJSON trace to the messager mapping: it is
// refused with an error or gets a verdict, never a panic, and a verdict
// that conforms has every event reached, each step event by its own
// model step.
func FuzzValidate(f *testing.F) {
	f.Add([]byte(subscribe))
	f.Add([]byte(`{"node":"tablet","thread":"poller","kind":"lock","obj":"cacheManagementMu"}` + "\n" +
		`{"node":"tablet","thread":"poller","kind":"send","msg":1,"to":"tablet","label":"cond.Broadcast: wake runSend"}` + "\n"))
	f.Add([]byte(`{"node":"tablet","thread":"watchdog","kind":"state","label":"watchdog: stuck"}`))
	reg := scenario.NewRegistry(vitess.Scenario())
	n, err := reg.Check(messagerSpec)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		l, err := ingest.NDJSON(data, ingest.Options{MaxBytes: 1 << 22})
		if err != nil {
			return
		}
		v, err := conform.Validate(n, l.Executions[0], conform.Options{Format: ingest.FormatNDJSON, MaxStates: 5000})
		if err != nil {
			return
		}
		if v.Conforms {
			for i, r := range v.Reached {
				if r < 0 {
					t.Fatalf("conforms, but event %d is not reached", i)
				}
			}
			for k, i := range v.StepEvents {
				if i >= 0 && v.Reached[i] != int32(k+1) {
					t.Fatalf("step %d matched event %d, reached after %d steps", k, i, v.Reached[i])
				}
			}
		}
	})
}
