package sim

// StepKind is what a step was, for the trace and the diagram.
type StepKind uint8

// Step kinds.
const (
	StepReceive StepKind = iota + 1 // an actor handled a delivered message
	StepTimer                       // an actor handled a timer
	StepLocal                       // a thread did local work (or slept)
	StepLock                        // a thread acquired a mutex
	StepBlock                       // a thread found a mutex held and blocked
	StepUnlock                      // a thread released a mutex
	StepWait                        // a thread waits on a condition variable
	StepSignal                      // a thread signalled a condition variable
	StepFault                       // a crash, restart, partition or heal
	StepExit                        // a thread ended
)

var stepKindNames = [...]string{"", "receive", "timer", "local", "lock", "block", "unlock", "wait", "signal", "fault", "exit"}

func (k StepKind) String() string { return stepKindNames[k] }

// MarshalText makes step kinds readable in JSON.
func (k StepKind) MarshalText() ([]byte, error) { return []byte(k.String()), nil }

// Step is one recorded step.
type Step struct {
	Time Time     `json:"time"`
	Proc ProcID   `json:"proc"`
	Kind StepKind `json:"kind"`
	// Msg is the message received (StepReceive), 0 otherwise.
	Msg MsgID `json:"msg,omitempty"`
	// Parent is the step on another process this one causally follows
	// (the send of a received message, the release of an acquired mutex),
	// or -1.
	Parent int32 `json:"parent"`
	// Obj is the mutex (lock steps), condition variable (wait, signal) or
	// timer tag (timer steps), or -1.
	Obj int32 `json:"obj"`
	// Label indexes Trace.Labels (interned, so that steps hold no pointers
	// and a long trace costs the garbage collector nothing to scan).
	Label LabelID `json:"label"`
}

// LabelID indexes Trace.Labels.
type LabelID uint32

// Message is one message sent during a run.
type Message struct {
	ID         MsgID      `json:"id"`
	From       ProcID     `json:"from"`
	To         ProcID     `json:"to"`
	SentStep   int32      `json:"sentStep"`
	RecvStep   int32      `json:"recvStep"` // -1 until delivered
	SentAt     Time       `json:"sentAt"`
	DeliverAt  Time       `json:"deliverAt"`
	Label      LabelID    `json:"label"`
	Dropped    bool       `json:"dropped,omitempty"`
	DropReason DropReason `json:"dropReason,omitempty"`
}

// DropReason says why a message was never delivered.
type DropReason uint8

// Drop reasons.
const (
	NotDropped       DropReason = iota
	DropPartition               // the link was down or the receiver's node was down when sent
	DropLost                    // the link lost it
	DropReceiverDown            // the receiver crashed while it was in flight
)

var dropNames = [...]string{"", "partitioned", "lost", "receiver crashed"}

func (d DropReason) String() string { return dropNames[d] }

// MarshalText makes drop reasons readable in JSON.
func (d DropReason) MarshalText() ([]byte, error) { return []byte(d.String()), nil }

// ChoiceRecord is one decision of the schedule.
type ChoiceRecord struct {
	Step   int32      `json:"step"`
	N      int32      `json:"n"`
	Picked int32      `json:"picked"`
	Kind   ChoiceKind `json:"kind"`
	Label  string     `json:"label"`
	// Lo and Res say what a duration drawn by World.Between is: option k
	// stands for Lo + k*Res (Res 0: the choice is no duration).
	Lo  Time `json:"lo,omitempty"`
	Res Time `json:"res,omitempty"`
}

// Trace is the recording of a run. Steps, messages and vector clocks are
// kept in fixed-size chunks: a long trace grows without ever copying what
// it holds, and holds no pointers for the garbage collector to scan.
type Trace struct {
	steps    chunks[Step]
	messages chunks[Message]
	vc       [][]uint32 // chunkSize clocks of Width entries per chunk
	Choices  []ChoiceRecord
	// Width is the length of a vector clock: one entry per process.
	Width      int
	SeriesDefs []SeriesDef
	Series     [][]Point
	// Labels holds every distinct step and message label once.
	Labels []string

	labelIDs map[string]LabelID
	lastStep []int32
}

const (
	chunkBits = 12
	chunkSize = 1 << chunkBits
	chunkMask = chunkSize - 1
)

// chunks is an append-only vector stored in fixed-size chunks.
type chunks[T any] struct {
	c [][]T
	n int
}

func (s *chunks[T]) add(v T) {
	if s.n&chunkMask == 0 {
		s.c = append(s.c, make([]T, 0, chunkSize))
	}
	last := &s.c[len(s.c)-1]
	*last = append(*last, v)
	s.n++
}

func (s *chunks[T]) at(i int) *T { return &s.c[i>>chunkBits][i&chunkMask] }

// Len is the number of recorded steps.
func (t *Trace) Len() int { return t.steps.n }

// Step returns step i (0 <= i < Len).
func (t *Trace) Step(i int) *Step { return t.steps.at(i) }

// NumMessages is the number of messages sent.
func (t *Trace) NumMessages() int { return t.messages.n }

// Message returns the message with id (ids start at 1).
func (t *Trace) Message(id MsgID) *Message { return t.messages.at(int(id) - 1) }

// Label returns the text of a label id.
func (t *Trace) Label(id LabelID) string { return t.Labels[id] }

// StepLabel returns the label of step i.
func (t *Trace) StepLabel(i int) string { return t.Labels[t.Step(i).Label] }

// intern returns the id of label s.
func (t *Trace) intern(s string) LabelID {
	if id, ok := t.labelIDs[s]; ok {
		return id
	}
	if t.labelIDs == nil {
		t.labelIDs = map[string]LabelID{}
	}
	id := LabelID(len(t.Labels))
	t.Labels = append(t.Labels, s)
	t.labelIDs[s] = id
	return id
}

// Clock returns the vector clock of step i (a view into the trace).
func (t *Trace) Clock(i int) []uint32 {
	off := (i & chunkMask) * t.Width
	return t.vc[i>>chunkBits][off : off+t.Width]
}

// HappensBefore reports whether step a happens before step b.
func (t *Trace) HappensBefore(a, b int) bool {
	if a == b {
		return false
	}
	pa := t.Step(a).Proc
	return t.Clock(a)[pa] <= t.Clock(b)[pa] && a < b
}

func (w *World) record() {
	t := w.trace
	if t == nil {
		return
	}
	c := &w.cur
	i := t.steps.n
	t.steps.add(Step{Time: w.now, Proc: c.proc, Kind: c.kind, Msg: c.msg, Parent: c.parent, Obj: c.obj, Label: t.intern(c.label)})
	width := t.Width
	if i&chunkMask == 0 {
		t.vc = append(t.vc, make([]uint32, 0, chunkSize*width))
	}
	last := &t.vc[len(t.vc)-1]
	*last = append(*last, make([]uint32, width)...)
	vc := t.Clock(i)
	if prev := t.lastStep[c.proc]; prev >= 0 {
		copy(vc, t.Clock(int(prev)))
	}
	if c.parent >= 0 {
		for k, x := range t.Clock(int(c.parent)) {
			if x > vc[k] {
				vc[k] = x
			}
		}
	}
	vc[c.proc]++
	t.lastStep[c.proc] = int32(i)
}
