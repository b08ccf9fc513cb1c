package sim

import (
	"fmt"
	"reflect"
	"strings"
)

// Capabilities declares, in one typed place, what a model of type M
// offers beyond Model. Every field is optional: nil means not offered.
// A model fills it with method expressions, so that the compiler checks
// each name and signature:
//
//	var offers = sim.Capabilities[*Model]{
//		Restart:  (*Model).Restart,
//		Describe: (*Model).Describe,
//	}
//
// and its scenario registers offers.Erase(). The kernel and the explorers
// read a model's capabilities only from here (World.Capabilities); a
// model registered without a declaration has its optional methods of the
// deprecated interfaces translated into one (see legacy.go).
type Capabilities[M Model] struct {
	// Restart resets node n's volatile state after a crash and schedules
	// its first events again. Without it, restarting a node fails the run.
	Restart func(m M, w *World, n NodeID)
	// Describe says, in the model's words, what a pending event would do
	// if it ran next ("poller takes streamMu"), for the list of
	// alternatives at a choice point.
	Describe func(m M, w *World, ev *Event) string
	// ProcLabel names process p by what it does now ("unsubscribe(c2)")
	// in deadlock reports; an empty label falls back to the name.
	ProcLabel func(m M, w *World, p ProcID) string
	// View is a display-ready view of the model's state.
	View func(m M, w *World) View
	// CloneInto makes dst an independent deep copy of m, reusing dst's
	// memory, and returns it, or returns nil when dst is not a copy of
	// the model (the kernel then calls Clone): the explorers copy worlds
	// at every transition, and a model that recycles saves them an
	// allocation per slice it owns.
	CloneInto func(m M, dst Model) Model

	// AppendState appends the model's state to buf for the state codec
	// (Codec) in place of its reflective default; DecodeState, called on
	// a Clone of the codec's template model, makes it the state that
	// AppendState wrote, which is all of b, and returns an error for bad
	// bytes (never panics). They go together.
	AppendState func(m M, buf []byte) ([]byte, error)
	DecodeState func(m M, b []byte) error
	// PayloadTypes lists one value of each type a message payload (or a
	// model field of interface type) may hold: an encoded state names a
	// payload's type by its place among them, sorted by type name. A
	// model that sends messages needs it for the codec.
	PayloadTypes func(m M) []any

	// Symmetries lists permutations of interchangeable processes and
	// mutexes (the identity not needed) that map every behaviour to a
	// behaviour and the searched properties to themselves; with the
	// symmetry reduction on, bfs and dfs store each state once per orbit.
	// It needs HashPermuted.
	Symmetries func(m M, w *World) []Permutation
	// HashPermuted folds the model's state as it is after renaming by p
	// (nil: the identity).
	HashPermuted func(m M, h *Hasher, p *Permutation)
	// ProcSignature is what of the state belongs to process p alone
	// (values a renaming moves with the process): fewer renamings tie for
	// the least signature vector and fewer are hashed. Needs Symmetries.
	ProcSignature func(m M, w *World, p ProcID) uint64

	// SharesUnlockedState says whether the model's threads share state
	// outside the kernel's mutexes. The sleep-set and partial-order
	// reductions assume steps of different threads on different mutexes
	// commute, which holds only when it returns false; nil is taken as
	// sharing (a model that forgets loses speed, never a counterexample).
	SharesUnlockedState func(m M) bool
	// Accesses names, as bits (at most 64 variables), the shared model
	// variables the next step of thread p may read and write (a superset
	// is sound); ok false means it cannot say. With it the reductions
	// apply to a model that shares state outside mutexes.
	Accesses func(m M, w *World, p ProcID) (reads, writes uint64, ok bool)
	// MayTouch lists the mutexes process p may still lock or unlock (a
	// superset is fine): the partial-order reduction then computes
	// stubborn sets.
	MayTouch func(m M, w *World, p ProcID) []MutexID

	// Logs declares how logged executions of real programs map to the
	// model (see LogMap), for validating a log against it; the first is
	// the default.
	Logs []LogMap[M]

	// accepts reports whether a model is of the declared type; set by
	// Erase (nil: any model, a declaration of M = Model).
	accepts func(Model) bool
	// model names M, for the error when a declaration meets a model of
	// another type.
	model string
}

