package sim

// PropertyKind is the type of a property.
type PropertyKind uint8

// Property kinds.
const (
	KindAlways     PropertyKind = iota + 1 // safety: holds after every step
	KindEventually                         // liveness: an obligation is met within a deadline
	KindNoDeadlock                         // built in: no lock cycle, nothing stuck at the end
	KindSometimes                          // reachability: some step of some run reaches it
)

var propertyKindNames = [...]string{"", "always", "eventually", "no-deadlock", "sometimes"}

func (k PropertyKind) String() string { return propertyKindNames[k] }

// MarshalText makes kinds readable in JSON.
func (k PropertyKind) MarshalText() ([]byte, error) { return []byte(k.String()), nil }

// PropertyInfo is what a catalog says of a property.
type PropertyInfo struct {
	Name string       `json:"name"`
	Kind PropertyKind `json:"kind"`
	Help string       `json:"help"`
}

// Prop declares one property of models of type M. Its checks receive the
// state being checked, typed, so that a property cannot read a stale
// model by accident (a world may hold a clone of the model it was built
// with; the state passed in is always the world's own). Build props with
// Always, Eventually, Sometimes and NoDeadlock, list them in a Props.
type Prop[M Model] struct {
	PropertyInfo
	holds    func(w *World, m M) bool
	pending  func(w *World, m M) (bool, Time)
	deadline func(m M) Time
	explain  func(w *World, m M) string
	about    func(w *World, m M) []NodeID
}

// Always declares a safety property: holds must be true after every step;
// explain says in one line what is wrong when it is not.
func Always[M Model](name, help string, holds func(w *World, m M) bool, explain func(w *World, m M) string) Prop[M] {
	return Prop[M]{PropertyInfo: PropertyInfo{Name: name, Kind: KindAlways, Help: help}, holds: holds, explain: explain}
}

// Eventually declares a liveness property: pending reports whether an
// obligation is outstanding and since when; it is violated once it has
// been for longer than deadline (a function of the model's
// configuration), or when the run ends with it outstanding.
func Eventually[M Model](name, help string, deadline func(m M) Time, pending func(w *World, m M) (bool, Time), explain func(w *World, m M) string) Prop[M] {
	return Prop[M]{PropertyInfo: PropertyInfo{Name: name, Kind: KindEventually, Help: help}, deadline: deadline, pending: pending, explain: explain}
}

// Sometimes declares a reachability property: the first step after which
// reached is true is recorded (World.Reached), never as a violation. The
// checker reports it found or not found; a preset's Sometimes says the
// run can reach the situation its bug needs, so that a fixed variant that
// holds is not holding vacuously.
func Sometimes[M Model](name, help string, reached func(w *World, m M) bool, explain func(w *World, m M) string) Prop[M] {
	return Prop[M]{PropertyInfo: PropertyInfo{Name: name, Kind: KindSometimes, Help: help}, holds: reached, explain: explain}
}

// NoDeadlockHelp is the kernel's wording of the built-in property.
const NoDeadlockHelp = "no cycle of threads each holding a mutex the next one waits for, and no thread blocked forever once nothing else can run"

// NoDeadlockProp declares the built-in deadlock property for models of
// type M, with help in the model's words.
func NoDeadlockProp[M Model](help string) Prop[M] {
	return Prop[M]{PropertyInfo: PropertyInfo{Name: NoDeadlockName, Kind: KindNoDeadlock, Help: help}}
}

// Props is a model's list of properties, declared once: the kernel checks
// Of(m) and the catalog lists Info().
type Props[M Model] []Prop[M]

// Info lists the properties for a catalog.
func (ps Props[M]) Info() []PropertyInfo {
	out := make([]PropertyInfo, len(ps))
	for i := range ps {
		out[i] = ps[i].PropertyInfo
	}
	return out
}

// Of binds the properties for a world of model m: deadlines come from m's
// configuration, and every check reads the world's current model.
func (ps Props[M]) Of(m M) []Property {
	out := make([]Property, len(ps))
	for i := range ps {
		p := &ps[i]
		pr := Property{Name: p.Name, Kind: p.Kind, Help: p.Help}
		if p.deadline != nil {
			pr.Deadline = p.deadline(m)
		}
		if f := p.holds; f != nil {
			pr.holds = func(w *World) bool { return f(w, w.model.(M)) }
		}
		if f := p.pending; f != nil {
			pr.pending = func(w *World) (bool, Time) { return f(w, w.model.(M)) }
		}
		if f := p.explain; f != nil {
			pr.explain = func(w *World) string { return f(w, w.model.(M)) }
		}
		if f := p.about; f != nil {
			pr.about = func(w *World) []NodeID { return f(w, w.model.(M)) }
		}
		out[i] = pr
	}
	return out
}

// Property is a property bound to a world, as the kernel checks it. It is
// made by Props.Of (or NoDeadlock), never by hand.
type Property struct {
	Name string
	Kind PropertyKind
	Help string
	// Deadline (Eventually) is how long an obligation may be outstanding.
	Deadline Time
	holds    func(w *World) bool
	pending  func(w *World) (bool, Time)
	explain  func(w *World) string
	about    func(w *World) []NodeID
}

// Info is the property's catalog entry.
func (p *Property) Info() PropertyInfo { return PropertyInfo{Name: p.Name, Kind: p.Kind, Help: p.Help} }

// Pending reports, for an Eventually property, whether its obligation is
// outstanding in w and since when (false for other kinds).
func (p *Property) Pending(w *World) (bool, Time) {
	if p.pending == nil {
		return false, 0
	}
	return p.pending(w)
}

func (p *Property) explainIn(w *World) string {
	if p.explain == nil {
		return p.Name
	}
	return p.explain(w)
}

// NoDeadlockName is the name of the built-in deadlock property.
const NoDeadlockName = "no-deadlock"

// NoDeadlock is the built-in property: no cycle in the wait-for graph, and
// no thread left blocked when nothing else can run.
func NoDeadlock() Property {
	return Property{Name: NoDeadlockName, Kind: KindNoDeadlock, Help: NoDeadlockHelp}
}

// Violation is the first failure of a property in a run (or, in
// World.Reached, the first step that reached a Sometimes property).
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
			return w.violated[i] && w.props[i].Kind != KindSometimes
		}
	}
	return false
}

// Reached lists the Sometimes properties reached so far, each at the
// first step after which it held, in the order they were reached.
func (w *World) Reached() []Violation { return w.reached }

func (w *World) check() {
	for i := range w.props {
		if w.violated[i] {
			continue
		}
		pr := &w.props[i]
		switch pr.Kind {
		case KindAlways:
			if !pr.holds(w) {
				w.violate(i, pr.explainIn(w))
			}
		case KindEventually:
			if pending, since := pr.Pending(w); pending && w.now-since > pr.Deadline {
				w.violate(i, pr.explainIn(w))
			}
		case KindSometimes:
			if pr.holds(w) {
				w.violated[i] = true
				w.reached = append(w.reached, w.firstAt(i, pr.explainIn(w)))
			}
		}
	}
}

func (w *World) firstAt(i int, msg string) Violation {
	step := w.steps - 1
	if step < 0 {
		step = 0
	}
	return Violation{Property: w.props[i].Name, Step: step, Time: w.now, Seed: w.seed, Message: msg}
}

func (w *World) violate(i int, msg string) {
	w.violated[i] = true
	w.violations = append(w.violations, w.firstAt(i, msg))
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
