package timeline_test

import (
	"fmt"

	"github.com/racetrack-sim/racetrack/core/catalog"
	"github.com/racetrack-sim/racetrack/core/scenario"
	"github.com/racetrack-sim/racetrack/core/timeline"
)

// Record a deadlocking run of the dining philosophers, look at the state
// where the cycle closes, ask what else could have happened just before,
// and compare with the fixed variant.
func Example() {
	reg := catalog.New()
	tl, err := timeline.Record(reg, scenario.RunSpec{Scenario: "dining-philosophers", Preset: "lock-level", Seed: 16}, timeline.Options{})
	if err != nil {
		panic(err)
	}
	v := tl.Violations()[0]
	fmt.Printf("%s violated at step %d of %d\n", v.Property, v.Step, tl.Len())
	fmt.Println("causal past:", tl.CausalSlice(v.Step))

	st, _ := tl.StateAt(v.Step)
	for _, g := range st.Groups {
		for _, f := range g.Fields {
			if f.Changed {
				fmt.Printf("changed: %s.%s = %s\n", g.Title, f.Name, f.Value)
			}
		}
	}

	// The last decision before the cycle closed, and its other options.
	var alts []timeline.Alternative
	at := v.Step
	for ; at >= 0 && len(alts) == 0; at-- {
		alts, _ = tl.Alternatives(at)
	}
	fmt.Printf("step %d chose %q among %d:\n", at+1, alts[0].Label, alts[0].N)
	for _, o := range alts[0].Options {
		fmt.Printf("option %d: %s (picked %v)\n", o.Index, o.Text, o.Picked)
	}
	fixed, _ := timeline.Record(reg, scenario.RunSpec{Scenario: "dining-philosophers", Preset: "lock-level", Variant: "fixed", Seed: 16}, timeline.Options{})
	c := timeline.Compare(tl, fixed)
	fmt.Printf("buggy and fixed part at step %d: %q vs %q; only buggy violates %v\n", c.Diverge, c.AStep.Label, c.BStep.Label, c.OnlyA)
	// Output:
	// no-deadlock violated at step 14 of 15
	// causal past: [1 2 5 10 14]
	// changed: phil3.state = blocked on fork4
	// changed: processes.phil3 = blocked on fork4
	// changed: mutexes.fork4 = held by phil4; 1 waiting: phil3
	// step 13 chose "next event" among 2:
	// option 0: phil3 takes fork4 (picked false)
	// option 1: phil2 takes fork3 (picked true)
	// buggy and fixed part at step 5: "take fork4" vs "take fork0"; only buggy violates [no-deadlock everyone-eats]
}
