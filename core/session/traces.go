package session

import (
	"errors"
	"fmt"
	"strings"

	"github.com/racetrack-sim/racetrack/core/ingest"
	"github.com/racetrack-sim/racetrack/core/scenario"
	"github.com/racetrack-sim/racetrack/core/timeline"
)

// TraceLog is a logged execution to import: what POST /api/v1/traces
// takes and openTrace carries.
type TraceLog struct {
	// Format is shiviz, ndjson or json; empty: told from the log's first
	// bytes (ingest.Detect).
	Format string `json:"format,omitempty"`
	// Parser and Delimiter are ShiViz's regular expressions (empty
	// Parser: ShiViz's default; empty Delimiter: one execution).
	Parser    string `json:"parser,omitempty"`
	Delimiter string `json:"delimiter,omitempty"`
	Log       string `json:"log"`
}

// TraceArgs opens a log in a session: a log to import, or the id of a
// log the engine keeps already (a server's stored trace, "#trace=ID").
type TraceArgs struct {
	TraceLog
	ID string `json:"id,omitempty"`
}

// TraceOpened answers an import: the log's counts (ingest.Opened) and
// the summary of each execution, whose id every view of a run takes.
type TraceOpened struct {
	*ingest.Opened
	Runs []scenario.Summary `json:"runs"`
}

// Opened makes the answer for an imported log.
func Opened(o *ingest.Opened) TraceOpened {
	out := TraceOpened{Opened: o, Runs: make([]scenario.Summary, 0, len(o.Timelines))}
	for _, tl := range o.Timelines {
		out.Runs = append(out.Runs, tl.Summary())
	}
	return out
}

// DecodeTraceLog reads a TraceLog strictly (an unknown key, a wrong type
// or malformed JSON is a bad-request naming the field): the decoder of
// POST /api/v1/traces.
func DecodeTraceLog(data []byte) (TraceLog, error) {
	var t TraceLog
	if err := decode(data, &t); err != nil {
		return TraceLog{}, err
	}
	return t, nil
}

// TraceNeed is the memory to reserve before importing t with
// ImportTrace: the import's estimate for its format (ingest.Estimate).
func TraceNeed(t TraceLog) int64 {
	f := formatOf(t)
	if f != ingest.FormatShiViz && f != ingest.FormatNDJSON && f != ingest.FormatJSON {
		return 0 // ImportTrace refuses the format
	}
	return ingest.Estimate(f, len(t.Log))
}

// ImportTrace imports a log within maxBytes of memory: the one place
// both engines and REST turn a log into timelines. A log that is not a
// valid execution is an invalid error naming the line and the field
// (Error.Line; Field is the argument at fault: parser, delimiter, format
// or log); a log that needs more than maxBytes is a *ingest.TooLargeError,
// which the caller may retry with its NeedBytes.
func ImportTrace(t TraceLog, maxBytes int64) (*ingest.Opened, error) {
	switch ingest.Format(t.Format) {
	case "", ingest.FormatShiViz, ingest.FormatNDJSON, ingest.FormatJSON:
	default:
		return nil, errorf(CodeInvalid, "format", "unknown format %q; one of shiviz, ndjson, json (or none: told from the log)", clip(t.Format, 40))
	}
	if strings.TrimSpace(t.Log) == "" {
		return nil, errorf(CodeInvalid, "log", "the log is empty")
	}
	o, err := ingest.Open(ingest.Format(t.Format), []byte(t.Log), ingest.Options{Parser: t.Parser, Delimiter: t.Delimiter, MaxBytes: maxBytes})
	if err != nil {
		return nil, traceError(err)
	}
	return o, nil
}

// traceError names what is wrong with a refused log: the argument (a
// regular expression, the format, else the log) and the line.
func traceError(err error) error {
	var ie *ingest.Error
	if !errors.As(err, &ie) {
		return err
	}
	field := "log"
	switch ie.Field {
	case "parser", "delimiter", "format":
		field = ie.Field
	}
	msg := ie.Msg
	if ie.Field != "" && ie.Field != field {
		msg = fmt.Sprintf("field %q: %s", ie.Field, msg)
	}
	if ie.Line > 0 {
		msg = fmt.Sprintf("line %d, %s", ie.Line, msg)
	}
	return &Error{Code: CodeInvalid, Field: field, Line: ie.Line, Message: msg}
}

