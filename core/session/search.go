package session

import (
	"encoding/json"
	"errors"
	"time"

	"github.com/racetrack-sim/racetrack/core/check"
	"github.com/racetrack-sim/racetrack/core/scenario"
)

// SearchRequest asks whether a property can be violated. It is the body
// of POST /api/v1/searches and the arguments of the search method.
type SearchRequest struct {
	Scenario string         `json:"scenario"`
	Preset   string         `json:"preset,omitempty"`
	Variant  string         `json:"variant,omitempty"`
	Property string         `json:"property,omitempty"`
	Strategy string         `json:"strategy"`
	Budget   SearchBudget   `json:"budget"`
	Params   map[string]any `json:"params,omitempty"`
	Seed     uint64         `json:"seed,omitempty"`
	// PCTDepth is pct's bug depth (0: check.DefaultPCTDepth).
	PCTDepth int `json:"pctDepth,omitempty"`
	// Reductions switch the exhaustive searches' reductions one by one;
	// absent, the strategy's defaults (check.DefaultReductions) apply.
	Reductions *check.Reductions `json:"reductions,omitempty"`
	// Workers is the number of goroutines the search runs on
	// (check.Config Workers); 0, the default, is one per CPU. The results
	// do not depend on it. A server's jobs and its session socket honour
	// it (up to check.MaxWorkers); the wasm worker runs a search on one
	// and refuses more (Limits.MaxSearchWorkers).
	Workers int `json:"workers,omitempty"`
	// ValueSamples lets bfs and dfs search a timed preset: a value drawn
	// from more options than they enumerate is tried at this many evenly
	// spread options (check.Config ValueSamples; 0: refuse such a value).
	ValueSamples int `json:"valueSamples,omitempty"`
	// Distributed runs a server's search job on its NATS cluster
	// (internal/cluster) with the local answer. A session, which steps its
	// searches itself, refuses it; the server's session socket hands it
	// to the server's job pool before the session sees it.
	Distributed bool `json:"distributed,omitempty"`
}

// SearchBudget bounds one search; zero fields take the defaults
// (check.DefaultBudget, DefaultSearchSeconds). Seconds are measured by the
// transport's clock: use States or Runs for a result that does not
// depend on the machine.
type SearchBudget struct {
	States  int     `json:"states,omitempty"`
	Runs    int     `json:"runs,omitempty"`
	Depth   int     `json:"depth,omitempty"`
	Seconds float64 `json:"seconds,omitempty"`
	// HorizonMs bounds the virtual time bfs and dfs explore, in
	// milliseconds (check.Budget HorizonMs; 0: no bound).
	HorizonMs int64 `json:"horizonMs,omitempty"`
}

// DefaultSearchSeconds is the time budget of a search that names none.
const DefaultSearchSeconds = 30

// UnmarshalJSON decodes a budget strictly, naming its fields in errors
// with their full path (budget.states), which encoding/json does not do
// for unknown fields of nested objects. Its duplicate keys are found by
// the one scan of the body it sits in (scenario.DecodeStrict).
func (b *SearchBudget) UnmarshalJSON(data []byte) error {
	type plain SearchBudget
	var p plain
	if err := scenario.DecodeNested(data, &p); err != nil {
		var fe *scenario.FieldError
		if errors.As(err, &fe) {
			return &scenario.FieldError{Field: join("budget", fe.Field), Msg: fe.Msg}
		}
		return err
	}
	*b = SearchBudget(p)
	return nil
}

// Config is the explorer configuration the request asks for: the
// strategy's default reductions (check.DefaultReductions) unless the
// request switches them. Every client of a search request (the session,
// the server's jobs, the command line) builds its check.Config here.
func (req SearchRequest) Config() check.Config {
	red := check.DefaultReductions(req.Strategy)
	if req.Reductions != nil {
		red = *req.Reductions
	}
	b := req.Budget
	return check.Config{
		Scenario: req.Scenario, Preset: req.Preset, Variant: req.Variant, Params: req.Params,
		Property: req.Property, Strategy: req.Strategy, Seed: req.Seed, PCTDepth: req.PCTDepth,
		Budget:     check.Budget{States: b.States, Runs: b.Runs, Depth: b.Depth, HorizonMs: b.HorizonMs},
		Reductions: red, Workers: req.Workers, ValueSamples: req.ValueSamples,
	}
}

// DecodeSearchRequest parses a search request strictly; errors name the
// field.
func DecodeSearchRequest(data []byte) (SearchRequest, error) {
	var req SearchRequest
	if err := decode(data, &req); err != nil {
		return SearchRequest{}, err
	}
	return req, nil
}

