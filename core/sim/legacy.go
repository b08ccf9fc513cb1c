package sim

// The adapter from the optional interfaces a model implemented before
// Capabilities to a declaration. It is the one place a capability is
// found by type assertion: World calls it once, when it is built for a
// model registered without a declaration, and everything after reads the
// declaration. The interfaces stay so that models written against them
// keep compiling and behaving the same; each is deprecated in favour of
// the Capabilities field of the same name.
//
// The reductions' interfaces are declared in core/check (Symmetric,
// ProcSignatures, UnlockedSharing, SharedAccess, LockSets); their method
// sets are repeated here, unexported, because check imports sim. Go's
// interfaces are structural, so a model satisfying check.Symmetric
// satisfies symmetricModel, and the reverse.

// ModelRecycler is implemented by models that can copy their state into
// another copy of the same model, reusing its memory: CloneInto makes dst
// an independent deep copy of the model and returns it, or returns nil
// when dst is not of its type (the kernel then calls Clone). The
// explorers copy worlds at every transition; a model that recycles saves
// them an allocation per slice it owns.
//
// Deprecated: declare Capabilities.CloneInto instead.
type ModelRecycler interface {
	CloneInto(dst Model) Model
}

// Restarter is implemented by models whose nodes can crash: Restart resets
// the node's volatile state and schedules its first events again.
//
// Deprecated: declare Capabilities.Restart instead.
type Restarter interface {
	Restart(w *World, n NodeID)
}

// Describer is implemented by models that can say, in their own words,
// what a pending event would do if it ran next ("poller takes streamMu").
// It is used to list the alternatives at a choice point.
//
// Deprecated: declare Capabilities.Describe instead.
type Describer interface {
	Describe(w *World, ev *Event) string
}

// ProcLabeler is implemented by models whose threads run different
// functions over time: ProcLabel names process p by what it does now
// ("unsubscribe(c2)"), and the kernel's deadlock reports use it instead of
// the process name. An empty label falls back to the name.
//
// Deprecated: declare Capabilities.ProcLabel instead.
type ProcLabeler interface {
	ProcLabel(w *World, p ProcID) string
}

// Viewer is implemented by models that expose a display-ready view of
// their state.
//
// Deprecated: declare Capabilities.View instead.
type Viewer interface {
	View(w *World) View
}

type symmetricModel interface {
	Symmetries(w *World) []Permutation
	HashPermuted(h *Hasher, p *Permutation)
}

type procSignatures interface {
	ProcSignature(w *World, p ProcID) uint64
}

type unlockedSharing interface {
	SharesUnlockedState() bool
}

type sharedAccess interface {
	Accesses(w *World, p ProcID) (reads, writes uint64, ok bool)
}

type lockSets interface {
	MayTouch(w *World, p ProcID) []MutexID
}

type payloadLister interface {
	PayloadTypes() []any
}

// MethodCapabilities translates the deprecated optional interfaces m
// implements into a declaration: what World reads for a model registered
// without one. A test may compare it with a model's declaration to find
// a method left out of it.
func MethodCapabilities(m Model) *Capabilities[Model] {
	c := &Capabilities[Model]{}
	if _, ok := m.(Restarter); ok {
		c.Restart = func(m Model, w *World, n NodeID) { m.(Restarter).Restart(w, n) }
	}
	if _, ok := m.(Describer); ok {
		c.Describe = func(m Model, w *World, ev *Event) string { return m.(Describer).Describe(w, ev) }
	}
	if _, ok := m.(ProcLabeler); ok {
		c.ProcLabel = func(m Model, w *World, p ProcID) string { return m.(ProcLabeler).ProcLabel(w, p) }
	}
	if _, ok := m.(Viewer); ok {
		c.View = func(m Model, w *World) View { return m.(Viewer).View(w) }
	}
	if _, ok := m.(ModelRecycler); ok {
		c.CloneInto = func(m, dst Model) Model { return m.(ModelRecycler).CloneInto(dst) }
	}
	if _, ok := m.(payloadLister); ok {
		c.PayloadTypes = func(m Model) []any { return m.(payloadLister).PayloadTypes() }
	}
	if _, ok := m.(symmetricModel); ok {
		c.Symmetries = func(m Model, w *World) []Permutation { return m.(symmetricModel).Symmetries(w) }
		c.HashPermuted = func(m Model, h *Hasher, p *Permutation) { m.(symmetricModel).HashPermuted(h, p) }
		if _, ok := m.(procSignatures); ok {
			c.ProcSignature = func(m Model, w *World, p ProcID) uint64 { return m.(procSignatures).ProcSignature(w, p) }
		}
	}
	if _, ok := m.(unlockedSharing); ok {
		c.SharesUnlockedState = func(m Model) bool { return m.(unlockedSharing).SharesUnlockedState() }
	}
	if _, ok := m.(sharedAccess); ok {
		c.Accesses = func(m Model, w *World, p ProcID) (uint64, uint64, bool) { return m.(sharedAccess).Accesses(w, p) }
	}
	if _, ok := m.(lockSets); ok {
		c.MayTouch = func(m Model, w *World, p ProcID) []MutexID { return m.(lockSets).MayTouch(w, p) }
	}
	return c
}
