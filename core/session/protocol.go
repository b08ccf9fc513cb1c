package session

import (
	"bytes"
	"encoding/json"
	"time"
)

// Request is a client message: {id, method, args}. ID is any JSON value
// (a number or a string) the client uses to match replies.
type Request struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Args   json.RawMessage `json:"args,omitempty"`
}

// Key is the request's id as the session knows it, for cancel: a string
// id's text, a number's digits.
func (r Request) Key() string {
	var s string
	if json.Unmarshal(r.ID, &s) == nil {
		return s
	}
	return string(r.ID)
}

// Message is a reply: exactly one of Result, Error, Progress and Frame is
// set. ID is the request's, or null when the request could not be read.
type Message struct {
	ID       json.RawMessage `json:"id"`
	Result   any             `json:"result,omitempty"`
	Error    *Error          `json:"error,omitempty"`
	Progress *SearchProgress `json:"progress,omitempty"`
	Frame    *Frame          `json:"frame,omitempty"`
}

var null = json.RawMessage("null")

// DecodeRequest reads a client message. On an error the returned request
// carries the id when it could be read (else null), so that the error can
// be answered on it.
func DecodeRequest(data []byte) (Request, *Error) {
	var r Request
	if err := decode(data, &r); err != nil {
		var idOnly struct {
			ID json.RawMessage `json:"id"`
		}
		r = Request{ID: null}
		if json.Unmarshal(data, &idOnly) == nil && validID(idOnly.ID) {
			r.ID = idOnly.ID
		}
		return r, AsError(err, "")
	}
	if !validID(r.ID) {
		id := r.ID
		r.ID = null
		if len(id) == 0 {
			return r, errorf(CodeBadRequest, "id", "the message has no id (a number or a string)")
		}
		return r, errorf(CodeBadRequest, "id", "id must be a number or a string of at most %d bytes", maxIDBytes)
	}
	if r.Method == "" {
		return r, errorf(CodeBadRequest, "method", "method is required")
	}
	return r, nil
}

// maxIDBytes bounds a request id.
const maxIDBytes = 64

func validID(id json.RawMessage) bool {
	id = bytes.TrimSpace(id)
	if len(id) == 0 || len(id) > maxIDBytes {
		return false
	}
	c := id[0]
	return c == '"' || c == '-' || (c >= '0' && c <= '9')
}

// Reply is the message answering a call: its result or its error.
func Reply(id json.RawMessage, v any, err error) Message {
	if len(id) == 0 {
		id = null
	}
	if err != nil {
		return Message{ID: id, Error: AsError(err, "")}
	}
	if v == nil {
		v = struct{}{}
	}
	return Message{ID: id, Result: v}
}

// FrameInterval is the least time between two frames of a playback
// (60 frames a second).
const FrameInterval = time.Second / 60

// Interval is how often the transport should call Tick.
func (p *Player) Interval() time.Duration {
	return max(FrameInterval, time.Duration(float64(time.Second)/p.speed))
}

// Tick advances the playback by the steps due after elapsed time (of the
// transport's clock) since the last tick, and returns the frame, or nil
// when no whole step is due yet.
func (p *Player) Tick(elapsed time.Duration) (*Frame, error) {
	p.carry += elapsed.Seconds() * p.speed
	n := int(p.carry)
	if n == 0 {
		return nil, nil
	}
	p.carry -= float64(n)
	return p.Advance(n)
}
