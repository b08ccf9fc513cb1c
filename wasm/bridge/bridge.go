// Package bridge is the browser engine's logic behind the js/wasm entry
// point: named methods that take JSON arguments and return JSON (or raw
// export bytes), over a small cache of recorded timelines. It has no
// syscall/js in it, so it builds and is tested natively; wasm/main.go only
// carries bytes across the JavaScript boundary.
package bridge

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"sort"

	"github.com/racetrack-sim/racetrack/core/scenario"
	"github.com/racetrack-sim/racetrack/core/timeline"
)

// Sentinel errors.
var (
	// ErrMethod names a method the bridge does not have.
	ErrMethod = errors.New("bridge: unknown method")
	// ErrArgs is wrapped by errors about malformed arguments.
	ErrArgs = errors.New("bridge: bad arguments")
	// ErrNoRun means the run id is not loaded (never run here, or evicted).
	ErrNoRun = errors.New("bridge: run not loaded")
)

// maxRuns bounds the timelines kept in memory; the oldest is dropped.
const maxRuns = 24

// snapshotEvery is the timelines' snapshot interval: a seek replays fewer
// than this many steps, which keeps stepping through a long run in the
// single-threaded worker quick.
const snapshotEvery = 256

// Bridge answers the page's calls.
type Bridge struct {
	reg   *scenario.Registry
	runs  map[string]*timeline.Timeline
	order []string // least recently used first
}

// New returns a bridge over a registry.
func New(reg *scenario.Registry) *Bridge {
	return &Bridge{reg: reg, runs: map[string]*timeline.Timeline{}}
}

// Raw is a result that crosses the boundary as bytes, not JSON text.
type Raw []byte

// Call runs a method that needs no progress reporting. The result is JSON
// unless it is Raw.
func (b *Bridge) Call(method string, args []byte) (any, error) {
	switch method {
	case "scenarios":
		return b.reg.List(), nil
	case "run":
		var a struct {
			Spec json.RawMessage `json:"spec"`
		}
		if err := decodeArgs(args, &a); err != nil {
			return nil, err
		}
		return b.run(a.Spec)
	case "steps":
		return withRun(b, args, func(tl *timeline.Timeline, a runArgs) (any, error) { return steps(tl, a) })
	case "state":
		return withRun(b, args, func(tl *timeline.Timeline, a runArgs) (any, error) { return state(tl, a.Step) })
	case "alternatives":
		return withRun(b, args, func(tl *timeline.Timeline, a runArgs) (any, error) { return alternatives(tl, a.Step) })
	case "slice":
		return withRun(b, args, func(tl *timeline.Timeline, a runArgs) (any, error) { return slice(tl, a.Step) })
	case "layout":
		return withRun(b, args, func(tl *timeline.Timeline, a runArgs) (any, error) { return layout(tl, a.From, a.To) })
	case "charts":
		return withRun(b, args, func(tl *timeline.Timeline, a runArgs) (any, error) { return charts(tl, a.Width) })
	case "export":
		return withRun(b, args, func(tl *timeline.Timeline, a runArgs) (any, error) { return exportRun(tl, a.Format) })
	case "compare":
		var a struct {
			A string `json:"a"`
			B string `json:"b"`
		}
		if err := decodeArgs(args, &a); err != nil {
			return nil, err
		}
		ta, err := b.lookup(a.A)
		if err != nil {
			return nil, err
		}
		tb, err := b.lookup(a.B)
		if err != nil {
			return nil, err
		}
		return timeline.Compare(ta, tb), nil
	}
	return nil, fmt.Errorf("%w %q", ErrMethod, method)
}

// runArgs are the arguments of the per-run methods.
type runArgs struct {
	ID     string `json:"id"`
	Step   int    `json:"step"`
	From   int    `json:"from"`
	To     int    `json:"to"`
	Limit  int    `json:"limit"`
	Format string `json:"format"`
	// Width is the pixel width the page will paint at (charts).
	Width float64 `json:"width"`
}

func withRun(b *Bridge, args []byte, f func(*timeline.Timeline, runArgs) (any, error)) (any, error) {
	var a runArgs
	if err := decodeArgs(args, &a); err != nil {
		return nil, err
	}
	tl, err := b.lookup(a.ID)
	if err != nil {
		return nil, err
	}
	return f(tl, a)
}

func decodeArgs(args []byte, v any) error {
	if err := json.Unmarshal(args, v); err != nil {
		return fmt.Errorf("%w: %v", ErrArgs, err)
	}
	return nil
}

