package session

import (
	"errors"
	"strings"
)

// openErrors adds to the error of an open whose spec did not decode (a
// seed typed as "1e3" is no JSON integer) the catalog's errors of the
// fields that did: encoding/json fills the rest of the spec before it
// reports the first bad value, so a person who typed a bad seed and a bad
// parameter hears of both at once.
func (s *Session) openErrors(a OpenArgs, err error) error {
	var e *Error
	if !errors.As(err, &e) || a.Spec == nil || !strings.HasPrefix(e.Field, "spec.") {
		return err
	}
	_, cerr := s.reg.Check(*a.Spec)
	more := AsError(cerr, "spec")
	if more == nil || more.Code == CodeInternal {
		return err
	}
	issues := []FieldIssue{{Field: e.Field, Message: e.Message}}
	if len(more.Errors) == 0 {
		more.Errors = []FieldIssue{{Field: more.Field, Message: more.Message}}
	}
	for _, is := range more.Errors {
		if is.Field != e.Field {
			issues = append(issues, is)
		}
	}
	if len(issues) == 1 {
		return err
	}
	out := *e
	out.Errors = issues
	return &out
}
