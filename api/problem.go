package api

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"

	"github.com/go-chi/chi/v5/middleware"

	"github.com/racetrack-sim/racetrack/core/session"
)

// Problem is an RFC 9457 problem detail. Field names the request field or
// parameter at fault, so a client can point at it; Errors lists every
// field at fault (the first is Field), so a form can mark them all at
// once.
type Problem struct {
	Type      string         `json:"type"`
	Title     string         `json:"title"`
	Status    int            `json:"status"`
	Detail    string         `json:"detail"`
	Instance  string         `json:"instance,omitempty"`
	Field     string         `json:"field,omitempty"`
	Errors    []FieldProblem `json:"errors,omitempty"`
	RequestID string         `json:"requestId,omitempty"`
	// NeedBytes and FreeBytes explain a refusal for memory: what the work
	// was estimated to need, and what the server's budget had free.
	NeedBytes int64  `json:"needBytes,omitempty"`
	FreeBytes *int64 `json:"freeBytes,omitempty"`
	// Line is the line of an imported log at fault (POST /traces).
	Line int `json:"line,omitempty"`

	retryAfter int // seconds, sent as Retry-After
	// kind is the problem's kind (problemTypes) and msg its detail
	// without the field in front: what a session socket answers it as.
	kind, msg string
}

func (p *Problem) Error() string { return fmt.Sprintf("%d %s: %s", p.Status, p.Title, p.Detail) }

// FieldProblem is one field at fault.
type FieldProblem struct {
	Field  string `json:"field"`
	Detail string `json:"detail"`
}

// newProblem builds a problem of a documented kind (its type is the URI
// where the server describes it, see problemTypes); a kind without a
// description is about:blank, as RFC 9457 has it.
func newProblem(status int, kind, title, field, format string, args ...any) *Problem {
	typ := "about:blank"
	if _, ok := problemTypes[kind]; ok {
		typ = problemTypePath + kind
	}
	msg := fmt.Sprintf(format, args...)
	return &Problem{Type: typ, Title: title, Status: status, Field: field, Detail: msg, kind: kind, msg: msg}
}

// badRequest is a request that cannot be parsed (malformed JSON, wrong
// type, unknown field, bad query parameter syntax).
func badRequest(field, format string, args ...any) *Problem {
	return newProblem(http.StatusBadRequest, "bad-request", "Bad request", field, format, args...)
}

// invalid is a well-formed request whose values are not acceptable.
func invalid(field, format string, args ...any) *Problem {
	return newProblem(http.StatusUnprocessableEntity, "invalid", "Invalid value", field, format, args...)
}

func notFound(field, format string, args ...any) *Problem {
	return newProblem(http.StatusNotFound, "not-found", "Not found", field, format, args...)
}

func tooLarge(limit int64) *Problem {
	return newProblem(http.StatusRequestEntityTooLarge, "too-large", "Request body too large", "body",
		"the body exceeds the limit of %d bytes", limit)
}

func busy(retryAfter int, format string, args ...any) *Problem {
	p := newProblem(http.StatusTooManyRequests, "busy", "Too many requests", "", format, args...)
	p.retryAfter = retryAfter
	return p
}

// problemOf is the one place that maps an error to HTTP: a *Problem as
// it is; a body over the limit 413; a core error (a session.Error, a
// catalog's field errors, a step or choice out of range) by its session
// code, naming every field at fault. It returns err itself for anything
// else: a server fault that writeError logs and answers 500.
func problemOf(err error) error {
	var p *Problem
	var mbe *http.MaxBytesError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &p):
		return p
	case errors.As(err, &mbe):
		return tooLarge(mbe.Limit)
	}
	e := session.AsError(err, "")
	if e.Code == session.CodeInternal {
		return err
	}
	kind := e.Code
	if kind == session.CodeMethod {
		kind = "not-found"
	}
	pt := problemTypes[kind]
	q := newProblem(pt.Status, kind, pt.Title, e.Field, "%s", e.Message)
	q.msg = e.Message
	q.Line = e.Line
	if e.Field != "" && e.Field != "body" {
		q.Detail = e.Field + ": " + e.Message
	}
	if len(e.Errors) > 1 {
		q.Detail = err.Error()
		for _, f := range e.Errors {
			q.Errors = append(q.Errors, FieldProblem{Field: f.Field, Detail: f.Message})
		}
	}
	if kind == session.CodeBusy {
		q.retryAfter = 1
	}
	return q
}

// sessionErrorOf is how a session socket answers a refusal of the
// server's own (memory, a full queue, a cluster it does not run): the
// session error of the problem's kind. Core errors pass as they are.
func sessionErrorOf(err error) error {
	var p *Problem
	if !errors.As(err, &p) {
		return err
	}
	code := p.kind
	switch p.kind {
	case "memory-busy", "insufficient-storage", "store-unavailable":
		code = session.CodeBusy
	case "too-large-for-memory":
		code = session.CodeInvalid
	case "gone":
		code = session.CodeNotFound
	}
	msg := p.msg
	if code == session.CodeBusy && p.retryAfter > 0 {
		msg += fmt.Sprintf(" (retry after %d s)", p.retryAfter) // a temporary shortage: retryable
	}
	return &session.Error{Code: code, Field: p.Field, Message: msg}
}

// writeError renders err. A *Problem or *scenario.FieldError is the
// client's fault and shown; anything else is logged with the request id
// and reported as an opaque 500.
func writeError(w http.ResponseWriter, r *http.Request, err error) {
	p, ok := problemOf(err).(*Problem)
	if !ok {
		id := middleware.GetReqID(r.Context())
		loggerFrom(r.Context()).ErrorContext(r.Context(), "internal error", "err", err, "method", r.Method, "path", r.URL.Path, "requestId", id)
		p = newProblem(http.StatusInternalServerError, "internal", "Internal error", "",
			"the server failed to handle this request; quote request id %s when reporting it", id)
	}
	out := *p
	if len(out.Errors) == 0 && out.Field != "" {
		out.Errors = []FieldProblem{{Field: out.Field, Detail: out.Detail}}
	}
	out.Instance = r.URL.Path
	out.RequestID = middleware.GetReqID(r.Context())
	if out.retryAfter > 0 {
		w.Header().Set("Retry-After", fmt.Sprint(out.retryAfter))
	}
	w.Header().Set("Content-Type", "application/problem+json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(out.Status)
	_ = json.NewEncoder(w).Encode(out)
}

// writeJSON writes v with status.
func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		http.Error(w, `{"title":"Internal error"}`, http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(append(b, '\n'))
}
