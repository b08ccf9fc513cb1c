package session

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/racetrack-sim/racetrack/core/scenario"
	"github.com/racetrack-sim/racetrack/core/timeline"
)

// Limits bound what one session may ask for. Zero fields are unlimited
// (runs) or take the defaults noted.
type Limits struct {
	// MaxRunSteps bounds the steps of a run; 0: the catalog's own cap.
	MaxRunSteps int
	// MaxSearchStates, MaxSearchRuns and MaxSearchSeconds bound the budget
	// a search may ask for; 0: check's defaults, and DefaultSearchSeconds.
	MaxSearchStates  int
	MaxSearchRuns    int
	MaxSearchSeconds float64
	// MaxSearchWorkers bounds the workers (goroutines) a search may ask
	// for. 0 means 1: the transport steps searches on its own goroutine
	// (the wasm worker), and a request for more is refused naming
	// workers. A transport that allows more passes a Stepper pipe to
	// Serve, which runs the search's work on them.
	MaxSearchWorkers int
	// MaxCheckPathBytes bounds the worlds a check's search keeps along
	// its path (conform.Options.MaxBytes); 0: conform's default.
	MaxCheckPathBytes int64
}

// Config builds a Session.
type Config struct {
	Registry *scenario.Registry // required
	// Runs provides the timelines; nil: a Cache with its default bounds.
	Runs Runs
	// Traces keeps imported logs; nil: a TraceCache with its default
	// bounds.
	Traces Traces
	Limits Limits
}

// maxKnown bounds the runs (specs and fork edges) a session remembers;
// beyond it the oldest are forgotten and must be opened again.
const maxKnown = 4096

// Session is one person's debugging session: the runs they opened, the
// fork tree, the searches and the playback in flight. It is not safe for
// concurrent use: a transport serialises its calls.
type Session struct {
	reg    *scenario.Registry
	runs   Runs
	traces Traces
	limits Limits

	known map[string]*runInfo
	order []string // ids of known, oldest first
	// traceRuns are the imported executions opened (openTrace), by run
	// id; traceOrder holds them oldest first.
	traceRuns  map[string]bool
	traceOrder []string

	searches map[string]*Search
	player   *Player
	// cursor follows the person stepping through one run: the next step's
	// state costs a step, not a replay from the nearest snapshot.
	cursor *timeline.Cursor
}

// state is StateAt through the session's cursor.
func (s *Session) state(tl *timeline.Timeline, step int) (State, error) {
	c := s.cursorOn(tl)
	return stateWith(tl, step, c.Alternatives, c.StateAt)
}

func (s *Session) cursorOn(tl *timeline.Timeline) *timeline.Cursor {
	if s.cursor == nil || s.cursor.Timeline() != tl {
		s.cursor = tl.Cursor()
	}
	return s.cursor
}

// runInfo is what the session remembers of a run it opened.
type runInfo struct {
	spec       scenario.Normal
	parent     *timeline.Branch
	children   []string
	violations int
}

// New returns a session.
func New(cfg Config) *Session {
	runs := cfg.Runs
	if runs == nil {
		runs = NewCache(cfg.Registry, 0, 0)
	}
	traces := cfg.Traces
	if traces == nil {
		traces = NewTraceCache()
	}
	return &Session{reg: cfg.Registry, runs: runs, traces: traces, limits: cfg.Limits,
		known: map[string]*runInfo{}, traceRuns: map[string]bool{}, searches: map[string]*Search{}}
}

// Methods lists the methods Call answers, in the order of the package
// documentation's table.
var Methods = []string{"scenarios", "formats", "open", "openTrace", "check", "mappings", "steps", "find", "state", "alternatives", "fork", "forks",
	"compare", "slice", "layout", "charts", "export", "search", "cancel", "play", "pause"}

// Call runs one method. id is the caller's name for this call (the
// request id of the protocol): a search or a playback is known by it, so
// that "cancel" and "pause" can name it. The result is a value to encode
// as JSON, except for "search" (a *Search the transport steps) and
// "play" (a *Player the transport paces). Every error is an *Error.
func (s *Session) Call(id, method string, args json.RawMessage) (any, error) {
	v, err := s.call(id, method, args)
	if err != nil {
		return nil, AsError(err, "")
	}
	return v, nil
}