// Plan checks a search request against the session's limits and the
// catalog and builds its search. Each field is checked once, by its
// owner: the session the bounds of its engine (the budget's maximum, the
// seconds, the workers), check.New (or check.Validate when the
// session already refused the request) the strategy, the rest of the
// budget and everything the catalog knows. Errors name the field.
func (s *Session) Plan(req SearchRequest) (*Search, error) {
	l := s.limits
	b := req.Budget
	var errs scenario.Collector
	if l.MaxSearchStates > 0 && b.States > l.MaxSearchStates {
		errs.Add("budget.states", "is %d, outside [0, %d]", b.States, l.MaxSearchStates)
	}
	if l.MaxSearchRuns > 0 && b.Runs > l.MaxSearchRuns {
		errs.Add("budget.runs", "is %d, outside [0, %d]", b.Runs, l.MaxSearchRuns)
	}
	if !(b.Seconds >= 0) || (l.MaxSearchSeconds > 0 && b.Seconds > l.MaxSearchSeconds) {
		errs.Add("budget.seconds", "is %v, outside [0, %v]", b.Seconds, l.MaxSearchSeconds)
	}
	if w := max(1, l.MaxSearchWorkers); req.Workers < 0 || req.Workers > w {
		if req.Workers > 0 && w == 1 {
			errs.Add("workers", "is %d, but this engine runs a search on one worker: ask for 0 or 1, or search on the server", req.Workers)
		} else {
			errs.Add("workers", "is %d, outside [0, %d] (0: one per CPU)", req.Workers, w)
		}
	}
	if errs.Len() > 0 {
		// Every rejected field is reported: the check's too, without
		// building the search (a field once).
		seen := map[string]bool{}
		for _, fe := range scenario.AllFieldErrors(errs.Err()) {
			seen[fe.Field] = true
		}
		for _, fe := range scenario.AllFieldErrors(check.Validate(s.reg, req.Config())) {
			if !seen[fe.Field] {
				errs.Add(fe.Field, "%s", fe.Msg)
			}
		}
		return nil, errs.Err()
	}
	seconds := b.Seconds
	if seconds == 0 {
		seconds = DefaultSearchSeconds
		if l.MaxSearchSeconds > 0 {
			seconds = min(seconds, l.MaxSearchSeconds)
		}
	}
	x, err := check.New(s.reg, req.Config())
	if err != nil {
		return nil, AsError(err, "")
	}
	return NewSearch(x, seconds), nil
}

// ProgressBudget is the budget a search's progress counts towards: its
// states for bfs and dfs, its runs otherwise.
func ProgressBudget(cfg check.Config) int {
	if cfg.Strategy == check.BFS || cfg.Strategy == check.DFS {
		return cfg.Budget.States
	}
	return cfg.Budget.Runs
}

// StartSearch decodes and plans a search and keeps it under id, so that
// "cancel" can stop it. The transport steps it with Run.
func (s *Session) StartSearch(id string, args json.RawMessage) (*Search, error) {
	req, err := DecodeSearchRequest(args)
	if err != nil {
		return nil, err
	}
	if _, dup := s.searches[id]; dup {
		return nil, errorf(CodeInvalid, "id", "a search with id %q is already running", clip(id, 40))
	}
	if len(s.searches) >= MaxSearches {
		return nil, errorf(CodeBusy, "", "%d searches are running in this session, its limit; cancel one or wait", MaxSearches)
	}
	if req.Distributed {
		// The transport runs it (Distributor); Serve refuses it on a
		// pipe that cannot.
		q := &Search{s: s, id: id, req: req, distributed: true}
		s.searches[id] = q
		return q, nil
	}
	q, err := s.Plan(req)
	if err != nil {
		return nil, err
	}
	q.s, q.id = s, id
	s.searches[id] = q
	return q, nil
}

// MaxSearches bounds the searches one session runs at once.
const MaxSearches = 4

// CancelArgs names a search (the id of its search call) or a playback.
type CancelArgs struct {
	ID string `json:"id"`
}

// Cancelled answers cancel.
type Cancelled struct {
	ID string `json:"id"`
	// Running is false when no search of that id was running (it had
	// ended, or never started): cancelling it is not an error.
	Running bool `json:"running"`
}

// Cancel stops a running search at its next slice.
func (s *Session) Cancel(id string) (Cancelled, error) {
	if id == "" {
		return Cancelled{}, errorf(CodeBadRequest, "id", "cancel needs the id of the search call")
	}
	q, ok := s.searches[id]
	if ok {
		q.cancelled = true
	}
	return Cancelled{ID: id, Running: ok}, nil
}

// Search is a search being stepped by a transport, or run by it
// elsewhere (distributed: see Distributor).
type Search struct {
	s           *Session
	id          string
	x           *check.Explorer
	seconds     float64
	cancelled   bool
	req         SearchRequest
	distributed bool
}

// Distributor is a pipe that can run a search on a cluster (the server's
// session socket, when the server has NATS): Distribute starts req
// there. The session keeps the search under its id (a cancel reaches
// it), reports its progress and answers with its result, as for a search
// it steps itself; a pipe that is no Distributor gets "distributed"
// refused, naming the field.
type Distributor interface {
	Distribute(req SearchRequest) (Remote, error)
}

