package session

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"

	"github.com/racetrack-sim/racetrack/core/conform"
	"github.com/racetrack-sim/racetrack/core/ingest"
	"github.com/racetrack-sim/racetrack/core/scenario"
)

// CheckArgs checks an imported execution against a model ("Check
// against a model"; POST /api/v1/traces/{id}/validations): Run is the
// execution's run id, Spec the model (scenario, preset, variant,
// parameters), Mapping the model's log mapping ("" its first, identity
// for the model's own exported runs) and MaxStates the search's budget
// (0: conform's default).
type CheckArgs struct {
	RunArgs
	Validation
}

// Validation is what a check asks of the model. FromSeed says the log is
// the run of the spec's seed: the model's draws of more options than the
// search enumerates (a timed model's durations) take that run's values
// (conform.Options.Seed); without it such a model is refused.
type Validation struct {
	Spec      *scenario.RunSpec `json:"spec"`
	Mapping   string            `json:"mapping,omitempty"`
	MaxStates int               `json:"maxStates,omitempty"`
	FromSeed  bool              `json:"fromSeed,omitempty"`
}

// Checked answers a check: the verdict (conform.Verdict: conforms, or
// where the log leaves the model with what it could have done and its
// state there) and the model run the search aligned to the log, opened
// like any run: Model.Spec replays it, and Verdict.StepEvents and
// Verdict.Reached map its steps to the log's events and back.
type Checked struct {
	Run     string            `json:"run"`
	Verdict *conform.Verdict  `json:"verdict"`
	Model   *scenario.Summary `json:"model,omitempty"`
}

// executionPattern splits an imported execution's run id into its log's
// id and its number (ingest.Opened's naming).
var executionPattern = regexp.MustCompile(`^(log-[0-9a-f]{16})(?:-([1-9][0-9]{0,5}))?$`)

// ExecutionOf is the log an imported execution's run id names, and the
// execution's index in it.
func ExecutionOf(run string) (logID string, k int, ok bool) {
	m := executionPattern.FindStringSubmatch(run)
	if m == nil {
		return "", 0, false
	}
	if m[2] != "" {
		n, _ := strconv.Atoi(m[2])
		k = n - 1
	}
	return m[1], k, true
}

// ValidateTrace checks execution k of a log against the model n: the one
// place the server and the session turn a check into conform.Validate.
// The log is imported again within importBytes (the validation reads the
// execution's records, which a timeline does not keep), and the search's
// path of worlds is bounded by pathBytes (0: conform's default).
func ValidateTrace(n scenario.Normal, t TraceLog, k int, v Validation, importBytes, pathBytes int64) (*conform.Verdict, error) {
	l, err := ingest.Import(formatOf(t), []byte(t.Log), ingest.Options{Parser: t.Parser, Delimiter: t.Delimiter, MaxBytes: importBytes})
	if err != nil {
		return nil, traceError(err)
	}
	if k < 0 || k >= len(l.Executions) {
		return nil, errorf(CodeNotFound, "run", "the log holds %d executions", len(l.Executions))
	}
	opt := conform.Options{Mapping: v.Mapping, Format: formatOf(t), MaxStates: v.MaxStates, MaxBytes: pathBytes}
	if v.FromSeed {
		seed := n.Spec().Seed
		opt.Seed = &seed
	}
	verdict, err := conform.Validate(n, l.Executions[k], opt)
	switch {
	case errors.Is(err, conform.ErrUnsupported):
		return nil, errorf(CodeInvalid, "spec", "%v", err)
	case err != nil:
		return nil, AsError(traceError(err), "")
	}
	return verdict, nil
}

func formatOf(t TraceLog) ingest.Format {
	if t.Format != "" {
		return ingest.Format(t.Format)
	}
	return ingest.Detect([]byte(t.Log))
}

// ModelSpec is the spec of the model run a verdict aligned to the log:
// the model's choices, and as many steps as the search took.
func ModelSpec(n scenario.Normal, v *conform.Verdict) (scenario.RunSpec, bool) {
	steps := len(v.StepEvents)
	if steps == 0 {
		return scenario.RunSpec{}, false
	}
	spec := n.Spec()
	spec.Schedule = append([]int{}, v.Schedule...)
	spec.MaxSteps = steps
	return spec, true
}

// Check validates an imported execution of this session against a model
// and opens the aligned model run.
func (s *Session) Check(a CheckArgs) (Checked, error) {
	if !s.traceRuns[a.Run] {
		return Checked{}, errorf(CodeNotFound, "run", "run %q is no log opened in this session; open the log first (openTrace)", clip(a.Run, 40))
	}
	if a.Spec == nil {
		return Checked{}, errorf(CodeBadRequest, "spec", "a check needs the model's spec (scenario, preset, variant, parameters)")
	}
	logID, k, _ := ExecutionOf(a.Run)
	t, err := s.traces.Log(logID)
	if err != nil {
		return Checked{}, err
	}
	n, err := s.Normalize(*a.Spec)
	if err != nil {
		return Checked{}, AsError(err, "spec")
	}
	verdict, err := ValidateTrace(n, t, k, a.Validation, s.traceBytes(), s.limits.MaxCheckPathBytes)
	if err != nil {
		return Checked{}, err
	}
	out := Checked{Run: a.Run, Verdict: verdict}
	if spec, ok := ModelSpec(n, verdict); ok {
		sum, err := s.Open(OpenArgs{Spec: &spec})
		if err != nil {
			return Checked{}, fmt.Errorf("open the aligned model run: %w", err)
		}
		out.Model = &sum
	}
	return out, nil
}

// traceBytes is the memory a session's import may take: its cache's
// bound, or ingest's default where the transport reserved the memory
// before the call (the server's admission).
func (s *Session) traceBytes() int64 {
	if c, ok := s.traces.(*TraceCache); ok {
		return c.MaxBytes
	}
	return 0
}

// MappingsArgs names a scenario.
type MappingsArgs struct {
	Scenario string `json:"scenario"`
}

// Mappings lists the log mappings a scenario's model offers a check
// (conform.Mappings: those it declares, its default first, then
// identity).
func (s *Session) Mappings(a MappingsArgs) ([]conform.Mapping, error) {
	sc, ok := s.reg.Lookup(a.Scenario)
	if !ok {
		return nil, errorf(CodeNotFound, "scenario", "no scenario %q", clip(a.Scenario, 40))
	}
	return conform.Mappings(sc), nil
}