func (s *Session) call(id, method string, args json.RawMessage) (any, error) {
	switch method {
	case "scenarios":
		return s.reg.List(), decode(args, &struct{}{})
	case "formats":
		return Formats(), decode(args, &struct{}{})
	case "open":
		var a OpenArgs
		if err := decode(args, &a); err != nil {
			return nil, s.openErrors(a, err)
		}
		return s.Open(a)
	case "openTrace":
		var a TraceArgs
		if err := decode(args, &a); err != nil {
			return nil, err
		}
		return s.OpenTrace(a)
	case "check":
		var a CheckArgs
		if err := decode(args, &a); err != nil {
			return nil, err
		}
		return s.Check(a)
	case "mappings":
		var a MappingsArgs
		if err := decode(args, &a); err != nil {
			return nil, err
		}
		return s.Mappings(a)
	case "steps":
		return withRun(s, args, func(tl *timeline.Timeline, a *StepsArgs) (any, error) { return Steps(tl, a.From, a.Limit) })
	case "find":
		return withRun(s, args, func(tl *timeline.Timeline, a *FindArgs) (any, error) { return Find(tl, *a) })
	case "state":
		return withRun(s, args, func(tl *timeline.Timeline, a *StepArgs) (any, error) { return s.state(tl, a.Step) })
	case "alternatives":
		return withRun(s, args, func(tl *timeline.Timeline, a *StepArgs) (any, error) { return Alternatives(tl, a.Step) })
	case "slice":
		return withRun(s, args, func(tl *timeline.Timeline, a *StepArgs) (any, error) { return CausalSlice(tl, a.Step) })
	case "layout":
		return withRun(s, args, func(tl *timeline.Timeline, a *LayoutArgs) (any, error) { return Layout(tl, a.From, a.To) })
	case "charts":
		return withRun(s, args, func(tl *timeline.Timeline, a *ChartsArgs) (any, error) { return Charts(tl, a.Width) })
	case "export":
		return withRun(s, args, func(tl *timeline.Timeline, a *ExportArgs) (any, error) {
			return Export(tl, s.parentOf(tl.ID()), a.Format)
		})
	case "fork":
		var a ForkArgs
		if err := decode(args, &a); err != nil {
			return nil, err
		}
		return s.Fork(a)
	case "forks":
		var a RunArgs
		if err := decode(args, &a); err != nil {
			return nil, err
		}
		return s.Forks(a.Run)
	case "compare":
		var a CompareArgs
		if err := decode(args, &a); err != nil {
			return nil, err
		}
		return s.Compare(a)
	case "search":
		return s.StartSearch(id, args)
	case "cancel":
		var a CancelArgs
		if err := decode(args, &a); err != nil {
			return nil, err
		}
		return s.Cancel(a.ID)
	case "play":
		var a PlayArgs
		if err := decode(args, &a); err != nil {
			return nil, err
		}
		return s.Play(id, a)
	case "pause":
		if err := decode(args, &struct{}{}); err != nil {
			return nil, err
		}
		return s.Pause(), nil
	}
	return nil, errorf(CodeMethod, "method", "unknown method %q; one of %s", clip(method, 40), strings.Join(Methods, ", "))
}

// runArgs is every per-run argument type: it names its run.
type runArgs interface{ runID() string }

// RunArgs names a run.
type RunArgs struct {
	Run string `json:"run"`
}

func (a *RunArgs) runID() string { return a.Run }

func withRun[A any, P interface {
	*A
	runArgs
}](s *Session, args json.RawMessage, f func(*timeline.Timeline, P) (any, error)) (any, error) {
	a := P(new(A))
	if err := decode(args, a); err != nil {
		return nil, err
	}
	tl, err := s.Timeline(a.runID())
	if err != nil {
		return nil, err
	}
	return f(tl, a)
}

// decode reads a method's arguments strictly: an unknown field, a wrong
// type or malformed JSON is a bad-request naming the field. No arguments
// at all are an empty object.
func decode(args json.RawMessage, v any) error {
	if len(args) == 0 || string(args) == "null" {
		args = json.RawMessage("{}")
	}
	err := scenario.DecodeStrict(args, v)
	if err == nil {
		return nil
	}
	e := *AsError(err, "")
	e.Code = CodeBadRequest
	e.Field = argField(e.Field)
	return &e
}

// argField names an argument as the caller wrote it: encoding/json names
// a field of an embedded struct with the struct's Go name (RunArgs.run),
// and the whole object "body".
func argField(field string) string {
	parts := strings.Split(field, ".")
	out := parts[:0]
	for _, p := range parts {
		if p != "" && (p[0] < 'A' || p[0] > 'Z') && p != "body" {
			out = append(out, p)
		}
	}
	if len(out) == 0 {
		return "args"
	}
	return strings.Join(out, ".")
}

// OpenArgs opens a run.
type OpenArgs struct {
	Spec *scenario.RunSpec `json:"spec"`
}

// Open records (or finds) the run of a spec and returns its summary.
func (s *Session) Open(a OpenArgs) (scenario.Summary, error) {
	if a.Spec == nil {
		return scenario.Summary{}, errorf(CodeBadRequest, "spec", "open needs a spec")
	}
	ns, err := s.Normalize(*a.Spec)
	if err != nil {
		return scenario.Summary{}, AsError(err, "spec")
	}
	tl, err := s.runs.Get(ns)
	if err != nil {
		return scenario.Summary{}, AsError(err, "spec")
	}
	s.remember(ns, nil, len(tl.Violations()))
	return tl.Summary(), nil
}

