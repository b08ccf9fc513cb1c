package sim

// Digest summarises a whole traced run in 64 bits: every step, message,
// choice and violation, and the final state. Two runs with the same digest
// are the same run; golden files of digests pin determinism across
// machines and between the native and the wasm build.
func (w *World) Digest() uint64 {
	h := NewHasher()
	if t := w.trace; t != nil {
		h.Int(t.Len())
		for i := 0; i < t.Len(); i++ {
			s := t.Step(i)
			h.Int64(int64(s.Time))
			h.Int(int(s.Proc))
			h.Int(int(s.Kind))
			h.Int(int(s.Msg))
			h.Int(int(s.Parent))
			h.Int(int(s.Obj))
			h.String(t.Labels[s.Label])
		}
		h.Int(t.NumMessages())
		for id := MsgID(1); int(id) <= t.NumMessages(); id++ {
			m := t.Message(id)
			h.Int(int(m.From))
			h.Int(int(m.To))
			h.Int(int(m.SentStep))
			h.Int(int(m.RecvStep))
			h.Int64(int64(m.DeliverAt))
			h.Int(int(m.DropReason))
		}
		for _, pts := range t.Series {
			h.Int(len(pts))
			for _, p := range pts {
				h.Int(int(p.Step))
				h.Float(p.Value)
			}
		}
	}
	h.Int(w.steps)
	h.Int64(int64(w.now))
	h.Int(len(w.schedule))
	for _, c := range w.schedule {
		h.Int(c)
	}
	for _, v := range w.violations {
		h.String(v.Property)
		h.Int(v.Step)
		h.String(v.Message)
	}
	h.Uint64(w.Hash())
	return h.Sum()
}
