package sim

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"reflect"
	"slices"
)

// codecVersion is the first byte of every encoded state; a decoder
// refuses any other.
const codecVersion = 1

// ErrCodec is wrapped by every error of encoding or decoding a state.
var ErrCodec = errors.New("sim: state codec")

// Codec writes the states of one model's worlds as compact bytes and
// reads them back into worlds that continue exactly as the originals,
// without replaying their paths. It is built from the world a run starts
// from (the template): what never changes after Init (names, tables,
// properties, configuration the model shares between its copies) is
// taken from it and never written. A Codec only reads after NewCodec, so
// one may encode and decode from several goroutines at once.
type Codec struct {
	tmpl     *World
	payloads payloadTable
	// caps is the template's capabilities: with AppendState and
	// DecodeState the model writes its own part, else reflection does.
	caps      *Capabilities[Model]
	modelType reflect.Type
	// flat marks the model's fields whose values hold no memory of their
	// own (flat): one equal to the template's is only a bit of a mask.
	flat []bool
}

// NewCodec returns the codec of worlds built like template, which must
// not have stepped yet (it is the state every decoded world starts from
// before its own state is written in). The model's part is written by
// its declared AppendState and DecodeState (Capabilities), else derived
// by reflection; message payloads are of the types its PayloadTypes
// lists, and extra's (for a model declaring none).
// Types the reflective codec cannot carry are refused here, by field.
func NewCodec(template *World, extra ...any) (*Codec, error) {
	if template.steps != 0 {
		return nil, fmt.Errorf("%w: the template has run %d steps; build the codec from a fresh world", ErrCodec, template.steps)
	}
	c := &Codec{tmpl: template.Clone(), caps: template.caps}
	if err := c.caps.Check(); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrCodec, err)
	}
	var listed []any
	if c.caps.PayloadTypes != nil {
		listed = c.caps.PayloadTypes(template.model)
	}
	var err error
	if c.payloads, err = newPayloadTable(append(slices.Clone(listed), extra...)); err != nil {
		return nil, err
	}
	if c.caps.AppendState != nil {
		return c, nil
	}
	t := reflect.TypeOf(template.model)
	if t.Kind() != reflect.Pointer || t.Elem().Kind() != reflect.Struct {
		return nil, fmt.Errorf("%w: model type %s is not a pointer to a struct: declare AppendState and DecodeState (sim.Capabilities)", ErrCodec, t)
	}
	if err := checkType(t.Elem(), nil, false); err != nil {
		return nil, fmt.Errorf("%w: model %s: %v", ErrCodec, t, err)
	}
	c.modelType = t
	for i := range t.Elem().NumField() {
		c.flat = append(c.flat, flat(t.Elem().Field(i).Type))
	}
	return c, nil
}

// Append appends w's encoded state to buf. w must be a world of the
// template's model that has not failed.
func (c *Codec) Append(buf []byte, w *World) ([]byte, error) {
	if w.err != nil {
		return buf, fmt.Errorf("%w: the world failed (%v): a failed run has no state to continue", ErrCodec, w.err)
	}
	if len(w.procs) != len(c.tmpl.procs) || len(w.mutexes) != len(c.tmpl.mutexes) || len(w.nodes) != len(c.tmpl.nodes) ||
		len(w.conds) != len(c.tmpl.conds) || len(w.props) != len(c.tmpl.props) {
		return buf, fmt.Errorf("%w: the world's tables do not match the template's: another model or configuration", ErrCodec)
	}
	b := append(buf, codecVersion)
	flags := uint64(0)
	if w.untimed {
		flags |= 1
	}
	if w.finished {
		flags |= 2
	}
	b = binary.AppendUvarint(b, flags|uint64(w.stop)<<2)
	b = binary.AppendVarint(b, int64(w.now))
	b = binary.AppendUvarint(b, uint64(w.steps))
	b = binary.AppendUvarint(b, uint64(w.timerSeq))
	b = binary.AppendUvarint(b, uint64(w.msgSeq))
	b = binary.AppendUvarint(b, uint64(w.crashes))
	for i := range w.procs {
		b = appendProc(b, &w.procs[i])
	}
	if w.crashes > 0 {
		for i := range w.nodes {
			n := &w.nodes[i]
			b = binary.AppendUvarint(b, uint64(n.Incarnation)<<1|b2u(n.Down))
		}
	}
	for i := range w.mutexes {
		m := &w.mutexes[i]
		b = binary.AppendUvarint(b, uint64(m.Holder+1))
		b = appendProcs(b, m.Waiters)
	}
	for i := range w.conds {
		b = appendProcs(b, w.conds[i].Waiters)
	}
	b = c.appendNet(b, w)
	var err error
	if b, err = c.appendQueue(b, w); err != nil {
		return buf, err
	}
	b = appendProps(b, w)
	if b, err = c.appendModel(b, w.model); err != nil {
		return buf, err
	}
	return b, nil
}

