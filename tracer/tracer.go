package tracer

import (
	"io"
	"strconv"
	"sync"
	"time"
)

// Tracer writes one trace. It is safe for concurrent use. A nil *Tracer
// is off.
type Tracer struct {
	mu      sync.Mutex
	w       io.Writer
	buf     []byte
	start   time.Time
	untimed bool
	err     error
	seq     uint64
}

// Option configures a Tracer.
type Option func(*Tracer)

// WithoutTimes leaves the time ("t") out of every event: the trace is
// ordered but untimed (a test that compares traces, an example).
func WithoutTimes() Option { return func(t *Tracer) { t.untimed = true } }

// New returns a Tracer writing to w; a nil w gives a nil (off) Tracer.
func New(w io.Writer, opts ...Option) *Tracer {
	if w == nil {
		return nil
	}
	t := &Tracer{w: w, start: time.Now()}
	for _, o := range opts {
		o(t)
	}
	return t
}

// Err is the first error the writer returned, if any.
func (t *Tracer) Err() error {
	if t == nil {
		return nil
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.err
}

// Node returns the Logger of a node (nil when t is off).
func (t *Tracer) Node(name string) *Logger {
	if t == nil {
		return nil
	}
	return &Logger{t: t, node: name}
}

// MsgID identifies a message from its send to its receive.
type MsgID string

// Field is a named value logged with an event.
type Field struct {
	Name  string
	Value any
}

// F makes a Field. Values are written as JSON: strings, booleans,
// integers and floats as such, errors and fmt.Stringers as their text,
// anything else as its %v text.
func F(name string, value any) Field { return Field{Name: name, Value: value} }

// event is one line to write.
type event struct {
	node, thread, kind, label, obj, to string
	msg                                MsgID
	fields                             []Field
}

func (t *Tracer) write(e *event) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.err != nil {
		return
	}
	b := t.buf[:0]
	b = append(b, `{"node":`...)
	b = appendString(b, e.node)
	if e.thread != "" {
		b = append(b, `,"thread":`...)
		b = appendString(b, e.thread)
	}
	b = append(b, `,"kind":"`...)
	b = append(b, e.kind...)
	b = append(b, '"')
	if e.msg != "" {
		b = append(b, `,"msg":`...)
		b = appendString(b, string(e.msg))
	}
	if e.to != "" {
		b = append(b, `,"to":`...)
		b = appendString(b, e.to)
	}
	if e.obj != "" {
		b = append(b, `,"obj":`...)
		b = appendString(b, e.obj)
	}
	if e.label != "" {
		b = append(b, `,"label":`...)
		b = appendString(b, e.label)
	}
	if !t.untimed {
		b = append(b, `,"t":`...)
		b = strconv.AppendInt(b, int64(time.Since(t.start)), 10)
	}
	if len(e.fields) > 0 {
		b = append(b, `,"fields":{`...)
		for k, f := range e.fields {
			if k > 0 {
				b = append(b, ',')
			}
			b = appendString(b, f.Name)
			b = append(b, ':')
			b = appendValue(b, f.Value)
		}
		b = append(b, '}')
	}
	b = append(b, "}\n"...)
	t.buf = b
	_, t.err = t.w.Write(b)
}

func (t *Tracer) nextID(node string) MsgID {
	t.mu.Lock()
	t.seq++
	n := t.seq
	t.mu.Unlock()
	return MsgID(node + "#" + strconv.FormatUint(n, 10))
}
