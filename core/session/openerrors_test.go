package session_test

import (
	"strings"
	"testing"
)

// A spec whose seed is no JSON integer and whose parameters are out of
// range is refused with every field at once: the seed's type first, then
// the catalog's parameters (issue 32 saw one error per submission).
func TestOpenReportsEveryBadFieldAtOnce(t *testing.T) {
	s := newSession()
	for _, seed := range []string{`"1e3"`, `-1`, `1.5`} {
		e := callErr(t, s, "open", `{"spec": {"scenario": "dining-philosophers", "preset": "lock-level", "variant": "buggy", "seed": `+seed+`, "params": {"meals": 0, "philosophers": 40}}}`)
		fields := []string{}
		for _, is := range e.Errors {
			fields = append(fields, is.Field)
		}
		if e.Field != "spec.seed" || strings.Join(fields, ",") != "spec.seed,spec.params.philosophers,spec.params.meals" && strings.Join(fields, ",") != "spec.seed,spec.params.meals,spec.params.philosophers" {
			t.Errorf("seed %s: error on %q listing %v", seed, e.Field, fields)
		}
	}
	// A bad seed alone stays one error, with no list.
	e := callErr(t, s, "open", `{"spec": {"scenario": "dining-philosophers", "preset": "lock-level", "variant": "buggy", "seed": "x"}}`)
	if e.Field != "spec.seed" || len(e.Errors) != 0 {
		t.Errorf("a bad seed alone: %q %v", e.Field, e.Errors)
	}
}