func b2u(v bool) uint64 {
	if v {
		return 1
	}
	return 0
}

// appendProc writes a process's scheduling state: its status and which
// of its two object ids follow in one byte, then its PC.
func appendProc(b []byte, p *Proc) []byte {
	head := uint64(p.Status)
	if p.BlockedOn != None {
		head |= 1 << 3
	}
	if p.WaitingOn != None {
		head |= 1 << 4
	}
	b = append(b, byte(head))
	b = binary.AppendVarint(b, int64(p.PC))
	if p.BlockedOn != None {
		b = binary.AppendUvarint(b, uint64(p.BlockedOn))
	}
	if p.WaitingOn != None {
		b = binary.AppendUvarint(b, uint64(p.WaitingOn))
	}
	return b
}

func appendProcs(b []byte, ps []ProcID) []byte {
	b = binary.AppendUvarint(b, uint64(len(ps)))
	for _, p := range ps {
		b = binary.AppendUvarint(b, uint64(p))
	}
	return b
}

// appendNet writes the links that differ from the template's (models
// partition and heal them) and the FIFO horizons still ahead of now
// (one at or before now delays nothing).
func (c *Codec) appendNet(b []byte, w *World) []byte {
	changed := 0
	for i := range w.net.links {
		if w.net.links[i] != c.tmpl.net.links[i] {
			changed++
		}
	}
	b = binary.AppendUvarint(b, uint64(changed))
	for i := range w.net.links {
		if l := &w.net.links[i]; *l != c.tmpl.net.links[i] {
			b = binary.AppendUvarint(b, uint64(i))
			b = appendLink(b, l)
		}
	}
	ahead := 0
	for _, t := range w.net.lastFIFO {
		if t > w.now {
			ahead++
		}
	}
	b = binary.AppendUvarint(b, uint64(ahead))
	for i, t := range w.net.lastFIFO {
		if t > w.now {
			b = binary.AppendUvarint(b, uint64(i))
			b = binary.AppendUvarint(b, uint64(t-w.now))
		}
	}
	return b
}

func appendLink(b []byte, l *Link) []byte {
	b = binary.AppendVarint(b, int64(l.Min))
	b = binary.AppendVarint(b, int64(l.Max))
	b = binary.AppendVarint(b, int64(l.Res))
	b = appendFloat(b, l.Drop)
	b = appendFloat(b, l.Dup)
	return binary.AppendUvarint(b, b2u(l.FIFO)|b2u(l.Down)<<1)
}