// Normalize validates a spec against the catalog and the session's
// limits, once: what it returns is what every later step (the memory
// estimate, the recording) takes and trusts. Its errors are the catalog's
// field errors, named as in a spec (every rejected field). It reads only
// the session's configuration, so it may be called concurrently (as Plan
// may).
func (s *Session) Normalize(spec scenario.RunSpec) (scenario.Normal, error) {
	n, err := s.reg.Check(spec)
	if err != nil {
		return n, err
	}
	if ns := n.Spec(); s.limits.MaxRunSteps > 0 && ns.MaxSteps > s.limits.MaxRunSteps {
		max := s.limits.MaxRunSteps
		what := "is"
		if spec.MaxSteps == 0 {
			what = "defaults (from preset " + ns.Preset + ") to"
		}
		return scenario.Normal{}, &scenario.FieldError{Field: "maxSteps", Msg: fmt.Sprintf("maxSteps %s %d, above this server's limit of %d steps per run", what, ns.MaxSteps, max)}
	}
	return n, nil
}

// remember keeps a run's spec (and the fork edge it came from) so that
// its id resolves in this session.
func (s *Session) remember(ns scenario.Normal, parent *timeline.Branch, violations int) {
	id := ns.ID()
	if info, ok := s.known[id]; ok {
		if parent != nil && info.parent == nil && parent.Parent != id && !s.descends(parent.Parent, id) {
			info.parent = parent
			s.link(parent.Parent, id)
		}
		return
	}
	s.known[id] = &runInfo{spec: ns, parent: parent, violations: violations}
	s.order = append(s.order, id)
	if parent != nil {
		s.link(parent.Parent, id)
	}
	for len(s.order) > maxKnown {
		delete(s.known, s.order[0])
		s.order = s.order[1:]
	}
}

func (s *Session) link(parent, child string) {
	if p, ok := s.known[parent]; ok {
		p.children = append(p.children, child)
	}
}

// descends reports whether run a is in the fork subtree of run b (a
// fork that would close a cycle is not linked).
func (s *Session) descends(a, b string) bool {
	for i := 0; a != "" && i <= len(s.known); i++ {
		if a == b {
			return true
		}
		info, ok := s.known[a]
		if !ok || info.parent == nil {
			return false
		}
		a = info.parent.Parent
	}
	return false
}

// Timeline returns the timeline of a run this session opened, recording
// it again if it was evicted.
func (s *Session) Timeline(id string) (*timeline.Timeline, error) {
	if id == "" {
		return nil, errorf(CodeBadRequest, "run", "run (a run id from open) is required")
	}
	if s.traceRuns[id] {
		return s.traces.Timeline(id)
	}
	info, ok := s.known[id]
	if !ok {
		return nil, errorf(CodeNotFound, "run", "run %q is not open in this session; open its spec first", clip(id, 40))
	}
	tl, err := s.runs.Get(info.spec)
	if err != nil {
		return nil, AsError(err, "run")
	}
	return tl, nil
}

func (s *Session) parentOf(id string) *timeline.Branch {
	if info, ok := s.known[id]; ok {
		return info.parent
	}
	return nil
}

// CompareArgs names two runs of one scenario.
type CompareArgs struct {
	A string `json:"a"`
	B string `json:"b"`
}

// Compare aligns two runs: the first divergence and the verdicts.
func (s *Session) Compare(a CompareArgs) (timeline.Comparison, error) {
	ta, err := s.Timeline(a.A)
	if err != nil {
		return timeline.Comparison{}, rename(err, "a")
	}
	tb, err := s.Timeline(a.B)
	if err != nil {
		return timeline.Comparison{}, rename(err, "b")
	}
	return CompareRuns(ta, tb)
}

// CompareRuns aligns two runs of one scenario.
func CompareRuns(ta, tb *timeline.Timeline) (timeline.Comparison, error) {
	for _, x := range []struct {
		name string
		tl   *timeline.Timeline
	}{{"a", ta}, {"b", tb}} {
		if x.tl.IsImported() {
			return timeline.Comparison{}, errorf(CodeInvalid, x.name, "%s is an imported log, which has no model run to compare; compare two runs of one scenario", x.name)
		}
	}
	if x, y := ta.Spec().Scenario, tb.Spec().Scenario; x != y {
		return timeline.Comparison{}, errorf(CodeInvalid, "b", "b is a run of %s and a of %s; compare two runs of one scenario", y, x)
	}
	return timeline.Compare(ta, tb), nil
}

func rename(err error, field string) error {
	e := AsError(err, "")
	out := *e
	out.Field = field
	return &out
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
