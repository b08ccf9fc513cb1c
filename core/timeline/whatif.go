package timeline

import (
	"fmt"
	"maps"
	"slices"
	"strconv"

	"github.com/racetrack-sim/racetrack/core/scenario"
	"github.com/racetrack-sim/racetrack/core/sim"
)

// Alternative is one decision made at a step, with the options the chooser
// had.
type Alternative struct {
	// Choice is the decision's position in the run's schedule.
	Choice int    `json:"choice"`
	Step   int    `json:"step"`
	Kind   string `json:"kind"` // "event" or "value"
	Label  string `json:"label"`
	N      int    `json:"n"`
	Picked int    `json:"picked"`
	// Options lists every option of an event choice and of a value
	// choice with at most MaxValueOptions options; of a larger value
	// choice, the smallest, the largest, the picked one and a few evenly
	// spaced between, in index order.
	Options []Option `json:"options"`
	// Domain says what the options of a drawn duration stand for, so any
	// value of it can be typed (nil for other choices).
	Domain *Domain `json:"domain,omitempty"`
}

// Domain maps a value choice's options to a quantity: option k is
// Min + k*Step, in Unit, up to Max.
type Domain struct {
	Min    float64 `json:"min"`
	Max    float64 `json:"max"`
	Step   float64 `json:"step"`
	Unit   string  `json:"unit"`
	Picked float64 `json:"picked"`
}

// Value is the quantity option k stands for.
func (d *Domain) Value(k int) float64 { return d.Min + float64(k)*d.Step }

// valueSamples is how many evenly spaced options a large value choice
// lists besides its ends and the picked one.
const valueSamples = 5

// Option is one thing that could have happened.
type Option struct {
	Index  int    `json:"index"`
	Text   string `json:"text"`
	Picked bool   `json:"picked,omitempty"`
	// Proc is the process an event option would have run (-1 for value
	// choices).
	Proc sim.ProcID `json:"proc"`
}

// MaxValueOptions bounds the options listed for a value choice.
const MaxValueOptions = 16

// Alternatives lists the decisions made at step i (the choice of which
// ready event ran, and any value drawn during the step) with their other
// options in the model's words.
func (tl *Timeline) Alternatives(i int) ([]Alternative, error) {
	return tl.alternatives(i, func() (*sim.World, error) { return tl.worldAt(i) })
}

// alternatives lists the decisions at step i; before is the world before
// step i (asked for only when an event choice needs it), which is only
// read.
func (tl *Timeline) alternatives(i int, before func() (*sim.World, error)) ([]Alternative, error) {
	if err := tl.checkStep(i); err != nil {
		return nil, err
	}
	lo, hi := tl.choicesAt(i)
	out := make([]Alternative, 0, hi-lo)
	if lo == hi {
		return out, nil
	}
	var w *sim.World
	var ready []sim.Event
	for k := lo; k < hi; k++ {
		c := tl.trace.Choices[k]
		a := Alternative{Choice: k, Step: i, Label: c.Label, N: int(c.N), Picked: int(c.Picked), Options: []Option{}}
		switch c.Kind {
		case sim.ChooseEvent:
			a.Kind = "event"
			if w == nil {
				var err error
				if w, err = before(); err != nil {
					return nil, err
				}
				ready = w.Ready()
			}
			for j := 0; j < a.N; j++ {
				o := Option{Index: j, Picked: j == a.Picked, Proc: sim.None, Text: "option " + strconv.Itoa(j)}
				if j < len(ready) {
					o.Proc = ready[j].Proc
					o.Text = describe(w, &ready[j])
				}
				a.Options = append(a.Options, o)
			}
		default:
			a.Kind = "value"
			if c.Res > 0 {
				a.Domain = &Domain{Min: c.Lo.Millis(), Max: (c.Lo + sim.Time(a.N-1)*c.Res).Millis(), Step: c.Res.Millis(), Unit: "ms"}
				a.Domain.Picked = a.Domain.Value(a.Picked)
			}
			for _, j := range valueOptions(a.N, a.Picked) {
				text := c.Label + " = option " + strconv.Itoa(j) + " of " + strconv.Itoa(a.N)
				if a.Domain != nil {
					text = c.Label + " = " + strconv.FormatFloat(a.Domain.Value(j), 'g', 6, 64) + " " + a.Domain.Unit
				}
				a.Options = append(a.Options, Option{Index: j, Picked: j == a.Picked, Proc: sim.None, Text: text})
			}
		}
		out = append(out, a)
	}
	return out, nil
}