// appendQueue writes the events that can still fire, in the order they
// would (time, then scheduling order), each time as the distance from
// the previous one. Stale events (cancelled timers, events of a crashed
// incarnation) fire nothing and are left out, so the set of cancelled
// timers is never written; sequence numbers become ranks.
func (c *Codec) appendQueue(b []byte, w *World) ([]byte, error) {
	live := make([]Event, 0, len(w.queue))
	for i := range w.queue {
		if !w.stale(&w.queue[i]) {
			live = append(live, w.queue[i])
		}
	}
	sortEvents(live)
	b = binary.AppendUvarint(b, uint64(len(live)))
	prev := w.now
	for i := range live {
		e := &live[i]
		if e.At < prev {
			return b, fmt.Errorf("%w: event %d of the queue is at %s, before now (%s)", ErrCodec, i, e.At, w.now)
		}
		b = binary.AppendUvarint(b, uint64(e.At-prev))
		prev = e.At
		b = binary.AppendUvarint(b, uint64(e.Proc)<<2|uint64(e.Kind-1))
		switch e.Kind {
		case EvDeliver:
			b = binary.AppendUvarint(b, uint64(e.Msg))
			b = binary.AppendUvarint(b, uint64(e.From))
			var err error
			if b, err = c.payloads.append(b, e.Payload); err != nil {
				return b, fmt.Errorf("%w: message %d to %s: %v", ErrCodec, e.Msg, w.ProcName(e.Proc), err)
			}
		case EvTimer:
			b = binary.AppendVarint(b, int64(e.Timer))
			b = binary.AppendUvarint(b, uint64(e.TimerID))
		case EvAcquire:
			b = binary.AppendUvarint(b, uint64(e.Mutex))
			if w.mutexes[e.Mutex].Kind == MutexGo {
				b = binary.AppendUvarint(b, b2u(e.Relock))
			}
		}
	}
	return b, nil
}

// appendProps writes which properties were violated or reached, and the
// records of the first failures.
func appendProps(b []byte, w *World) []byte {
	for i := 0; i < len(w.violated); i += 8 {
		var m byte
		for j := i; j < i+8 && j < len(w.violated); j++ {
			if w.violated[j] {
				m |= 1 << (j - i)
			}
		}
		b = append(b, m)
	}
	for _, vs := range [][]Violation{w.violations, w.reached} {
		b = binary.AppendUvarint(b, uint64(len(vs)))
		for i := range vs {
			v := &vs[i]
			b = binary.AppendUvarint(b, uint64(w.propIndex(v.Property)))
			b = binary.AppendUvarint(b, uint64(v.Step))
			b = binary.AppendVarint(b, int64(v.Time))
			b = appendString(b, v.Message)
		}
	}
	return b
}

func (w *World) propIndex(name string) int {
	for i := range w.props {
		if w.props[i].Name == name {
			return i
		}
	}
	return len(w.props)
}

func appendString(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

// appendFloat writes v's bits byte-reversed, so that round values
// (whose low mantissa bytes are zero) take few bytes.
func appendFloat(b []byte, v float64) []byte {
	return binary.AppendUvarint(b, reverseBytes(math.Float64bits(v)))
}

func reverseBytes(x uint64) uint64 {
	var r uint64
	for range 8 {
		r = r<<8 | x&0xff
		x >>= 8
	}
	return r
}

func (c *Codec) appendModel(b []byte, m Model) ([]byte, error) {
	if c.caps.AppendState != nil {
		out, err := c.caps.AppendState(m, b)
		if err != nil {
			return b, fmt.Errorf("%w: the model's AppendState: %v", ErrCodec, err)
		}
		return out, nil
	}
	if reflect.TypeOf(m) != c.modelType {
		return b, fmt.Errorf("%w: model of type %T, the codec's is %s", ErrCodec, m, c.modelType)
	}
	v, t := reflect.ValueOf(m).Elem(), reflect.ValueOf(c.tmpl.model).Elem()
	mask := len(b)
	b = append(b, make([]byte, (len(c.flat)+7)/8)...)
	for i, f := range c.flat {
		if f && sameBytes(v.Field(i), t.Field(i)) {
			b[mask+i/8] |= 1 << (i % 8)
		}
	}
	e := valueEncoder{payloads: &c.payloads}
	for i := range c.flat {
		if b[mask+i/8]&(1<<(i%8)) != 0 {
			continue
		}
		var err error
		if b, err = e.append(b, v.Field(i), t.Field(i)); err != nil {
			return b, fmt.Errorf("%w: model %s: %s: %v", ErrCodec, c.modelType, c.modelType.Elem().Field(i).Name, err)
		}
	}
	return b, nil
}