// run records a spec (or finds it cached) and returns its summary.
func (b *Bridge) run(raw json.RawMessage) (scenario.Summary, error) {
	if len(raw) == 0 {
		return scenario.Summary{}, &scenario.FieldError{Field: "body", Msg: "the run needs a spec"}
	}
	spec, err := scenario.DecodeRunSpec(raw)
	if err != nil {
		return scenario.Summary{}, err
	}
	ns, _, err := b.reg.Normalize(spec)
	if err != nil {
		return scenario.Summary{}, err
	}
	if tl, ok := b.runs[ns.ID()]; ok {
		b.touch(ns.ID())
		return tl.Summary(), nil
	}
	tl, err := timeline.Record(b.reg, ns, timeline.Options{SnapshotEvery: snapshotEvery})
	if err != nil {
		return scenario.Summary{}, err
	}
	b.keep(tl)
	return tl.Summary(), nil
}

func (b *Bridge) keep(tl *timeline.Timeline) {
	b.runs[tl.ID()] = tl
	b.touch(tl.ID())
	for len(b.order) > maxRuns {
		delete(b.runs, b.order[0])
		b.order = b.order[1:]
	}
}

func (b *Bridge) touch(id string) {
	for i, x := range b.order {
		if x == id {
			b.order = append(b.order[:i], b.order[i+1:]...)
			break
		}
	}
	b.order = append(b.order, id)
}

func (b *Bridge) lookup(id string) (*timeline.Timeline, error) {
	tl, ok := b.runs[id]
	if !ok {
		return nil, fmt.Errorf("%w: %q (run its spec again)", ErrNoRun, id)
	}
	b.touch(id)
	return tl, nil
}

// StepsPage is a page of steps.
type StepsPage struct {
	Total int                 `json:"total"`
	From  int                 `json:"from"`
	Steps []timeline.StepView `json:"steps"`
}

func steps(tl *timeline.Timeline, a runArgs) (StepsPage, error) {
	limit := a.Limit
	if limit <= 0 {
		limit = 1000
	}
	list, err := tl.Steps(a.From, limit)
	if err != nil {
		return StepsPage{}, err
	}
	return StepsPage{Total: tl.Len(), From: a.From, Steps: list}, nil
}

// State is the inspector's view of a step with the what-if options.
type State struct {
	timeline.StateView
	Alternatives []Alternative `json:"alternatives"`
}

func state(tl *timeline.Timeline, step int) (State, error) {
	sv, err := tl.StateAt(step)
	if err != nil {
		return State{}, err
	}
	alts, err := alternatives(tl, step)
	if err != nil {
		return State{}, err
	}
	return State{StateView: sv, Alternatives: alts}, nil
}

// Alternative is a decision at a step with, for every option not taken,
// the spec of the run that takes it.
type Alternative struct {
	timeline.Alternative
	Options []Option `json:"options"`
}

// Option is one option with its fork.
type Option struct {
	timeline.Option
	Spec *scenario.RunSpec `json:"spec,omitempty"`
}

func alternatives(tl *timeline.Timeline, step int) ([]Alternative, error) {
	alts, err := tl.Alternatives(step)
	if err != nil {
		return nil, err
	}
	out := make([]Alternative, 0, len(alts))
	for _, a := range alts {
		x := Alternative{Alternative: a, Options: make([]Option, 0, len(a.Options))}
		for _, o := range a.Options {
			opt := Option{Option: o}
			if !o.Picked {
				spec := forkSpec(tl, a.Choice, o.Index)
				opt.Spec = &spec
			}
			x.Options = append(x.Options, opt)
		}
		out = append(out, x)
	}
	return out, nil
}

// forkSpec is the spec timeline.Fork returns for option at the run's
// choice-th decision: the same choices up to it, then option, then the
// seed. It is built here from the alternatives already listed, because
// Fork lists them again (a replay) for every option.
func forkSpec(tl *timeline.Timeline, choice, option int) scenario.RunSpec {
	spec := tl.Spec()
	spec.Params = maps.Clone(spec.Params)
	spec.Schedule = append(append(make([]int, 0, choice+1), tl.Schedule()[:choice]...), option)
	return spec
}

// Slice is the causal past of a step, with the ways into every wait still
// open after it (timeline.StuckSlice), so a deadlock's slice holds its
// whole cycle.
type Slice struct {
	Step  int   `json:"step"`
	Steps []int `json:"steps"`
}

func slice(tl *timeline.Timeline, step int) (Slice, error) {
	s := tl.StuckSlice(step)
	if s == nil {
		return Slice{}, fmt.Errorf("%w: step %d is outside [0, %d)", timeline.ErrStepRange, step, tl.Len())
	}
	sort.Ints(s)
	return Slice{Step: step, Steps: s}, nil
}
