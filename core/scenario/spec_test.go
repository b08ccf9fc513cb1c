package scenario_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/racetrack-sim/racetrack/core/philo"
	"github.com/racetrack-sim/racetrack/core/scenario"
)

func registry() *scenario.Registry { return scenario.NewRegistry(philo.Scenario()) }

func TestRejectionsNameTheField(t *testing.T) {
	cases := []struct {
		name, body, field, says string
	}{
		{"empty", ``, "body", "empty body"},
		{"not json", `{"scenario":`, "body", "truncated"},
		{"syntax", `{"scenario" "x"}`, "body", "malformed JSON"},
		{"trailing", `{"scenario":"dining-philosophers"} {}`, "body", "unexpected data"},
		{"unknown field", `{"scenario":"dining-philosophers","speed":3}`, "speed", "unknown field"},
		{"missing scenario", `{}`, "scenario", "is required"},
		{"unknown scenario", `{"scenario":"nope"}`, "scenario", `unknown scenario "nope"`},
		{"unknown preset", `{"scenario":"dining-philosophers","preset":"x"}`, "preset", "one of table, lock-level"},
		{"unknown variant", `{"scenario":"dining-philosophers","variant":"x"}`, "variant", "one of buggy, fixed"},
		{"seed type", `{"scenario":"dining-philosophers","seed":"7"}`, "seed", "must be a non-negative integer"},
		{"negative seed", `{"scenario":"dining-philosophers","seed":-1}`, "seed", "must be a non-negative integer"},
		{"huge seed", `{"scenario":"dining-philosophers","seed":9007199254740992}`, "seed", "above the largest allowed seed"},
		{"unknown param", `{"scenario":"dining-philosophers","params":{"forks":3}}`, "params.forks", "unknown parameter"},
		{"param range", `{"scenario":"dining-philosophers","params":{"philosophers":20}}`, "params.philosophers", "outside the allowed range [2, 12]"},
		{"param not integer", `{"scenario":"dining-philosophers","params":{"philosophers":2.5}}`, "params.philosophers", "must be an integer"},
		{"param type", `{"scenario":"dining-philosophers","params":{"timed":"yes"}}`, "params.timed", "must be true or false"},
		{"duration range", `{"scenario":"dining-philosophers","params":{"eatTime":-1}}`, "params.eatTime", "outside the allowed range [0, 10000] ms"},
		{"negative choice", `{"scenario":"dining-philosophers","schedule":[0,-2]}`, "schedule[1]", "non-negative option index"},
		{"schedule type", `{"scenario":"dining-philosophers","schedule":"0,1"}`, "schedule", "must be a list"},
		{"maxSteps", `{"scenario":"dining-philosophers","maxSteps":6000000}`, "maxSteps", "outside the allowed range [1, 5000000]"},
		{"maxTime", `{"scenario":"dining-philosophers","maxTime":-5}`, "maxTime", "outside the allowed range"},
	}
	reg := registry()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			spec, err := scenario.DecodeRunSpec([]byte(c.body))
			if err == nil {
				_, _, err = reg.Normalize(spec)
			}
			var fe *scenario.FieldError
			if !errors.As(err, &fe) {
				t.Fatalf("err %v, want a FieldError", err)
			}
			if fe.Field != c.field || !strings.Contains(fe.Msg, c.says) {
				t.Fatalf("got %q: %q, want field %q saying %q", fe.Field, fe.Msg, c.field, c.says)
			}
			if !errors.Is(err, scenario.ErrInvalid) {
				t.Fatal("a field error must match ErrInvalid")
			}
		})
	}
}

func TestNormalFormFillsDefaultsAndIsStable(t *testing.T) {
	reg := registry()
	spec, err := scenario.DecodeRunSpec([]byte(`{"scenario":"dining-philosophers","preset":"lock-level","seed":4,"params":{"philosophers":3}}`))
	if err != nil {
		t.Fatal(err)
	}
	ns, _, err := reg.Normalize(spec)
	if err != nil {
		t.Fatal(err)
	}
	if ns.Variant != "buggy" || ns.Params["philosophers"] != int64(3) || ns.Params["timed"] != false || ns.Params["meals"] != int64(1) ||
		ns.Params["eatTime"] != 5.0 || ns.MaxSteps != 100_000 {
		t.Fatalf("normal form %+v", ns)
	}
	// Decoding the normal form and normalising again changes nothing.
	again, err := scenario.DecodeRunSpec(ns.CanonicalJSON())
	if err != nil {
		t.Fatal(err)
	}
	ns2, _, err := reg.Normalize(again)
	if err != nil {
		t.Fatal(err)
	}
	if string(ns2.CanonicalJSON()) != string(ns.CanonicalJSON()) || ns2.ID() != ns.ID() {
		t.Fatalf("normal form not stable:\n%s\n%s", ns.CanonicalJSON(), ns2.CanonicalJSON())
	}
	// Spelling a default out gives the same id; changing the seed does not.
	explicit := spec
	explicit.Variant = "buggy"
	explicit.Params = map[string]any{"philosophers": json.Number("3"), "meals": 1.0}
	ns3, _, err := reg.Normalize(explicit)
	if err != nil || ns3.ID() != ns.ID() {
		t.Fatalf("explicit defaults changed the id: %v %s vs %s", err, ns3.ID(), ns.ID())
	}
	other := spec
	other.Seed = 5
	ns4, _, _ := reg.Normalize(other)
	if ns4.ID() == ns.ID() {
		t.Fatal("a different seed gave the same id")
	}
}

