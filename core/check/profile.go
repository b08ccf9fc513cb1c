package check

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/racetrack-sim/racetrack/core/scenario"
	"github.com/racetrack-sim/racetrack/core/sim"
)

// Bounds of a state-space profile: every state it visits is replayed
// from the initial state and its view kept as hashes, so it is meant for
// a small bounded search, not a proof.
const (
	DefaultProfileStates = 20_000
	MaxProfileStates     = 200_000
)

// Profile is where a bounded breadth-first search found the state space
// to grow: which fields of the model's view and which processes take the
// most distinct values over the states it visited, and how many new
// states each depth added. An author abstracts the fields at the top (a
// counter that only grows, a log kept whole where its length would do)
// and bounds the processes at the top.
type Profile struct {
	Scenario, Preset, Variant string
	// States is the number of distinct states visited; Complete is true
	// when they are every state within the depth bound (the state budget
	// did not cut the search).
	States   int  `json:"states"`
	Complete bool `json:"complete"`
	// Cut is true when some state was left unexpanded at the depth bound.
	Cut bool `json:"cut"`
	// Levels is the number of new states at each depth (steps from the
	// initial state), Levels[0] being the initial state.
	Levels []int `json:"levels"`
	// Fields and Procs are ranked: most distinct values first, then by
	// name.
	Fields []FieldProfile `json:"fields"`
	Procs  []ProcProfile  `json:"procs"`
	// Violations counts visited states whose step violated a property
	// (the search goes on past them: a profile is not a verdict).
	Violations int `json:"violations"`
}

// FieldProfile is one field of the model's view (sim.Viewer): the group
// it is in, its name, and how many distinct values it took.
type FieldProfile struct {
	Group    string `json:"group"`
	Field    string `json:"field"`
	Distinct int    `json:"distinct"`
}

// ProcProfile is one process and how many distinct local states it took:
// its scheduling state (status, program counter, what it waits for) and
// the events pending for it (messages with their payloads, timers).
type ProcProfile struct {
	Proc     string `json:"proc"`
	Distinct int    `json:"distinct"`
}

// ProfileSearch runs a breadth-first search of cfg's preset (cfg.Strategy
// is ignored; no reduction is applied, so that every state is seen) for
// at most cfg.Budget.States states (DefaultProfileStates when 0, at most
// MaxProfileStates) and profiles the states it visits.
func ProfileSearch(reg *scenario.Registry, cfg Config) (Profile, error) {
	if cfg.Budget.States < 0 || cfg.Budget.States > MaxProfileStates {
		return Profile{}, fieldErr("budget.states", "is %d, outside [1, %d] for a profile (0: %d)", cfg.Budget.States, MaxProfileStates, DefaultProfileStates)
	}
	if cfg.Budget.States == 0 {
		cfg.Budget.States = DefaultProfileStates
	}
	cfg.Strategy, cfg.Reductions, cfg.Workers = BFS, Reductions{}, 0
	e, err := NewExpander(reg, cfg)
	if err != nil {
		return Profile{}, err
	}
	n := e.Config()
	pr := &profiler{fields: map[fieldKey]map[uint64]struct{}{}}
	p := Profile{Scenario: n.Scenario, Preset: n.Preset, Variant: n.Variant}
	root := e.Root()
	seen := map[uint64]struct{}{root.Key: {}}
	level := []BFSState{root}
	for len(level) > 0 && p.States < cfg.Budget.States {
		p.Levels = append(p.Levels, 0)
		var next []BFSState
		for _, s := range level {
			if p.States == cfg.Budget.States {
				break
			}
			w, err := e.rebuild(s)
			if err != nil {
				return Profile{}, err
			}
			p.States++
			p.Levels[len(p.Levels)-1]++
			pr.add(w)
			ex, err := e.Expand(s, func(c BFSState) {
				if _, ok := seen[c.Key]; !ok {
					seen[c.Key] = struct{}{}
					next = append(next, c)
				}
			})
			if err != nil {
				return Profile{}, err
			}
			p.Cut = p.Cut || ex.Cut
			if ex.Found != nil {
				p.Violations++
			}
		}
		level = next
	}
	p.Complete = len(level) == 0
	p.Fields, p.Procs = pr.ranked()
	return p, nil
}

// fieldKey names a field by its group's id: titles may repeat (two such
// fields rank by their counts; when those are equal too, the two lines
// read the same in either order).
type fieldKey struct{ id, title, field string }

