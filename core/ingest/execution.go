package ingest

import (
	"errors"
	"fmt"

	"github.com/racetrack-sim/racetrack/core/sim"
)

// Format names an input format.
type Format string

// Formats.
const (
	FormatShiViz Format = "shiviz"
	FormatNDJSON Format = "ndjson"
	FormatJSON   Format = "json"
)

// Log is an imported file: one or more executions (a ShiViz log may hold
// several, split by its delimiter; the other formats hold one).
type Log struct {
	Format     Format
	Executions []*Execution
}

// Field is one named value logged with an event (a ShiViz named group
// other than host, clock and event; an NDJSON field).
type Field struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// Execution is one logged execution as step records. Step i's Parent,
// Msg and Obj follow sim.Step's conventions, so that the timeline and the
// diagram read it as they read a run; the steps are in an order
// consistent with happens-before.
type Execution struct {
	// Label names the execution (a ShiViz delimiter's trace group, or its
	// position); empty for a single execution.
	Label   string
	Nodes   []sim.Node
	Procs   []sim.Proc
	Mutexes []sim.Mutex
	Conds   []sim.Cond
	Steps   []sim.Step
	// Messages[k] has ID k+1.
	Messages []sim.Message
	// Labels holds step and message labels (sim.Step.Label indexes it).
	Labels []string
	// Lines[i] is the line of the input step i was read from (1-based).
	Lines []int32
	// Fields[i] lists the named values logged with step i, or nil.
	Fields [][]Field
	// Untimed is true when the log carries no times (every Time is 0).
	Untimed bool
	// Violations lists the property violations the log records (a
	// Racetrack export's); real logs have none.
	Violations []sim.Violation

	clocks []uint32 // Width entries per step
}

// Width is the length of a vector clock: one entry per process.
func (e *Execution) Width() int { return len(e.Procs) }

// Len is the number of steps.
func (e *Execution) Len() int { return len(e.Steps) }

// Clock is step i's vector clock (a view into the execution): entry p
// counts the steps of process p in i's happens-before past, i included.
func (e *Execution) Clock(i int) []uint32 {
	w := e.Width()
	return e.clocks[i*w : (i+1)*w]
}

// HappensBefore reports whether step a happens before step b.
func (e *Execution) HappensBefore(a, b int) bool {
	if a == b {
		return false
	}
	p := e.Steps[a].Proc
	return e.Clock(a)[p] <= e.Clock(b)[p]
}

// StepLabel is the text of step i's label.
func (e *Execution) StepLabel(i int) string { return e.Labels[e.Steps[i].Label] }

// Error is a log refused: the line (1-based, 0 when the error is about
// the whole input), the field at fault, and what is wrong.
type Error struct {
	Format Format
	Line   int
	Field  string
	Msg    string
}

func (e *Error) Error() string {
	s := string(e.Format)
	if e.Line > 0 {
		s += fmt.Sprintf(" line %d", e.Line)
	}
	if e.Field != "" {
		s += fmt.Sprintf(", field %q", e.Field)
	}
	return s + ": " + e.Msg
}

// ErrTooLarge is wrapped by *TooLargeError.
var ErrTooLarge = errors.New("ingest: log too large for the memory allowed")

// TooLargeError says an import would need more memory than allowed.
type TooLargeError struct {
	NeedBytes int64
	MaxBytes  int64
	What      string
}

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("%v: %s needs about %d bytes, %d allowed", ErrTooLarge, e.What, e.NeedBytes, e.MaxBytes)
}

func (e *TooLargeError) Unwrap() error { return ErrTooLarge }

// Options configure an import.
type Options struct {
	// Parser and Delimiter are ShiViz's regular expressions (JavaScript
	// or Go syntax). An empty Parser means ShiViz's default; an empty
	// Delimiter means one execution.
	Parser    string
	Delimiter string
	// MaxBytes bounds the memory an import may take (0: DefaultMaxBytes).
	MaxBytes int64
}

// DefaultMaxBytes is the memory an import may take when Options leaves
// MaxBytes 0.
const DefaultMaxBytes = 1 << 30

func (o Options) maxBytes() int64 {
	if o.MaxBytes > 0 {
		return o.MaxBytes
	}
	return DefaultMaxBytes
}

// What an import and its timeline (Execution.Timeline) take, garbage
// included: per input byte (copies and decoding buffers) and per event
// (its step record, line, label, fields and index entries, twice over:
// the execution's and the timeline's), plus two vector clock entries per
// event and process. TestNeedCoversWhatImportsTake measures them.
var (
	bytesPerInput = map[Format]int64{FormatShiViz: 6, FormatNDJSON: 4, FormatJSON: 8}
	bytesPerEvent = map[Format]int64{FormatShiViz: 1400, FormatNDJSON: 2200, FormatJSON: 1400}
	// typicalEventBytes is the input an event takes in a typical log
	// (Estimate's guess at the number of events).
	typicalEventBytes = map[Format]int64{FormatShiViz: 64, FormatNDJSON: 64, FormatJSON: 200}
)

// Need is the memory an import of inputBytes holding events events over
// procs processes takes, with its timeline.
func Need(format Format, inputBytes, events, procs int) int64 {
	return int64(inputBytes)*bytesPerInput[format] + int64(events)*(bytesPerEvent[format]+8*int64(procs))
}

// Estimate is the memory an import of n input bytes in the given format
// takes when its events are of a typical size, before the vector clocks:
// what a server reserves before parsing and passes as Options.MaxBytes.
// A log of denser events, or of many processes, is refused with a
// *TooLargeError saying what it needs once its events are counted, before
// their records are made.
func Estimate(format Format, n int) int64 {
	return Need(format, n, int(int64(n)/typicalEventBytes[format]), 0)
}

func tooLarge(need int64, opt Options, what string, args ...any) error {
	return &TooLargeError{NeedBytes: need, MaxBytes: opt.maxBytes(), What: fmt.Sprintf(what, args...)}
}

// checkSize bounds what reading the input takes.
func checkSize(format Format, n int, opt Options) error {
	if need := Need(format, n, 0, 0); need > opt.maxBytes() {
		return tooLarge(need, opt, "a %s log of %d bytes", format, n)
	}
	return nil
}

// checkEvents bounds what the events found so far take, before the next
// one is read; at is how far into the input the reading is, to say what
// the whole log would need.
func checkEvents(format Format, n, events, at int, opt Options) error {
	if need := Need(format, n, events, 0); need > opt.maxBytes() {
		if at > 0 && at < n {
			need = Need(format, n, int(int64(events)*int64(n)/int64(at)), 0)
		}
		return tooLarge(need, opt, "a %s log of %d bytes with events this dense", format, n)
	}
	return nil
}

// checkClocks bounds the whole import once its events and processes
// are counted.
func checkClocks(format Format, n, events, procs int, opt Options) error {
	if need := Need(format, n, events, procs); need > opt.maxBytes() {
		return tooLarge(need, opt, "%d events over %d processes", events, procs)
	}
	return nil
}

// Import reads data in the given format.
func Import(format Format, data []byte, opt Options) (*Log, error) {
	switch format {
	case FormatShiViz:
		return ShiViz(data, opt)
	case FormatNDJSON:
		return NDJSON(data, opt)
	case FormatJSON:
		return JSON(data, opt)
	}
	return nil, &Error{Field: "format", Msg: fmt.Sprintf("unknown format %q; one of shiviz, ndjson, json", format)}
}
