package export

import (
	"bytes"
	"encoding/json"
	"io"

	"github.com/racetrack-sim/racetrack/core/timeline"
)

// A Writer writes a timeline in one format to w, one piece at a time:
// its memory does not grow with the run (the caller's w decides where
// the bytes go; core performs no I/O of its own). It returns the first
// error of w.
type Writer func(w io.Writer, tl *timeline.Timeline) error

// collect runs a Writer into memory, for callers that want the bytes.
func collect(write Writer, tl *timeline.Timeline) ([]byte, error) {
	var b bytes.Buffer
	if err := write(&b, tl); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// jsonOut writes JSON text piece by piece and keeps the first error, so
// a writer can go on unconditionally and check once at the end.
type jsonOut struct {
	w   io.Writer
	err error
}

func (o *jsonOut) raw(s string) {
	if o.err == nil {
		_, o.err = io.WriteString(o.w, s)
	}
}

func (o *jsonOut) value(v any) {
	if o.err != nil {
		return
	}
	b, err := json.Marshal(v)
	if err != nil {
		o.err = err
		return
	}
	_, o.err = o.w.Write(b)
}

// field writes `,"name":value` (no comma before the first field).
func (o *jsonOut) field(name string, v any, first bool) {
	o.key(name, first)
	o.value(v)
}

func (o *jsonOut) key(name string, first bool) {
	if !first {
		o.raw(",")
	}
	o.value(name)
	o.raw(":")
}

// array writes a JSON array of n items, each encoded on its own.
func (o *jsonOut) array(n int, item func(i int) any) {
	o.raw("[")
	for i := 0; i < n && o.err == nil; i++ {
		if i > 0 {
			o.raw(",")
		}
		o.value(item(i))
	}
	o.raw("]")
}
