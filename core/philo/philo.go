// Package philo models the dining philosophers on the kernel's mutexes:
// the smallest complete Racetrack model, and the example of how to write
// one. N philosophers sit at a round table with a fork between each pair;
// each eats a number of meals, taking two forks for each. Variant buggy
// takes the left fork first (a cycle of waits is possible); variant fixed
// takes the lower-numbered fork first (a global lock order: no cycle).
package philo

import (
	"fmt"
	"strconv"

	"github.com/racetrack-sim/racetrack/core/scenario"
	"github.com/racetrack-sim/racetrack/core/sim"
)

// Program counter values of a philosopher thread.
const (
	pcThink = iota
	pcTakeFirst
	pcTakeSecond
	pcEat
	pcPutSecond
	pcPutFirst
	pcDone
)

// Table is the model state: the forks and the meals eaten so far.
type Table struct {
	n       int
	meals   int
	ordered bool
	think   sim.Time
	eat     sim.Time
	timed   bool

	Forks  []sim.MutexID
	Phils  []sim.ProcID
	Eaten  []int
	eatenS sim.SeriesID
	// The labels of taking and putting down each fork, made once: a
	// label built at each step would allocate in every search step.
	takeLabels, putLabels []string
}

// New builds a table of n philosophers who each eat meals times.
func New(n, meals int, ordered, timed bool, think, eat sim.Time) *Table {
	return &Table{n: n, meals: meals, ordered: ordered, timed: timed, think: think, eat: eat}
}

// forks returns the fork philosopher i takes first and second.
func (t *Table) forks(i int) (first, second int) {
	left, right := i, (i+1)%t.n
	if t.ordered && right < left {
		return right, left
	}
	return left, right
}

// Init sets the table.
func (t *Table) Init(w *sim.World) {
	w.SetUntimed(!t.timed)
	node := w.AddNode("table")
	for i := 0; i < t.n; i++ {
		t.Forks = append(t.Forks, w.AddMutex(node, "fork"+strconv.Itoa(i)))
		t.takeLabels = append(t.takeLabels, "take fork"+strconv.Itoa(i))
		t.putLabels = append(t.putLabels, "put fork"+strconv.Itoa(i))
	}
	for i := 0; i < t.n; i++ {
		t.Phils = append(t.Phils, w.AddThread(node, -1, "phil"+strconv.Itoa(i), 0))
	}
	t.Eaten = make([]int, t.n)
	t.eatenS = w.DefineSeries("meals eaten", "meals", "table")
}

// mealLabels are the labels of the first meals, made once: a search
// steps through millions of meals.
var mealLabels = func() (l [64]string) {
	for i := range l {
		l[i] = "eat meal " + strconv.Itoa(i)
	}
	return l
}()

func mealLabel(n int) string {
	if n >= 0 && n < len(mealLabels) {
		return mealLabels[n]
	}
	return "eat meal " + strconv.Itoa(n)
}

// philosopher is a philosopher's program: each step with what it does
// and how it reads, keyed by its program counter.
var philosopher = sim.Program[*Table]{
	pcThink: {In: "thinking", Says: "thinks", Do: func(t *Table, w *sim.World, p *sim.Proc) sim.Action {
		p.PC = pcTakeFirst
		return sim.Sleep(w.Between(0, t.think, sim.Millisecond, "think time"), "think")
	}},
	pcTakeFirst: {In: "hungry (wants first fork)", Describe: forkStep("takes", true), Do: func(t *Table, w *sim.World, p *sim.Proc) sim.Action {
		first, _ := t.forks(int(p.ID))
		p.PC = pcTakeSecond
		return sim.Lock(t.Forks[first], t.takeLabels[first])
	}},
	pcTakeSecond: {In: "hungry (wants second fork)", Describe: forkStep("takes", false), Do: func(t *Table, w *sim.World, p *sim.Proc) sim.Action {
		_, second := t.forks(int(p.ID))
		p.PC = pcEat
		return sim.Lock(t.Forks[second], t.takeLabels[second])
	}},
	pcEat: {In: "eating", Says: "eats", Do: func(t *Table, w *sim.World, p *sim.Proc) sim.Action {
		i := int(p.ID)
		p.PC = pcPutSecond
		t.Eaten[i]++
		w.Sample(t.eatenS, float64(t.total()))
		return sim.Local(mealLabel(t.Eaten[i]), t.eat)
	}},
	pcPutSecond: {In: "putting forks down", Describe: forkStep("puts", false), Do: func(t *Table, w *sim.World, p *sim.Proc) sim.Action {
		_, second := t.forks(int(p.ID))
		p.PC = pcPutFirst
		return sim.Unlock(t.Forks[second], t.putLabels[second])
	}},
	pcPutFirst: {In: "putting forks down", Describe: forkStep("puts", true), Do: func(t *Table, w *sim.World, p *sim.Proc) sim.Action {
		first, _ := t.forks(int(p.ID))
		p.PC = pcThink
		if t.Eaten[p.ID] == t.meals {
			p.PC = pcDone
		}
		return sim.Unlock(t.Forks[first], t.putLabels[first])
	}},
	pcDone: {In: "full", Says: "leaves", Do: func(*Table, *sim.World, *sim.Proc) sim.Action { return sim.Exit("full") }},
}