// Remote is a search a Distributor runs: Poll reports its progress and
// whether it has ended, Result is its result once it has, Cancel stops
// it (Poll then reports its end).
type Remote interface {
	Poll() (SearchProgress, bool)
	Result() SearchResult
	Cancel()
}

// remotePoll is how often a distributed search is polled.
const remotePoll = 50 * time.Millisecond

// SearchProgress is one progress report.
type SearchProgress struct {
	check.Progress
	// Budget is the run or state budget the progress counts towards.
	Budget int `json:"budget"`
}

// SearchResult is a finished, cancelled or timed-out search. It carries
// no time: the result of a search bounded by states or runs is the same
// on every machine.
type SearchResult struct {
	check.Result
	Cancelled bool `json:"cancelled"`
	// TimedOut is set when the search stopped at its seconds budget.
	TimedOut bool `json:"timedOut"`
}

// Hooks connect a search to its transport. Elapsed is the transport's
// clock (time since the search started); Progress receives reports;
// Yield runs between slices (the transport lets other calls in, which may
// cancel the search).
type Hooks struct {
	Elapsed  func() time.Duration
	Progress func(SearchProgress)
	Yield    func()
	// Step does about n units of the search's work on the explorer and
	// reports its progress (nil: the explorer's Step, on the caller's
	// goroutine).
	Step func(x *check.Explorer, n int) check.Progress
	// Cancelled reports whether the transport stopped the search (a
	// request's context, a signal); nil: only the session's cancel.
	Cancelled func() bool
	// Found receives the result once, when the search first finds a
	// counterexample, before shrinking it (a transport that must not lose
	// it keeps it then).
	Found func(check.Result)
}

// Stepper is a pipe that runs a search's work on several goroutines
// (the server's session socket, through internal/parallel): Step does
// about n units of work on up to workers goroutines (0: one per CPU), as
// check.Explorer.Step does on one. Serve steps the searches of a pipe
// without it on the pipe's own goroutine.
type Stepper interface {
	Step(x *check.Explorer, n, workers int) check.Progress
}

// Slices of a search aim at sliceTarget of work, so a cancel or a
// progress report is never far away; progress is reported at most every
// progressEvery.
const (
	sliceTarget   = 25 * time.Millisecond
	progressEvery = 100 * time.Millisecond
	maxSlice      = 1 << 16
)

// Run steps the search until it ends, is cancelled or runs out of time,
// and forgets it in its session. It is the one stepping loop of every
// transport: the session's pipes, the server's search jobs and the
// command line.
func (q *Search) Run(h Hooks) SearchResult {
	if q.s != nil {
		defer delete(q.s.searches, q.id)
	}
	deadline := time.Duration(q.seconds * float64(time.Second))
	lastReport := time.Duration(0)
	slice := 1
	res := SearchResult{}
	step := h.Step
	if step == nil {
		step = (*check.Explorer).Step
	}
	found := false
	for {
		t0 := h.Elapsed()
		p := step(q.x, slice)
		now := h.Elapsed()
		slice = nextSlice(slice, now-t0)
		if p.Found && !found && h.Found != nil {
			found = true
			h.Found(q.x.Result())
		}
		if p.Done {
			break
		}
		if h.Progress != nil && now-lastReport >= progressEvery {
			lastReport = now
			h.Progress(SearchProgress{Progress: p, Budget: ProgressBudget(q.x.Config())})
		}
		if h.Yield != nil {
			h.Yield()
		}
		if q.cancelled || (h.Cancelled != nil && h.Cancelled()) {
			res.Cancelled = true
			break
		}
		if q.seconds > 0 && h.Elapsed() >= deadline {
			res.TimedOut = true
			break
		}
	}
	res.Result = q.x.Result()
	switch {
	case res.Cancelled:
		res.Stop = check.LimitStop(check.StopCancel, 0)
	case res.TimedOut:
		res.Stop = check.LimitStop(check.StopSeconds, q.seconds)
	}
	return res
}

// NewSearch is a search of x that a transport steps with Run, stopped
// after seconds of its clock (0: no time limit): the command line's, whose
// explorer comes from a check.Config its flags wrote.
func NewSearch(x *check.Explorer, seconds float64) *Search {
	return &Search{x: x, seconds: seconds}
}

// Explorer is the search's explorer, for a transport that steps it on
// its own terms (the server's search jobs, which outlive a session).
func (q *Search) Explorer() *check.Explorer { return q.x }

// Seconds is the search's time budget.
func (q *Search) Seconds() float64 { return q.seconds }

// nextSlice adapts the work per Step call towards the slice target, given
// how long the last slice took.
func nextSlice(cur int, took time.Duration) int {
	switch {
	case took < sliceTarget/4:
		return min(cur*2, maxSlice)
	case took > sliceTarget*2:
		return max(cur/2, 1)
	}
	return cur
}
