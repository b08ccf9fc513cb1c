package scenario

import (
	"fmt"
	"strings"
)

// Rule is a constraint between parameters that their ranges cannot say
// (rf at most nodes; two instances that must differ). Rules are part of
// the schema: the catalog publishes their text, so the page and the
// OpenAPI document can show them, and Normalize enforces them, so a spec
// the schema accepts is one the model can build.
type Rule struct {
	// Params are the parameters the rule relates, the first being the
	// one a rejection points at.
	Params []string `json:"params"`
	// Help states the rule in words, e.g. "rf ≤ nodes".
	Help string `json:"help"`
	// Broken returns why v breaks the rule, or "" when it holds.
	Broken func(v Values) string `json:"-"`
}

// checkRules applies the scenario's rules to normalised values, adding
// one error for every rule broken, on the rule's first parameter, that
// names every parameter of the rule with its value.
func (s *Scenario) checkRules(v Values, errs *Collector) {
	for i := range s.Rules {
		r := &s.Rules[i]
		if why := r.Broken(v); why != "" {
			names := make([]string, len(r.Params))
			for j, p := range r.Params {
				names[j] = fmt.Sprintf("%s=%s", p, formatValue(v[p]))
			}
			errs.Add("params."+r.Params[0], "%s (%s; rule: %s)", why, strings.Join(names, ", "), r.Help)
		}
	}
}

func formatValue(v any) string {
	switch x := v.(type) {
	case string:
		return fmt.Sprintf("%q", x)
	case []int64:
		parts := make([]string, len(x))
		for i, n := range x {
			parts[i] = fmt.Sprint(n)
		}
		return "[" + strings.Join(parts, ",") + "]"
	}
	return fmt.Sprint(v)
}

// validateRules checks a scenario's rules name its parameters and that
// every preset keeps them (a programming error if not).
func (s *Scenario) validateRules() error {
	for _, r := range s.Rules {
		if len(r.Params) == 0 || r.Broken == nil || r.Help == "" {
			return fmt.Errorf("scenario %q: a rule needs params, help and Broken", s.ID)
		}
		for _, p := range r.Params {
			if _, ok := s.Param(p); !ok {
				return fmt.Errorf("scenario %q: rule %q names unknown parameter %q", s.ID, r.Help, p)
			}
		}
	}
	for i := range s.Presets {
		var errs Collector
		v := s.normalizeParams(&s.Presets[i], nil, &errs)
		if errs.Len() == 0 {
			s.checkRules(v, &errs)
		}
		if err := errs.Err(); err != nil {
			return fmt.Errorf("scenario %q preset %q: %v", s.ID, s.Presets[i].ID, err)
		}
	}
	return nil
}
