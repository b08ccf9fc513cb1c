package conform

import (
	"errors"
	"fmt"

	"github.com/racetrack-sim/racetrack/core/ingest"
	"github.com/racetrack-sim/racetrack/core/scenario"
	"github.com/racetrack-sim/racetrack/core/sim"
)

// Options configure a validation.
type Options struct {
	// Mapping names the model's log mapping (sim.LogMap.Name); "" takes
	// the model's first, Identity the model's own names.
	Mapping string
	// Format is the log's format, for errors naming its lines.
	Format ingest.Format
	// MaxStates bounds the distinct states the search stores
	// (0: DefaultMaxStates).
	MaxStates int
	// Seed, when set, is the seed of the run the log is: the model's
	// draws of more options than the search enumerates (a timed model's
	// latencies and durations) take that run's values, drawn from the
	// seed's stream as its chooser drew them; the schedule is still
	// searched. Without it, such a draw refuses the model (ErrUnsupported).
	Seed *uint64
	// MaxBytes bounds the worlds the search keeps, one a step of its
	// current path, at the scenario's estimate of a world (0:
	// DefaultMaxBytes): the path is at most MaxBytes / WorldBytes steps
	// deep, and a search cut there ends with StopBudget.
	MaxBytes int64
}

// DefaultMaxBytes is the path's memory when Options leaves MaxBytes 0.
const DefaultMaxBytes = 1 << 30

// DefaultMaxStates is the state budget when Options leaves it 0.
const DefaultMaxStates = 1 << 20

// MaxStatesLimit bounds what Options.MaxStates may ask for: the search
// keeps 8 bytes a state, and a world per step of its current path.
const MaxStatesLimit = 1 << 26

// ErrUnsupported is wrapped when the model cannot be validated against:
// it draws values (a timed model's durations), which the search would
// have to enumerate.
var ErrUnsupported = errors.New("conform: model not supported by validation")

// Validate checks whether the logged execution x is a behaviour of the
// model n names (scenario, preset, variant, parameters): the one entry
// point the server, the wasm engine and the command line call. A log
// that the mapping cannot bind is refused with an *ingest.Error naming
// its line and field; a mapping the model does not declare, or a bad
// option, with an error naming it.
func Validate(n scenario.Normal, x *ingest.Execution, opt Options) (*Verdict, error) {
	if opt.MaxStates < 0 || opt.MaxStates > MaxStatesLimit {
		return nil, &scenario.FieldError{Field: "maxStates", Msg: fmt.Sprintf("%d is not in [0, %d]", opt.MaxStates, MaxStatesLimit)}
	}
	if opt.MaxStates == 0 {
		opt.MaxStates = DefaultMaxStates
	}
	if opt.MaxBytes < 0 {
		return nil, &scenario.FieldError{Field: "maxBytes", Msg: fmt.Sprintf("%d is negative", opt.MaxBytes)}
	}
	if opt.MaxBytes == 0 {
		opt.MaxBytes = DefaultMaxBytes
	}
	worldBytes := max(n.Scenario().CostOf(scenario.Values(n.Spec().Params)).WorldBytes, 1)
	maxDepth := int(min(opt.MaxBytes/worldBytes, int64(opt.MaxStates)))
	if maxDepth < 1 {
		return nil, &scenario.FieldError{Field: "maxBytes", Msg: fmt.Sprintf("%d bytes hold no world of %d bytes", opt.MaxBytes, worldBytes)}
	}
	roots, rngs, err := roots(n, opt, opt.MaxStates)
	if err != nil {
		return nil, err
	}
	w := roots[0]
	lm, err := mappingOf(n.Scenario(), w, opt.Mapping)
	if err != nil {
		return nil, err
	}
	b, err := bind(x, opt.Format, lm, w)
	if err != nil {
		return nil, err
	}
	states := make([]state, len(roots))
	for k, r := range roots {
		states[k] = b.root(r, rngs[k])
	}
	return b.search(states, n.Scenario().ID, opt.MaxStates, maxDepth)
}

// roots builds the worlds the model's Init can make: one for each
// combination of the values its draws of few options take (the others
// from the seed), at most max of them.
func roots(n scenario.Normal, opt Options, max int) ([]*sim.World, []*sim.RandomChooser, error) {
	var worlds []*sim.World
	var rngs []*sim.RandomChooser
	var vals []int
	for {
		var rng *sim.RandomChooser
		if opt.Seed != nil {
			rng = sim.NewRandomChooser(*opt.Seed)
		}
		ch := newStepChooser(-1, vals, rng)
		w, err := n.WorldWith(ch, scenario.Options{})
		if err != nil {
			return nil, nil, err
		}
		if err := ch.refused(n.Scenario().ID, -1); err != nil {
			return nil, nil, err
		}
		if err := w.Err(); err != nil {
			return nil, nil, fmt.Errorf("conform: the model failed as it starts: %w", err)
		}
		worlds, rngs = append(worlds, w), append(rngs, rng)
		next, more := ch.values.Next()
		if !more {
			return worlds, rngs, nil
		}
		if len(worlds) >= max {
			return nil, nil, &scenario.FieldError{Field: "maxStates", Msg: fmt.Sprintf("the model's Init draws more than %d combinations of values", max)}
		}
		vals = next
	}
}

// Mapping names a log mapping a scenario's model offers, and says what
// logs it is for.
type Mapping struct {
	Name string `json:"name"`
	Help string `json:"help"`
}

// Mappings lists the log mappings of a scenario's model: those it
// declares, its default first, then Identity (what a client offers to
// choose from).
func Mappings(sc *scenario.Scenario) []Mapping {
	var out []Mapping
	if sc.Capabilities != nil {
		for _, l := range sc.Capabilities.Logs {
			out = append(out, Mapping{Name: l.Name, Help: l.Help})
		}
	}
	id := identity()
	return append(out, Mapping{Name: id.Name, Help: id.Help})
}

// mappingOf is the mapping of the given name for the scenario's model.
func mappingOf(sc *scenario.Scenario, w *sim.World, name string) (*sim.LogMap[sim.Model], error) {
	if name == Identity {
		return identity(), nil
	}
	caps := w.Capabilities()
	if lm, ok := caps.Log(name); ok {
		return lm, nil
	}
	var names []string
	for _, m := range Mappings(sc) {
		names = append(names, m.Name)
	}
	if name == "" {
		return nil, &scenario.FieldError{Field: "mapping", Msg: fmt.Sprintf("scenario %s declares no log mapping; %q maps the model's own exported runs", sc.ID, Identity)}
	}
	return nil, &scenario.FieldError{Field: "mapping", Msg: fmt.Sprintf("scenario %s has no log mapping %q; it has %v", sc.ID, name, names)}
}