// valueOptions lists the options shown for a value choice of n options:
// all of them up to MaxValueOptions, else the ends, the picked one and
// valueSamples evenly spaced, ascending and distinct.
func valueOptions(n, picked int) []int {
	if n <= MaxValueOptions {
		out := make([]int, n)
		for j := range out {
			out[j] = j
		}
		return out
	}
	out := []int{0}
	for k := 1; k <= valueSamples; k++ {
		out = append(out, k*(n-1)/(valueSamples+1))
	}
	out = append(out, n-1, picked)
	slices.Sort(out)
	return slices.Compact(out)
}

// describe says what a ready event would do: in the model's words when it
// describes its events (sim.Capabilities.Describe), else in the kernel's.
func describe(w *sim.World, ev *sim.Event) string {
	if s := w.Describe(ev); s != "" {
		return s
	}
	name := w.ProcName(ev.Proc)
	switch ev.Kind {
	case sim.EvDeliver:
		what := "a message"
		if l, ok := ev.Payload.(sim.Labeler); ok {
			what = l.Label()
		}
		return name + " receives " + what + " from " + w.ProcName(ev.From)
	case sim.EvTimer:
		return name + "'s timer " + strconv.Itoa(ev.Timer) + " fires"
	case sim.EvAcquire:
		if mu := w.Mutex(ev.Mutex); mu.Kind == sim.MutexGo {
			return name + " tries " + mu.Name + " again (woken)" // a thread locking it first wins
		}
		return name + " gets " + w.Mutex(ev.Mutex).Name
	}
	return name + " takes its next step"
}

// Edge is how a run was forked from Parent: by taking Option instead of
// the recorded pick at choice Choice (made at step Step), which Text says
// in words. It is the one declaration of a fork's edge on every wire
// (REST's new fork, the fork trees of REST and the session).
type Edge struct {
	Parent string `json:"parent"`
	Step   int    `json:"step"`
	Choice int    `json:"choice"`
	Option int    `json:"option"`
	Text   string `json:"text"`
}

// Branch is one edge of the what-if tree with the spec of the run it
// leads to.
type Branch struct {
	Edge
	Spec scenario.RunSpec `json:"spec"`
}

// Fork returns the spec of the run that makes the same choices as this one
// up to the choice-th decision at step i (the index into Alternatives(i)),
// takes option there instead, and continues from the seed.
func (tl *Timeline) Fork(i, choice, option int) (scenario.RunSpec, error) {
	b, err := tl.Branch(i, choice, option)
	return b.Spec, err
}

// Branch is Fork with the tree edge: the parent run and the fork point.
// Record the returned spec with Options{Parent: &b} to keep the tree.
func (tl *Timeline) Branch(i, choice, option int) (Branch, error) {
	alts, err := tl.Alternatives(i)
	if err != nil {
		return Branch{}, err
	}
	if choice < 0 || choice >= len(alts) {
		if len(alts) == 0 {
			return Branch{}, fmt.Errorf("%w: step %d made no choice with several options", ErrChoice, i)
		}
		return Branch{}, fmt.Errorf("%w: choice %d at step %d is outside [0, %d]", ErrChoice, choice, i, len(alts)-1)
	}
	a := alts[choice]
	if option < 0 || option >= a.N {
		return Branch{}, fmt.Errorf("%w: option %d of %q at step %d is outside [0, %d]", ErrChoice, option, a.Label, i, a.N-1)
	}
	if option == a.Picked {
		return Branch{}, fmt.Errorf("%w: option %d of %q at step %d is the one the run took", ErrChoice, option, a.Label, i)
	}
	spec := tl.spec
	spec.Params = maps.Clone(tl.spec.Params)
	spec.Schedule = append(append(make([]int, 0, a.Choice+1), tl.schedule[:a.Choice]...), option)
	text := a.Label + " = option " + strconv.Itoa(option)
	if a.Domain != nil {
		text = a.Label + " = " + strconv.FormatFloat(a.Domain.Value(option), 'g', 6, 64) + " " + a.Domain.Unit
	}
	for _, o := range a.Options {
		if o.Index == option {
			text = o.Text
		}
	}
	return Branch{Edge: Edge{Parent: tl.id, Step: i, Choice: a.Choice, Option: option, Text: text}, Spec: spec}, nil
}