// forkStep describes taking or putting down a philosopher's first or
// second fork.
func forkStep(verb string, first bool) func(*Table, *sim.World, *sim.Proc, string) string {
	return func(t *Table, _ *sim.World, p *sim.Proc, who string) string {
		a, b := t.forks(int(p.ID))
		if !first {
			a = b
		}
		if verb == "puts" {
			return fmt.Sprintf("%s puts fork%d down", who, a)
		}
		return fmt.Sprintf("%s %s fork%d", who, verb, a)
	}
}

// Handle runs one step of philosopher p.
func (t *Table) Handle(w *sim.World, p *sim.Proc, _ *sim.Event) sim.Action {
	return philosopher.Run(t, w, p)
}

func (t *Table) total() int {
	s := 0
	for _, e := range t.Eaten {
		s += e
	}
	return s
}

// properties are the table's properties, declared once: the kernel checks
// them (Properties) and the catalog lists them (Scenario).
var properties = sim.Props[*Table]{
	sim.NoDeadlockProp[*Table]("no cycle of philosophers each holding the fork the next one waits for"),
	sim.Eventually("everyone-eats", "every philosopher eats all their meals",
		func(t *Table) sim.Time { return sim.Time(t.n*t.meals)*(t.think+t.eat+sim.Millisecond)*4 + sim.Second },
		func(_ *sim.World, t *Table) (bool, sim.Time) { return t.total() < t.n*t.meals, 0 },
		func(_ *sim.World, t *Table) string {
			return fmt.Sprintf("%d of %d meals eaten", t.total(), t.n*t.meals)
		}),
	sim.Sometimes("all-hungry", "every philosopher holds a fork or waits for one at the same time: the situation the deadlock needs",
		func(w *sim.World, t *Table) bool { return t.hungry(w) == t.n },
		func(w *sim.World, t *Table) string { return fmt.Sprintf("all %d philosophers are hungry at once", t.n) }),
}

// Properties: no deadlock, everyone eats all meals, and all can be hungry
// at once.
func (t *Table) Properties() []sim.Property { return properties.Of(t) }

// hungry counts the philosophers taking, holding or about to eat with
// their forks.
func (t *Table) hungry(w *sim.World) int {
	n := 0
	for _, pid := range t.Phils {
		if pc := w.Proc(pid).PC; pc == pcTakeSecond || pc == pcEat {
			n++
		}
	}
	return n
}

// Clone copies the table.
func (t *Table) Clone() sim.Model {
	c := *t
	c.Eaten = append([]int(nil), t.Eaten...)
	return &c
}

// CloneInto is Clone into dst's memory (sim.ModelRecycler).
func (t *Table) CloneInto(dst sim.Model) sim.Model {
	d, ok := dst.(*Table)
	if !ok || d == t {
		return nil
	}
	eaten := d.Eaten
	*d = *t
	d.Eaten = append(eaten[:0], t.Eaten...)
	return d
}

// Hash folds the meals eaten; forks and program counters are kernel state.
func (t *Table) Hash(h *sim.Hasher) {
	for _, e := range t.Eaten {
		h.Int(e)
	}
}

