package sim

import (
	"encoding/binary"
	"fmt"
	"math"
	"reflect"
)

// reader reads an encoded state, remembering the first error: every read
// after it returns zero, so a decoder checks once per section.
type reader struct {
	b   []byte
	err error
}

func (r *reader) failf(format string, args ...any) {
	if r.err == nil {
		r.err = fmt.Errorf(format, args...)
	}
}

func (r *reader) uvarint(what string) uint64 {
	if r.err != nil {
		return 0
	}
	v, n := binary.Uvarint(r.b)
	if n <= 0 {
		r.failf("%s: truncated or overlong varint", what)
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *reader) varint(what string) int64 {
	if r.err != nil {
		return 0
	}
	v, n := binary.Varint(r.b)
	if n <= 0 {
		r.failf("%s: truncated or overlong varint", what)
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *reader) byte1(what string) byte {
	if r.err != nil {
		return 0
	}
	if len(r.b) == 0 {
		r.failf("%s: truncated", what)
		return 0
	}
	v := r.b[0]
	r.b = r.b[1:]
	return v
}

// index reads an id below n.
func (r *reader) index(what string, n int) int {
	v := r.uvarint(what)
	if r.err == nil && v >= uint64(n) {
		r.failf("%s is %d, not below %d", what, v, n)
		return 0
	}
	return int(v)
}

// count reads a number of elements that take at least one byte each:
// one the remaining bytes cannot hold is refused before anything is
// allocated for it.
func (r *reader) count(what string) int {
	v := r.uvarint(what)
	if r.err == nil && v > uint64(len(r.b)) {
		r.failf("%s is %d, more than the %d bytes left", what, v, len(r.b))
		return 0
	}
	return int(v)
}

// int32v reads a non-negative value that fits in an int32.
func (r *reader) int32v(what string) int32 {
	v := r.uvarint(what)
	if r.err == nil && v > math.MaxInt32 {
		r.failf("%s is %d, beyond int32", what, v)
		return 0
	}
	return int32(v)
}

func (r *reader) float(what string) float64 {
	return math.Float64frombits(reverseBytes(r.uvarint(what)))
}

func (r *reader) str(what string) string {
	n := r.count(what + " length")
	if r.err != nil {
		return ""
	}
	s := string(r.b[:n])
	r.b = r.b[n:]
	return s
}

// Decode reads a state Append wrote into a new world of the template's
// model, with no chooser (SetChooser) and no trace. Bad bytes return an
// error naming what was wrong, never a world.
func (c *Codec) Decode(b []byte) (*World, error) { return c.DecodeInto(nil, b) }

// DecodeInto is Decode into dst's memory: the kernel's tables of dst (a
// world of this codec's model, decoded or cloned) are reused, as
// SnapshotInto reuses them, so that a worker decoding state after state
// allocates little. Nothing may use dst's previous state afterwards,
// whether decoding succeeds or not. A nil dst gets fresh memory.
func (c *Codec) DecodeInto(dst *World, b []byte) (*World, error) {
	w, err := c.decode(dst, b)
	if err != nil {
		return nil, fmt.Errorf("%w: decode: %v", ErrCodec, err)
	}
	return w, nil
}

func (c *Codec) decode(dst *World, b []byte) (*World, error) {
	r := &reader{b: b}
	if v := r.byte1("version"); r.err == nil && v != codecVersion {
		return nil, fmt.Errorf("version %d, this codec reads %d", v, codecVersion)
	}
	w := c.tmpl.kernelInto(dst)
	flags := r.uvarint("flags")
	if stop := flags >> 2; r.err == nil && stop > uint64(StopError) {
		return nil, fmt.Errorf("stop reason %d unknown", stop)
	}
	w.untimed, w.finished, w.stop = flags&1 != 0, flags&2 != 0, StopReason(flags>>2)
	w.now = Time(r.varint("now"))
	steps := r.uvarint("steps")
	if r.err == nil && steps > math.MaxInt32 {
		return nil, fmt.Errorf("steps %d beyond int32", steps)
	}
	w.steps = int(steps)
	w.timerSeq = int64(r.uvarint("timer sequence") & math.MaxInt64)
	w.msgSeq = MsgID(r.int32v("message sequence"))
	w.crashes = r.int32v("crashes")
	for i := range w.procs {
		c.decodeProc(r, w, i)
	}
	if r.err != nil {
		return nil, r.err
	}
	if w.crashes > 0 {
		for i := range w.nodes {
			v := r.uvarint("node incarnation")
			if r.err == nil && v>>1 > math.MaxInt32 {
				return nil, fmt.Errorf("node %d incarnation %d beyond int32", i, v>>1)
			}
			w.nodes[i].Down, w.nodes[i].Incarnation = v&1 != 0, int32(v>>1)
		}
	}
	for i := range w.mutexes {
		m := &w.mutexes[i]
		m.Holder = ProcID(r.index("mutex holder", len(w.procs)+1) - 1)
		m.Waiters = c.decodeProcs(r, w, "mutex waiters")
		m.lockStep, m.releaseStep = -1, -1
	}
	for i := range w.conds {
		w.conds[i].Waiters = c.decodeProcs(r, w, "cond waiters")
	}
	if r.err != nil {
		return nil, r.err
	}
	c.decodeNet(r, w)
	c.decodeQueue(r, w)
	c.decodeProps(r, w)
	if r.err != nil {
		return nil, r.err
	}
	m, err := c.decodeModel(r.b)
	if err != nil {
		return nil, err
	}
	w.model = m
	return w, nil
}

// kernelInto copies the template's kernel tables that decoding writes
// into dst's memory (fresh memory when dst is nil), leaving the model
// and the queue to be decoded.
func (w *World) kernelInto(dst *World) *World {
	if dst == nil {
		dst = &World{}
	}
	queue, nodes, procs, mutexes, conds := dst.queue, dst.nodes, dst.procs, dst.mutexes, dst.conds
	links, lastFIFO, violated, last := dst.net.links, dst.net.lastFIFO, dst.violated, dst.last
	*dst = *w
	dst.schedule, dst.ownsSchedule = nil, false
	dst.queue, dst.cancelled = queue[:0], nil
	dst.nodes = append(nodes[:0], w.nodes...)
	dst.procs = append(procs[:0], w.procs...)
	dst.mutexes = append(mutexes[:0], w.mutexes...)
	dst.conds = append(conds[:0], w.conds...)
	dst.net.links = append(links[:0], w.net.links...)
	dst.net.lastFIFO = append(lastFIFO[:0], w.net.lastFIFO...)
	dst.violated = append(violated[:0], w.violated...)
	dst.last = append(last[:0], w.last...)
	dst.ties, dst.tieProcs, dst.tieIdx = nil, nil, nil
	return dst
}

func (c *Codec) decodeProc(r *reader, w *World, i int) {
	p := &w.procs[i]
	head := r.byte1("process state")
	if r.err == nil && (head&7 > byte(Crashed) || head>>5 != 0) {
		r.failf("process %s: state byte %#x", p.Name, head)
		return
	}
	p.Status = ProcStatus(head & 7)
	pc := r.varint("pc")
	if r.err == nil && (pc < math.MinInt32 || pc > math.MaxInt32) {
		r.failf("process %s: pc %d beyond int32", p.Name, pc)
	}
	p.PC = int(pc)
	p.BlockedOn, p.WaitingOn = None, None
	if head&(1<<3) != 0 {
		p.BlockedOn = MutexID(r.index("blocked on", len(w.mutexes)))
	}
	if head&(1<<4) != 0 {
		p.WaitingOn = CondID(r.index("waiting on", len(w.conds)))
	}
}

func (c *Codec) decodeProcs(r *reader, w *World, what string) []ProcID {
	n := r.count(what)
	if n == 0 || r.err != nil {
		return nil
	}
	out := make([]ProcID, n)
	for i := range out {
		out[i] = ProcID(r.index(what, len(w.procs)))
	}
	return out
}

func (c *Codec) decodeNet(r *reader, w *World) {
	for n := r.count("changed links"); n > 0 && r.err == nil; n-- {
		i := r.index("link", len(w.net.links))
		l := Link{Min: Time(r.varint("link min")), Max: Time(r.varint("link max")), Res: Time(r.varint("link res")),
			Drop: r.float("link drop"), Dup: r.float("link dup")}
		f := r.uvarint("link flags")
		if r.err == nil && f > 3 {
			r.failf("link flags %d", f)
		}
		if r.err != nil {
			return
		}
		l.FIFO, l.Down = f&1 != 0, f&2 != 0
		w.net.links[i] = l
	}
	clear(w.net.lastFIFO)
	for n := r.count("FIFO horizons"); n > 0 && r.err == nil; n-- {
		i := r.index("FIFO link", len(w.net.lastFIFO))
		d := r.uvarint("FIFO horizon")
		if r.err == nil && d > math.MaxInt64-uint64(max(w.now, 0)) {
			r.failf("FIFO horizon %d beyond the time range", d)
		}
		if r.err != nil {
			return
		}
		w.net.lastFIFO[i] = w.now + Time(d)
	}
}

func (c *Codec) decodeQueue(r *reader, w *World) {
	n := r.count("events")
	if r.err != nil {
		return
	}
	if cap(w.queue) < n {
		w.queue = make(eventQueue, 0, n)
	}
	w.queue, w.cancelled = w.queue[:0], nil
	at := w.now
	for i := 0; i < n && r.err == nil; i++ {
		d := r.uvarint("event time")
		if r.err == nil && d > math.MaxInt64-uint64(max(at, 0)) {
			r.failf("event %d time beyond the time range", i)
			return
		}
		at += Time(d)
		head := r.uvarint("event process and kind")
		e := Event{At: at, seq: uint64(i), Kind: EventKind(head&3 + 1), Cause: -1}
		if r.err == nil && head>>2 >= uint64(len(w.procs)) {
			r.failf("event %d process %d, not below %d", i, head>>2, len(w.procs))
			return
		}
		e.Proc = ProcID(head >> 2)
		switch e.Kind {
		case EvDeliver:
			e.Msg = MsgID(r.int32v("message id"))
			e.From = ProcID(r.index("message sender", len(w.procs)))
			if r.err == nil {
				var err error
				if e.Payload, r.b, err = c.payloads.decode(r.b); err != nil {
					r.failf("event %d payload: %v", i, err)
				}
			}
		case EvTimer:
			e.Timer = int(r.varint("timer tag"))
			e.TimerID = int64(r.uvarint("timer id") & math.MaxInt64)
		case EvAcquire:
			e.Mutex = MutexID(r.index("acquired mutex", len(w.mutexes)))
			if r.err == nil && w.mutexes[e.Mutex].Kind == MutexGo {
				e.Relock = r.index("relock", 2) == 1
			}
		}
		if r.err == nil {
			e.inc = w.nodes[w.procs[e.Proc].Node].Incarnation
			// In (time, rank) order, each event is a valid heap's last leaf.
			w.queue = append(w.queue, e)
		}
	}
	w.seq = uint64(n)
}

func (c *Codec) decodeProps(r *reader, w *World) {
	for i := 0; i < len(w.violated); i += 8 {
		m := r.byte1("violated properties")
		for j := i; j < i+8 && j < len(w.violated); j++ {
			w.violated[j] = m&(1<<(j-i)) != 0
		}
	}
	w.violations, w.reached = c.decodeViolations(r, w, "violations"), c.decodeViolations(r, w, "reached")
}

func (c *Codec) decodeViolations(r *reader, w *World, what string) []Violation {
	n := r.count(what)
	if n == 0 || r.err != nil {
		return nil
	}
	out := make([]Violation, n)
	for i := range out {
		p := r.index(what+" property", len(w.props))
		if r.err != nil {
			return nil
		}
		v := Violation{Property: w.props[p].Name, Seed: w.seed}
		step := r.uvarint(what + " step")
		if r.err == nil && step > math.MaxInt32 {
			r.failf("%s step %d beyond int32", what, step)
		}
		v.Step = int(step)
		v.Time = Time(r.varint(what + " time"))
		v.Message = r.str(what + " message")
		out[i] = v
	}
	return out
}

func (c *Codec) decodeModel(b []byte) (Model, error) {
	if c.caps.DecodeState != nil {
		m := c.tmpl.model.Clone()
		if err := c.caps.DecodeState(m, b); err != nil {
			return nil, fmt.Errorf("the model's DecodeState: %v", err)
		}
		return m, nil
	}
	pv := reflect.New(c.modelType.Elem())
	v, t := pv.Elem(), reflect.ValueOf(c.tmpl.model).Elem()
	n := (len(c.flat) + 7) / 8
	if len(b) < n {
		return nil, fmt.Errorf("model %s: truncated field mask", c.modelType)
	}
	mask := b[:n]
	d := valueDecoder{payloads: &c.payloads, b: b[n:]}
	for i := range n * 8 {
		same := mask[i/8]&(1<<(i%8)) != 0
		switch {
		case same && (i >= len(c.flat) || !c.flat[i]):
			return nil, fmt.Errorf("model %s: field mask bit %d set for no flat field", c.modelType, i)
		case same:
			alias(v.Field(i)).Set(alias(t.Field(i)))
		case i < len(c.flat):
			if err := d.decode(v.Field(i), t.Field(i)); err != nil {
				return nil, fmt.Errorf("model %s: %s: %v", c.modelType, c.modelType.Elem().Field(i).Name, err)
			}
		}
	}
	if len(d.b) != 0 {
		return nil, fmt.Errorf("model %s: %d bytes left over", c.modelType, len(d.b))
	}
	return pv.Interface().(Model), nil
}
