package timeline

import (
	"fmt"
	"maps"
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
	// Options lists every option of an event choice, and of a value
	// choice with at most MaxValueOptions options.
	Options []Option `json:"options"`
}

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
				if w, err = tl.worldAt(i); err != nil {
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
			if a.N <= MaxValueOptions {
				for j := 0; j < a.N; j++ {
					a.Options = append(a.Options, Option{Index: j, Picked: j == a.Picked, Proc: sim.None,
						Text: c.Label + " = option " + strconv.Itoa(j) + " of " + strconv.Itoa(a.N)})
				}
			}
		}
		out = append(out, a)
	}
	return out, nil
}

// describe says what a ready event would do: in the model's words when it
// is a sim.Describer, else in the kernel's.
func describe(w *sim.World, ev *sim.Event) string {
	if d, ok := w.Model().(sim.Describer); ok {
		if s := d.Describe(w, ev); s != "" {
			return s
		}
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
		return name + " gets " + w.Mutex(ev.Mutex).Name
	}
	return name + " takes its next step"
}

// Branch is one edge of the what-if tree: a run forked from Parent by
// taking Option instead of the recorded pick at choice Choice (made at
// step Step).
type Branch struct {
	Parent string           `json:"parent"`
	Step   int              `json:"step"`
	Choice int              `json:"choice"`
	Option int              `json:"option"`
	Text   string           `json:"text"`
	Spec   scenario.RunSpec `json:"spec"`
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
	if option < len(a.Options) {
		text = a.Options[option].Text
	}
	return Branch{Parent: tl.id, Step: i, Choice: a.Choice, Option: option, Text: text, Spec: spec}, nil
}