// Traces keeps a session's imported logs.
type Traces interface {
	// Import imports a log and keeps its executions (a.ID instead
	// names a log kept already).
	Import(a TraceArgs) (*ingest.Opened, error)
	// Timeline returns the timeline of an execution of a kept log.
	Timeline(id string) (*timeline.Timeline, error)
	// Log returns a kept log as it was imported (a check against a
	// model reads its executions again).
	Log(id string) (TraceLog, error)
}

// OpenTrace imports a log (or opens one the engine keeps) and makes its
// executions runs of this session.
func (s *Session) OpenTrace(a TraceArgs) (TraceOpened, error) {
	if a.ID != "" && a.Log != "" {
		return TraceOpened{}, errorf(CodeBadRequest, "id", "give either id (a kept log) or log, not both")
	}
	if a.ID == "" && a.Log == "" {
		return TraceOpened{}, errorf(CodeBadRequest, "log", "openTrace needs a log (or the id of a kept one)")
	}
	o, err := s.traces.Import(a)
	if err != nil {
		return TraceOpened{}, err
	}
	for _, tl := range o.Timelines {
		if !s.traceRuns[tl.ID()] {
			s.traceRuns[tl.ID()] = true
			s.traceOrder = append(s.traceOrder, tl.ID())
		}
	}
	for len(s.traceOrder) > maxKnown {
		delete(s.traceRuns, s.traceOrder[0])
		s.traceOrder = s.traceOrder[1:]
	}
	return Opened(o), nil
}

// TraceCache is the Traces of a session that has no other (the wasm
// engine): the logs imported last, bounded by their number and their
// timelines' estimated bytes, each imported within MaxBytes. An evicted
// log must be opened again.
type TraceCache struct {
	MaxLogs  int
	MaxBytes int64
	order    []keptLog // least recently used first
}

type keptLog struct {
	opened *ingest.Opened
	log    TraceLog
}

// Default bounds of a TraceCache.
const (
	DefaultTraceLogs  = 8
	DefaultTraceBytes = 1 << 30
)

// NewTraceCache returns a cache with the default bounds.
func NewTraceCache() *TraceCache {
	return &TraceCache{MaxLogs: DefaultTraceLogs, MaxBytes: DefaultTraceBytes}
}

// Import implements Traces.
func (c *TraceCache) Import(a TraceArgs) (*ingest.Opened, error) {
	if a.ID != "" {
		for i, k := range c.order {
			if k.opened.ID == a.ID {
				c.order = append(append(c.order[:i:i], c.order[i+1:]...), k)
				return k.opened, nil
			}
		}
		return nil, errorf(CodeNotFound, "id", "no log %q is open in this engine; open the log file again", clip(a.ID, 40))
	}
	o, err := ImportTrace(a.TraceLog, c.MaxBytes)
	if err != nil {
		return nil, err
	}
	for i, k := range c.order {
		if k.opened.ID == o.ID {
			c.order = append(c.order[:i:i], c.order[i+1:]...)
			break
		}
	}
	c.order = append(c.order, keptLog{opened: o, log: a.TraceLog})
	for len(c.order) > c.MaxLogs || (len(c.order) > 1 && c.bytes() > c.MaxBytes) {
		c.order = c.order[1:]
	}
	return o, nil
}

func (c *TraceCache) bytes() int64 {
	var n int64
	for _, k := range c.order {
		n += int64(len(k.log.Log))
		for _, tl := range k.opened.Timelines {
			n += tl.Bytes()
		}
	}
	return n
}

// Timeline implements Traces.
func (c *TraceCache) Timeline(id string) (*timeline.Timeline, error) {
	for _, k := range c.order {
		for _, tl := range k.opened.Timelines {
			if tl.ID() == id {
				return tl, nil
			}
		}
	}
	return nil, errorf(CodeNotFound, "run", "the log of run %q is no longer open in this engine; open the log file again", clip(id, 40))
}

// Log implements Traces.
func (c *TraceCache) Log(id string) (TraceLog, error) {
	for _, k := range c.order {
		if k.opened.ID == id {
			return k.log, nil
		}
	}
	return TraceLog{}, errorf(CodeNotFound, "run", "log %q is no longer open in this engine; open the log file again", clip(id, 40))
}
