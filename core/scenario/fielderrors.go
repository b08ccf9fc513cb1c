package scenario

import (
	"errors"
	"fmt"
	"strings"
)

// MaxFieldErrors bounds the field errors one input collects: past it,
// the rest are summed up in a last entry.
const MaxFieldErrors = 20

// FieldErrors are every rejected field of one input, in the order they
// were checked. errors.As(err, &fe) with fe a *FieldError finds the
// first, so a caller that reports a single field keeps working;
// AllFieldErrors lists them all.
type FieldErrors []*FieldError

func (es FieldErrors) Error() string {
	parts := make([]string, len(es))
	for i, e := range es {
		parts[i] = e.Error()
	}
	return strings.Join(parts, "; ")
}

// Unwrap exposes each field error to errors.As and errors.Is.
func (es FieldErrors) Unwrap() []error {
	out := make([]error, len(es))
	for i, e := range es {
		out[i] = e
	}
	return out
}

// AllFieldErrors lists the field errors in err: every one of a
// FieldErrors, the one of a lone FieldError, none otherwise.
func AllFieldErrors(err error) []*FieldError {
	var es FieldErrors
	if errors.As(err, &es) {
		return es
	}
	var fe *FieldError
	if errors.As(err, &fe) {
		return []*FieldError{fe}
	}
	return nil
}

// Collector gathers the field errors of one input.
type Collector struct {
	list    FieldErrors
	dropped int
}

// Add records a rejection of field.
func (c *Collector) Add(field, format string, args ...any) {
	c.add(&FieldError{Field: field, Msg: fmt.Sprintf(format, args...)})
}

// AddErr records the field errors in err; it reports whether err held
// any (an error that names no field is not recorded).
func (c *Collector) AddErr(err error) bool {
	fes := AllFieldErrors(err)
	for _, fe := range fes {
		c.add(fe)
	}
	return len(fes) > 0
}

func (c *Collector) add(fe *FieldError) {
	if len(c.list) < MaxFieldErrors-1 {
		c.list = append(c.list, fe)
		return
	}
	c.dropped++
}

// Len is the number of field errors recorded.
func (c *Collector) Len() int { return len(c.list) + c.dropped }

// Err is nil, the one FieldError, or a FieldErrors.
func (c *Collector) Err() error {
	list := c.list
	if c.dropped > 0 {
		more := &FieldError{Field: "body", Msg: fmt.Sprintf("and %d more rejected field(s)", c.dropped)}
		list = append(list[:len(list):len(list)], more)
	}
	switch len(list) {
	case 0:
		return nil
	case 1:
		return list[0]
	}
	return list
}
