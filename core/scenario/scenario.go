package scenario

import (
	"fmt"
	"sort"

	"github.com/racetrack-sim/racetrack/core/sim"
)

// Link points to upstream material: an issue, a fix, a file.
type Link struct {
	Title string `json:"title"`
	URL   string `json:"url"`
}

// Variant is one version of the modelled code (buggy, fixed, ...), as
// the catalog lists it. A model declares its variants as VariantOf, whose
// ids are typed constants.
type Variant struct {
	ID    string `json:"id"`
	Title string `json:"title"`
	Help  string `json:"help"`
}

// Preset is a named configuration: parameter values over the defaults, and
// the budget a run of it needs.
type Preset struct {
	ID    string `json:"id"`
	Title string `json:"title"`
	Story string `json:"story"`
	// Params are the values the preset sets, by parameter name. Fill it
	// with Set, which names them by the fields of the model's params
	// struct, so that the compiler checks each name and type; a map
	// literal (map[string]any{"clients": 2}) still works, is checked only
	// when the registry is built, and is deprecated.
	Params map[string]any `json:"params"`
	// MaxTime (ms) and MaxSteps are the default budgets of a run.
	MaxTime  float64 `json:"maxTime"`
	MaxSteps int     `json:"maxSteps"`
	// Property is the property this preset is built to show failing.
	Property string `json:"property,omitempty"`
	// Reach is the Sometimes property that says a run of this preset
	// reaches the situation its bug needs; every variant must reach it
	// (core/modeltest checks), so that a fix that holds does not hold
	// vacuously.
	Reach string `json:"reach,omitempty"`
	// Unfixed, when set, says why the fixed variant still violates
	// Property on this preset: a behaviour upstream's fix has too (the
	// model's documentation gives the evidence). Checks that expect
	// fixed variants to hold skip such a preset.
	Unfixed string `json:"unfixed,omitempty"`
}

// PropertyInfo describes a property for the catalog. A model declares
// its properties once (sim.Props) and fills Scenario.Properties with
// their Info.
type PropertyInfo = sim.PropertyInfo

// Scenario is one model with its schema.
type Scenario struct {
	ID       string    `json:"id"`
	Title    string    `json:"title"`
	Summary  string    `json:"summary"`
	Story    string    `json:"story"`
	Links    []Link    `json:"links"`
	Variants []Variant `json:"variants"`
	Presets  []Preset  `json:"presets"`
	Params   []Param   `json:"params"`
	// Rules relate parameters; a spec that breaks one is refused.
	Rules      []Rule         `json:"rules,omitempty"`
	Properties []PropertyInfo `json:"properties"`
	// Cost estimates the memory of one world of normalised parameters
	// (nil: a generous default).
	Cost func(v Values) Cost `json:"-"`
	// New builds the model for a variant and normalised parameters.
	New func(variant string, v Values) (sim.Model, error) `json:"-"`
	// Capabilities is what the model offers beyond sim.Model, declared
	// once (sim.Capabilities[M].Erase()). Nil: the deprecated optional
	// interfaces the model implements are found from its methods.
	Capabilities *sim.Capabilities[sim.Model] `json:"-"`
}

// DefaultVariant is the first variant (by convention the buggy one).
func (s *Scenario) DefaultVariant() string { return s.Variants[0].ID }

// DefaultPreset is the first preset.
func (s *Scenario) DefaultPreset() *Preset { return &s.Presets[0] }

// Preset finds a preset by id.
func (s *Scenario) Preset(id string) (*Preset, bool) {
	for i := range s.Presets {
		if s.Presets[i].ID == id {
			return &s.Presets[i], true
		}
	}
	return nil, false
}

// HasVariant reports whether id names a variant.
func (s *Scenario) HasVariant(id string) bool {
	for _, v := range s.Variants {
		if v.ID == id {
			return true
		}
	}
	return false
}

// Param finds a parameter by name.
func (s *Scenario) Param(name string) (*Param, bool) {
	for i := range s.Params {
		if s.Params[i].Name == name {
			return &s.Params[i], true
		}
	}
	return nil, false
}

func (s *Scenario) variantIDs() []string {
	ids := make([]string, len(s.Variants))
	for i, v := range s.Variants {
		ids[i] = v.ID
	}
	return ids
}

func (s *Scenario) presetIDs() []string {
	ids := make([]string, len(s.Presets))
	for i, p := range s.Presets {
		ids[i] = p.ID
	}
	return ids
}

// validate checks a scenario definition (a programming error if wrong).
func (s *Scenario) validate() error {
	if s.ID == "" || len(s.Variants) == 0 || len(s.Presets) == 0 || s.New == nil {
		return fmt.Errorf("scenario %q: needs an id, variants, presets and New", s.ID)
	}
	if s.Capabilities != nil {
		if err := s.Capabilities.Check(); err != nil {
			return fmt.Errorf("scenario %q: %w", s.ID, err)
		}
	}
	for i := range s.Params {
		p := &s.Params[i]
		if _, err := p.normalize(p.Default); err != nil {
			return fmt.Errorf("scenario %q: default of %s %v", s.ID, p.Name, err)
		}
	}
	for _, pr := range s.Presets {
		for _, k := range sortedKeys(pr.Params) {
			p, ok := s.Param(k)
			if !ok {
				return fmt.Errorf("scenario %q preset %q: unknown parameter %q", s.ID, pr.ID, k)
			}
			if _, err := p.normalize(pr.Params[k]); err != nil {
				return fmt.Errorf("scenario %q preset %q: %s %v", s.ID, pr.ID, k, err)
			}
		}
		if pr.MaxTime <= 0 || pr.MaxSteps <= 0 || pr.MaxTime > MaxTimeCap || pr.MaxSteps > MaxStepsCap {
			return fmt.Errorf("scenario %q preset %q: budgets out of range", s.ID, pr.ID)
		}
	}
	return s.validateRules()
}

// Registry is a catalog of scenarios, in id order.
type Registry struct {
	list []*Scenario
	byID map[string]*Scenario
}

// NewRegistry builds a registry; it panics on a malformed scenario, which
// is a programming error caught by every test.
func NewRegistry(scenarios ...*Scenario) *Registry {
	r := &Registry{byID: map[string]*Scenario{}}
	for _, s := range scenarios {
		if err := s.validate(); err != nil {
			panic(err)
		}
		if _, dup := r.byID[s.ID]; dup {
			panic("scenario: duplicate id " + s.ID)
		}
		r.byID[s.ID] = s
		r.list = append(r.list, s)
	}
	sort.Slice(r.list, func(i, j int) bool { return r.list[i].ID < r.list[j].ID })
	return r
}

// List returns the scenarios in id order.
func (r *Registry) List() []*Scenario { return r.list }

// Lookup finds a scenario.
func (r *Registry) Lookup(id string) (*Scenario, bool) {
	s, ok := r.byID[id]
	return s, ok
}

func (r *Registry) ids() []string {
	ids := make([]string, len(r.list))
	for i, s := range r.list {
		ids[i] = s.ID
	}
	return ids
}
