package session

import (
	"errors"
	"fmt"

	"github.com/racetrack-sim/racetrack/core/check"
	"github.com/racetrack-sim/racetrack/core/ingest"
	"github.com/racetrack-sim/racetrack/core/scenario"
	"github.com/racetrack-sim/racetrack/core/sim"
	"github.com/racetrack-sim/racetrack/core/timeline"
)

// Error codes. Both transports send them as they are; REST maps each to
// an HTTP status in one place (package api's problemOf).
const (
	CodeBadRequest = "bad-request" // the arguments do not parse
	CodeInvalid    = "invalid"     // they parse, but a value is not acceptable
	CodeNotFound   = "not-found"   // no such run or search in this session
	CodeMethod     = "unknown-method"
	CodeTooLarge   = "too-large" // a message above the transport's limit
	CodeBusy       = "busy"      // too many requests at once; retry
	CodeInternal   = "internal"  // a bug: the message says no more than that
)

// Error is every error a session call returns: a code, the argument at
// fault (a dotted path such as "spec.params.meals", empty when none) and
// a message for a person.
type Error struct {
	Code    string `json:"code"`
	Field   string `json:"field,omitempty"`
	Message string `json:"message"`
	// Errors lists every rejected argument when there are several (the
	// first is Field and Message).
	Errors []FieldIssue `json:"errors,omitempty"`
	// Line is the line of an imported log at fault (openTrace), from 1.
	Line int `json:"line,omitempty"`
}

// FieldIssue is one rejected argument.
type FieldIssue struct {
	Field   string `json:"field"`
	Message string `json:"message"`
}

func (e *Error) Error() string {
	if e.Field != "" {
		return e.Field + ": " + e.Message
	}
	return e.Message
}

func errorf(code, field, format string, args ...any) *Error {
	return &Error{Code: code, Field: field, Message: fmt.Sprintf(format, args...)}
}

// AsError turns any error of the core into an *Error: field errors keep
// their field (prefixed by prefix when the value sat inside an argument),
// step and choice errors name "step" and "option", anything else is
// internal.
func AsError(err error, prefix string) *Error {
	if err == nil {
		return nil
	}
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	if fes := scenario.AllFieldErrors(err); len(fes) > 0 {
		fe := fes[0]
		code := CodeInvalid
		if fe.Field == "body" && len(fes) == 1 {
			code = CodeBadRequest
		}
		e := &Error{Code: code, Field: join(prefix, fe.Field), Message: fe.Msg}
		if len(fes) > 1 {
			for _, f := range fes {
				e.Errors = append(e.Errors, FieldIssue{Field: join(prefix, f.Field), Message: f.Msg})
			}
		}
		return e
	}
	var tle *ingest.TooLargeError
	switch {
	case errors.As(err, &tle):
		return &Error{Code: CodeInvalid, Field: "log", Message: tle.Error()}
	case errors.Is(err, timeline.ErrStepRange):
		return &Error{Code: CodeInvalid, Field: "step", Message: err.Error()}
	case errors.Is(err, timeline.ErrChoice):
		return &Error{Code: CodeInvalid, Field: "option", Message: err.Error()}
	case errors.Is(err, check.ErrUnsupported):
		return &Error{Code: CodeInvalid, Field: "strategy", Message: err.Error()}
	case errors.Is(err, sim.ErrModel):
		return &Error{Code: CodeInvalid, Field: join(prefix, ""), Message: "the model cannot run this spec: " + err.Error()}
	}
	return &Error{Code: CodeInternal, Message: err.Error()}
}

// join names a field inside an argument: join("spec", "params.x") is
// "spec.params.x"; a "body" field is the argument itself.
func join(prefix, field string) string {
	switch {
	case prefix == "":
		return field
	case field == "" || field == "body":
		return prefix
	}
	return prefix + "." + field
}