// Erase is c for any model: the form a scenario registers and the kernel
// reads. Each function asserts its model to M; World refuses a model of
// another type when it is built, so none of them can fail later.
func (c Capabilities[M]) Erase() *Capabilities[Model] {
	var zero M
	e := &Capabilities[Model]{
		accepts: func(m Model) bool { _, ok := m.(M); return ok },
		model:   fmt.Sprintf("%T", zero),
	}
	if f := c.Restart; f != nil {
		e.Restart = func(m Model, w *World, n NodeID) { f(m.(M), w, n) }
	}
	if f := c.Describe; f != nil {
		e.Describe = func(m Model, w *World, ev *Event) string { return f(m.(M), w, ev) }
	}
	if f := c.ProcLabel; f != nil {
		e.ProcLabel = func(m Model, w *World, p ProcID) string { return f(m.(M), w, p) }
	}
	if f := c.View; f != nil {
		e.View = func(m Model, w *World) View { return f(m.(M), w) }
	}
	if f := c.CloneInto; f != nil {
		e.CloneInto = func(m, dst Model) Model { return f(m.(M), dst) }
	}
	if f := c.AppendState; f != nil {
		e.AppendState = func(m Model, buf []byte) ([]byte, error) { return f(m.(M), buf) }
	}
	if f := c.DecodeState; f != nil {
		e.DecodeState = func(m Model, b []byte) error { return f(m.(M), b) }
	}
	if f := c.PayloadTypes; f != nil {
		e.PayloadTypes = func(m Model) []any { return f(m.(M)) }
	}
	if f := c.Symmetries; f != nil {
		e.Symmetries = func(m Model, w *World) []Permutation { return f(m.(M), w) }
	}
	if f := c.HashPermuted; f != nil {
		e.HashPermuted = func(m Model, h *Hasher, p *Permutation) { f(m.(M), h, p) }
	}
	if f := c.ProcSignature; f != nil {
		e.ProcSignature = func(m Model, w *World, p ProcID) uint64 { return f(m.(M), w, p) }
	}
	if f := c.SharesUnlockedState; f != nil {
		e.SharesUnlockedState = func(m Model) bool { return f(m.(M)) }
	}
	if f := c.Accesses; f != nil {
		e.Accesses = func(m Model, w *World, p ProcID) (uint64, uint64, bool) { return f(m.(M), w, p) }
	}
	if f := c.MayTouch; f != nil {
		e.MayTouch = func(m Model, w *World, p ProcID) []MutexID { return f(m.(M), w, p) }
	}
	for _, l := range c.Logs {
		e.Logs = append(e.Logs, l.Erase())
	}
	return e
}

// Check reports a declaration whose parts do not go together.
func (c *Capabilities[M]) Check() error {
	switch {
	case (c.Symmetries == nil) != (c.HashPermuted == nil):
		return fmt.Errorf("sim: capabilities of %s: Symmetries and HashPermuted go together", c.model)
	case (c.AppendState == nil) != (c.DecodeState == nil):
		return fmt.Errorf("sim: capabilities of %s: AppendState and DecodeState go together", c.model)
	case c.ProcSignature != nil && c.Symmetries == nil:
		return fmt.Errorf("sim: capabilities of %s: ProcSignature needs Symmetries", c.model)
	}
	names := map[string]bool{}
	for i := range c.Logs {
		if err := c.Logs[i].Check(); err != nil {
			return fmt.Errorf("sim: capabilities of %s: %w", c.model, err)
		}
		if names[c.Logs[i].Name] {
			return fmt.Errorf("sim: capabilities of %s: log mapping %q declared twice", c.model, c.Logs[i].Name)
		}
		names[c.Logs[i].Name] = true
	}
	return nil
}

// Log is the log mapping of the given name ("" the first), and whether
// the model declares it.
func (c *Capabilities[M]) Log(name string) (*LogMap[M], bool) {
	for i := range c.Logs {
		if name == "" || c.Logs[i].Name == name {
			return &c.Logs[i], true
		}
	}
	return nil, false
}

// Offered names the capabilities offered (the fields set), in
// declaration order: what a test compares, and what a reader sees.
func (c *Capabilities[M]) Offered() []string {
	var out []string
	v := reflect.ValueOf(c).Elem()
	for i := range v.NumField() {
		if f := v.Type().Field(i); f.IsExported() && !v.Field(i).IsNil() {
			out = append(out, f.Name)
		}
	}
	return out
}

// String lists the capabilities offered.
func (c *Capabilities[M]) String() string { return strings.Join(c.Offered(), ", ") }

// fits panics when a declaration registered for one model type is given
// a model of another: a programming error every test of the scenario
// catches on its first world.
func (c *Capabilities[M]) fits(m Model) {
	if c.accepts != nil && !c.accepts(m) {
		panic(fmt.Sprintf("sim: capabilities declared for %s given a model of type %T", c.model, m))
	}
}
