package sim

// PropertyKind is the type of a property.
type PropertyKind uint8

// Property kinds.
const (
	KindAlways     PropertyKind = iota + 1 // safety: holds after every step
	KindEventually                         // liveness: an obligation is met within a deadline
	KindNoDeadlock                         // built in: no lock cycle, nothing stuck at the end
)

var propertyKindNames = [...]string{"", "always", "eventually", "no-deadlock"}

func (k PropertyKind) String() string { return propertyKindNames[k] }

// MarshalText makes kinds readable in JSON.
func (k PropertyKind) MarshalText() ([]byte, error) { return []byte(k.String()), nil }

// Property is a named check on the world state.
type Property struct {
	Name string
	Kind PropertyKind
	Help string
	// Holds (Always) reports whether the property holds now.
	Holds func(w *World) bool
	// Pending (Eventually) reports whether an obligation is outstanding
	// and since when; it is violated once it has been for longer than
	// Deadline.
	Pending  func(w *World) (bool, Time)
	Deadline Time
	// Explain says in one line what is wrong, evaluated at the violation.
	Explain func(w *World) string
}

// Always builds a safety property.
func Always(name, help string, holds func(*World) bool, explain func(*World) string) Property {
	return Property{Name: name, Kind: KindAlways, Help: help, Holds: holds, Explain: explain}
}

// Eventually builds a liveness property with a deadline in virtual time.
func Eventually(name, help string, deadline Time, pending func(*World) (bool, Time), explain func(*World) string) Property {
	return Property{Name: name, Kind: KindEventually, Help: help, Deadline: deadline, Pending: pending, Explain: explain}
}

// NoDeadlockName is the name of the built-in deadlock property.
const NoDeadlockName = "no-deadlock"

// NoDeadlock is the built-in property: no cycle in the wait-for graph, and
// no thread left blocked when nothing else can run.
func NoDeadlock() Property {
	return Property{Name: NoDeadlockName, Kind: KindNoDeadlock,
		Help: "no cycle of threads each holding a mutex the next one waits for, and no thread blocked forever once nothing else can run"}
}

// Violation is the first failure of a property in a run.
type Violation struct {
	Property string `json:"property"`
	Step     int    `json:"step"`
	Time     Time   `json:"time"`
	Seed     uint64 `json:"seed"`
	Message  string `json:"message"`
}

// Violated reports whether the named property has failed.
func (w *World) Violated(name string) bool {
	for i := range w.props {
		if w.props[i].Name == name {
			return w.violated[i]
		}
	}
	return false
}

func (w *World) check() {
	for i := range w.props {
		if w.violated[i] {
			continue
		}
		pr := &w.props[i]
		switch pr.Kind {
		case KindAlways:
			if !pr.Holds(w) {
				w.violate(i, pr.Explain(w))
			}
		case KindEventually:
			if pending, since := pr.Pending(w); pending && w.now-since > pr.Deadline {
				w.violate(i, pr.Explain(w))
			}
		}
	}
}

func (w *World) violate(i int, msg string) {
	w.violated[i] = true
	step := w.steps - 1
	if step < 0 {
		step = 0
	}
	w.violations = append(w.violations, Violation{Property: w.props[i].Name, Step: step, Time: w.now, Seed: w.seed, Message: msg})
}

// violateDeadlock records a lock cycle found at the current step.
func (w *World) violateDeadlock(msg string) {
	for i := range w.props {
		if w.props[i].Kind == KindNoDeadlock && !w.violated[i] {
			w.violated[i] = true
			w.violations = append(w.violations, Violation{Property: w.props[i].Name, Step: w.steps, Time: w.now, Seed: w.seed, Message: msg})
		}
	}
}
