package sim

// NewTrace returns an empty trace whose vector clocks have width entries,
// for an execution recorded outside the kernel (a real system's log,
// imported by core/ingest) and filled with AddStep and AddMessage.
func NewTrace(width int) *Trace { return &Trace{Width: width} }

// AddStep appends step s with its label and its vector clock (Width
// entries, copied) and returns its index. The caller keeps the steps in
// an order consistent with their clocks, as the kernel does.
func (t *Trace) AddStep(s Step, label string, clock []uint32) int {
	if len(clock) != t.Width {
		panic("sim: AddStep clock has the wrong width")
	}
	i := t.steps.n
	s.Label = t.intern(label)
	t.steps.add(s)
	if i&chunkMask == 0 {
		t.vc = append(t.vc, make([]uint32, 0, chunkSize*t.Width))
	}
	last := &t.vc[len(t.vc)-1]
	*last = append(*last, clock...)
	return i
}

// AddMessage appends message m with its label and returns its id (ids
// count from 1 in the order messages are added; m.ID is ignored).
func (t *Trace) AddMessage(m Message, label string) MsgID {
	m.ID = MsgID(t.messages.n + 1)
	m.Label = t.intern(label)
	t.messages.add(m)
	return m.ID
}