// profiler collects the distinct values (as hashes) of every view field
// and every process's local state.
type profiler struct {
	fields    map[fieldKey]map[uint64]struct{}
	procs     []map[uint64]struct{}
	procNames []string
}

func (pr *profiler) add(w *sim.World) {
	if v, ok := w.Model().(sim.Viewer); ok {
		for _, g := range v.View(w).Groups {
			for _, f := range g.Fields {
				k := fieldKey{g.ID, g.Title, f.Name}
				if pr.fields[k] == nil {
					pr.fields[k] = map[uint64]struct{}{}
				}
				pr.fields[k][hashString(f.Value)] = struct{}{}
			}
		}
	}
	procs := w.Procs()
	if pr.procs == nil {
		pr.procs = make([]map[uint64]struct{}, len(procs))
		for i := range procs {
			pr.procs[i] = map[uint64]struct{}{}
			pr.procNames = append(pr.procNames, procs[i].Name)
		}
	}
	pending := w.Pending()
	for i := range procs {
		pr.procs[i][procState(&procs[i], pending)] = struct{}{}
	}
}

// procState hashes p's scheduling state and the events pending for it,
// as a multiset (their order in the queue is the path's, not the state's).
func procState(p *sim.Proc, pending []sim.Event) uint64 {
	h := sim.NewHasher()
	h.Int(int(p.Status))
	h.Int(p.PC)
	h.Int(int(p.BlockedOn))
	h.Int(int(p.WaitingOn))
	var events uint64
	for i := range pending {
		e := &pending[i]
		if e.Proc != p.ID {
			continue
		}
		eh := sim.NewHasher()
		eh.Int(int(e.Kind))
		eh.Int(int(e.From))
		eh.Int(e.Timer)
		eh.Int(int(e.Mutex))
		switch pl := e.Payload.(type) {
		case nil:
		case sim.Hashable:
			pl.HashInto(&eh)
		default:
			eh.String(fmt.Sprintf("%T%+v", pl, pl))
		}
		events += eh.Sum()
	}
	h.Uint64(events)
	return h.Sum()
}

func hashString(s string) uint64 {
	h := sim.NewHasher()
	h.String(s)
	return h.Sum()
}

func (pr *profiler) ranked() ([]FieldProfile, []ProcProfile) {
	fields := make([]FieldProfile, 0, len(pr.fields))
	for k, vals := range pr.fields {
		fields = append(fields, FieldProfile{Group: k.title, Field: k.field, Distinct: len(vals)})
	}
	slices.SortFunc(fields, func(a, b FieldProfile) int {
		return cmp.Or(cmp.Compare(b.Distinct, a.Distinct), strings.Compare(a.Group, b.Group), strings.Compare(a.Field, b.Field))
	})
	procs := make([]ProcProfile, len(pr.procs))
	for i, vals := range pr.procs {
		procs[i] = ProcProfile{Proc: pr.procNames[i], Distinct: len(vals)}
	}
	slices.SortStableFunc(procs, func(a, b ProcProfile) int { return cmp.Compare(b.Distinct, a.Distinct) })
	return fields, procs
}

// Text is the profile for a terminal: the growth by depth, then the top
// fields and processes (all of them when top <= 0).
func (p Profile) Text(top int) string {
	var b strings.Builder
	complete := "every state within the depth bound"
	if !p.Complete {
		complete = "stopped at the state budget"
	}
	b.WriteString(fmt.Sprintf("profile bfs %s/%s/%s: %d states (%s)\n", p.Scenario, p.Preset, p.Variant, p.States, complete))
	b.WriteString("  new states by depth:")
	for _, n := range p.Levels {
		b.WriteString(fmt.Sprintf(" %d", n))
	}
	b.WriteString("\n  fields by distinct values:\n")
	for i, f := range p.Fields {
		if top > 0 && i == top {
			break
		}
		b.WriteString(fmt.Sprintf("    %6d  %s: %s\n", f.Distinct, f.Group, f.Field))
	}
	b.WriteString("  processes by distinct local states:\n")
	for i, q := range p.Procs {
		if top > 0 && i == top {
			break
		}
		b.WriteString(fmt.Sprintf("    %6d  %s\n", q.Distinct, q.Proc))
	}
	return b.String()
}