// Describe says what a pending step of a philosopher would do.
func (t *Table) Describe(w *sim.World, ev *sim.Event) string {
	p := w.Proc(ev.Proc)
	if ev.Kind == sim.EvAcquire {
		return fmt.Sprintf("%s gets %s", p.Name, w.Mutex(ev.Mutex).Name)
	}
	return philosopher.Describe(t, w, p, p.Name)
}

// View shows each philosopher and fork.
func (t *Table) View(w *sim.World) sim.View {
	var v sim.View
	for i, pid := range t.Phils {
		p := w.Proc(pid)
		state := philosopher.In(p.PC)
		if p.Status == sim.Blocked {
			state = "blocked on " + w.Mutex(p.BlockedOn).Name
		} else if p.Status == sim.Done {
			state = "full"
		}
		v.Groups = append(v.Groups, sim.Group{ID: p.Name, Title: p.Name, Node: p.Node, Fields: []sim.Field{
			{Name: "state", Value: state},
			{Name: "meals", Value: fmt.Sprintf("%d/%d", t.Eaten[i], t.meals)},
		}})
	}
	forks := sim.Group{ID: "forks", Title: "forks"}
	for _, f := range t.Forks {
		m := w.Mutex(f)
		forks.Fields = append(forks.Fields, sim.Field{Name: m.Name, Value: "held by " + w.ProcName(m.Holder)})
	}
	v.Groups = append(v.Groups, forks)
	return v
}

// Variant is a version of the table.
type Variant string

// The variants.
const (
	LeftFirst  Variant = "buggy"
	LowerFirst Variant = "fixed"
)

// Params are the table's parameters; the tags are their schema.
type Params struct {
	Philosophers int      `default:"5" min:"2" max:"12" help:"number of philosophers (and forks)"`
	Meals        int      `default:"3" min:"1" max:"100" help:"meals each philosopher eats"`
	Timed        bool     `default:"true" help:"timed: think and eat take time; untimed: every step is a scheduling choice"`
	ThinkTime    sim.Time `default:"20" min:"0" max:"10000" help:"longest think time; each is drawn uniformly from 0 to this, at 1 ms resolution"`
	EatTime      sim.Time `default:"5" min:"0" max:"10000" help:"time to eat a meal"`
}

// Scenario is the catalog entry of the dining philosophers.
func Scenario() *scenario.Scenario {
	return scenario.Model[*Table, Params, Variant]{
		ID:      "dining-philosophers",
		Title:   "Dining philosophers",
		Summary: "Five threads, five mutexes, one cycle of waits.",
		Story: "Each philosopher needs the two forks beside them to eat. If every philosopher picks up their left fork " +
			"at the same moment, each waits for ever for the right one: a cycle in the wait-for graph. Taking the " +
			"lower-numbered fork first imposes a global lock order and removes every cycle.",
		Links: []scenario.Link{{Title: "Dijkstra, Hierarchical ordering of sequential processes (EWD310)", URL: "https://www.cs.utexas.edu/users/EWD/ewd03xx/EWD310.PDF"}},
		Variants: []scenario.VariantOf[Variant]{
			{ID: LeftFirst, Title: "left fork first", Help: "every philosopher takes the left fork, then the right"},
			{ID: LowerFirst, Title: "lower fork first", Help: "every philosopher takes the lower-numbered fork first: a global lock order"},
		},
		Presets: []scenario.Preset{
			{ID: "table", Title: "Five philosophers, timed", Story: "Random think times; the deadlock needs all five to be hungry at once.",
				Params: scenario.Set(func(*Params) {}), MaxTime: 60_000, MaxSteps: 100_000, Property: sim.NoDeadlockName, Reach: "all-hungry"},
			{ID: "lock-level", Title: "Untimed interleavings", Story: "Every step is a scheduling choice: the configuration for exhaustive search.",
				Params: scenario.Set(func(p *Params) { p.Timed, p.Meals = false, 1 }), MaxTime: 60_000, MaxSteps: 100_000, Property: sim.NoDeadlockName, Reach: "all-hungry"},
		},
		Props:        properties,
		Capabilities: capabilities,
		Cost: func(p Params) scenario.Cost {
			return scenario.Cost{WorldBytes: 1536 + 300*int64(p.Philosophers)}
		},
		New: func(v Variant, p Params) (*Table, error) {
			return New(p.Philosophers, p.Meals, v == LowerFirst, p.Timed, p.ThinkTime, p.EatTime), nil
		},
	}.Scenario()
}