func TestExecuteReplaysItsOwnSchedule(t *testing.T) {
	reg := registry()
	for seed := uint64(0); seed < 30; seed++ {
		spec := scenario.RunSpec{Scenario: "dining-philosophers", Preset: "lock-level", Seed: seed, Params: map[string]any{"philosophers": 3}}
		a, err := reg.Execute(spec, scenario.Options{Trace: true})
		if err != nil {
			t.Fatal(err)
		}
		spec.Schedule = a.World.Schedule()
		spec.Seed = seed + 100 // the schedule decides, not the seed
		b, err := reg.Execute(spec, scenario.Options{Trace: true})
		if err != nil {
			t.Fatal(err)
		}
		if a.World.Digest() != b.World.Digest() {
			t.Fatalf("seed %d: replaying the schedule gave another run", seed)
		}
		if len(a.World.Violations()) != len(b.World.Violations()) {
			t.Fatalf("seed %d: violations differ", seed)
		}
	}
}

func TestScheduleThatDoesNotFitNamesTheField(t *testing.T) {
	reg := registry()
	for _, sched := range [][]int{{99}, make([]int, 500)} {
		_, err := reg.Execute(scenario.RunSpec{Scenario: "dining-philosophers", Preset: "lock-level", Schedule: sched}, scenario.Options{})
		var fe *scenario.FieldError
		if !errors.As(err, &fe) || fe.Field != "schedule" {
			t.Fatalf("schedule %v...: err %v, want a schedule field error", sched[:1], err)
		}
	}
}

// TestEveryRejectedFieldIsReported: one spec with several bad fields gets
// one error per field, in the order the fields are checked; the first is
// what errors.As finds.
func TestEveryRejectedFieldIsReported(t *testing.T) {
	spec, err := scenario.DecodeRunSpec([]byte(`{"scenario":"dining-philosophers","preset":"x","variant":"y",
		"params":{"philosophers":20,"forks":3},"seed":9007199254740992,"schedule":[0,-1,-2],"maxSteps":-3,"maxTime":-5}`))
	if err != nil {
		t.Fatal(err)
	}
	_, _, err = registry().Normalize(spec)
	var got []string
	for _, fe := range scenario.AllFieldErrors(err) {
		got = append(got, fe.Field)
	}
	want := []string{"preset", "variant", "params.forks", "params.philosophers", "seed", "schedule[1]", "schedule[2]", "maxSteps", "maxTime"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("fields %q, want %q", got, want)
	}
	var fe *scenario.FieldError
	if !errors.As(err, &fe) || fe.Field != "preset" || !errors.Is(err, scenario.ErrInvalid) {
		t.Fatalf("errors.As finds %v, want the preset error; Is(ErrInvalid) %v", fe, errors.Is(err, scenario.ErrInvalid))
	}
	if !strings.Contains(err.Error(), "params.philosophers: ") || !strings.Contains(err.Error(), "; maxTime: ") {
		t.Fatalf("message %q does not name every field", err)
	}
}

// TestFieldErrorsAreBounded: a schedule with a million negative choices
// yields at most MaxFieldErrors errors, the last counting the rest.
func TestFieldErrorsAreBounded(t *testing.T) {
	sched := make([]int, 1_000_000)
	for i := range sched {
		sched[i] = -1
	}
	_, _, err := registry().Normalize(scenario.RunSpec{Scenario: "dining-philosophers", Schedule: sched})
	all := scenario.AllFieldErrors(err)
	if len(all) != scenario.MaxFieldErrors {
		t.Fatalf("%d errors, want %d", len(all), scenario.MaxFieldErrors)
	}
	if last := all[len(all)-1]; !strings.Contains(last.Msg, "and 999981 more") {
		t.Fatalf("last error %q", last.Msg)
	}
}

func TestDecodeRefusesDuplicateKeys(t *testing.T) {
	for body, field := range map[string]string{
		`{"scenario":"a","seed":1,"seed":2}`:                "seed",
		`{"scenario":"a","Scenario":"b"}`:                   "Scenario",
		`{"scenario":"a","params":{"meals":1,"meals":2}}`:   "params.meals",
		`{"scenario":"a","params":{"x":[1,{"k":1,"k":2}]}}`: "params.x[1].k",
	} {
		_, err := scenario.DecodeRunSpec([]byte(body))
		var fe *scenario.FieldError
		if !errors.As(err, &fe) || fe.Field != field || !strings.Contains(fe.Msg, "duplicate key") {
			t.Errorf("%s: got %v, want a duplicate key error on %s", body, err, field)
		}
	}
	if _, err := scenario.DecodeRunSpec([]byte(`{"scenario":"a","params":{"meals":1,"eatTime":2}}`)); err != nil {
		t.Errorf("distinct keys refused: %v", err)
	}
	deep := `{"scenario":"a","params":{"x":` + strings.Repeat("[", 100) + strings.Repeat("]", 100) + `}}`
	var fe *scenario.FieldError
	if _, err := scenario.DecodeRunSpec([]byte(deep)); !errors.As(err, &fe) {
		t.Errorf("a 100-level nesting is not refused with a field error: %v", err)
	}
}
