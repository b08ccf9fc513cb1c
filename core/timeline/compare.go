package timeline

import "github.com/racetrack-sim/racetrack/core/sim"

// Comparison aligns two runs of one scenario.
type Comparison struct {
	A string `json:"a"`
	B string `json:"b"`
	// Diverge is the first step index at which the runs differ (by
	// process name, kind, label and time), or -1 when they are identical.
	// When one run is a prefix of the other it is the shorter's length.
	Diverge int `json:"diverge"`
	// AStep and BStep are the diverging steps (nil past a run's end).
	AStep *StepView `json:"aStep,omitempty"`
	BStep *StepView `json:"bStep,omitempty"`
	// Common is the number of identical leading steps.
	Common     int       `json:"common"`
	ALen       int       `json:"aLen"`
	BLen       int       `json:"bLen"`
	Properties []Verdict `json:"properties"`
	// OnlyA and OnlyB name the properties only that run violates.
	OnlyA []string `json:"onlyA"`
	OnlyB []string `json:"onlyB"`
}

// Verdict is one property's outcome in both runs.
type Verdict struct {
	Name string `json:"name"`
	// A and B are "ok", "violated" or "absent" (the run does not check
	// it); for a Sometimes property "reached" or "not reached".
	A        string `json:"a"`
	B        string `json:"b"`
	AStep    int    `json:"aStep"`
	BStep    int    `json:"bStep"`
	AMessage string `json:"aMessage,omitempty"`
	BMessage string `json:"bMessage,omitempty"`
}

// Compare finds where two runs part ways and how each property fared.
func Compare(a, b *Timeline) Comparison {
	c := Comparison{A: a.ID(), B: b.ID(), Diverge: -1, ALen: a.Len(), BLen: b.Len(), OnlyA: []string{}, OnlyB: []string{}}
	n := min(a.Len(), b.Len())
	i := 0
	for ; i < n; i++ {
		if !sameStep(a, b, i) {
			break
		}
	}
	c.Common = i
	if i < a.Len() || i < b.Len() {
		c.Diverge = i
		if i < a.Len() {
			v := a.StepView(i)
			c.AStep = &v
		}
		if i < b.Len() {
			v := b.StepView(i)
			c.BStep = &v
		}
	}
	seen := map[string]bool{}
	var names []string
	for _, tl := range []*Timeline{a, b} {
		for _, p := range tl.Properties() {
			if !seen[p.Name] {
				seen[p.Name] = true
				names = append(names, p.Name)
			}
		}
	}
	for _, name := range names {
		v := Verdict{Name: name, AStep: -1, BStep: -1}
		v.A, v.AStep, v.AMessage = verdict(a, name)
		v.B, v.BStep, v.BMessage = verdict(b, name)
		c.Properties = append(c.Properties, v)
		switch {
		case v.A == "violated" && v.B != "violated":
			c.OnlyA = append(c.OnlyA, name)
		case v.B == "violated" && v.A != "violated":
			c.OnlyB = append(c.OnlyB, name)
		}
	}
	return c
}

func sameStep(a, b *Timeline, i int) bool {
	sa, sb := a.trace.Step(i), b.trace.Step(i)
	return sa.Time == sb.Time && sa.Kind == sb.Kind &&
		a.procs[sa.Proc].Name == b.procs[sb.Proc].Name &&
		a.trace.Label(sa.Label) == b.trace.Label(sb.Label)
}

func verdict(tl *Timeline, name string) (string, int, string) {
	found, sometimes := false, false
	for _, p := range tl.Properties() {
		if p.Name == name {
			found, sometimes = true, p.Kind == sim.KindSometimes
		}
	}
	if !found {
		return "absent", -1, ""
	}
	if sometimes {
		for _, v := range tl.final.Reached() {
			if v.Property == name {
				return "reached", v.Step, v.Message
			}
		}
		return "not reached", -1, ""
	}
	for _, v := range tl.Violations() {
		if v.Property == name {
			return "violated", v.Step, v.Message
		}
	}
	return "ok", -1, ""
}
