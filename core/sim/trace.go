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
	Obj   int32  `json:"obj"`
	Label string `json:"label"`
}

// Message is one message sent during a run.
type Message struct {
	ID         MsgID  `json:"id"`
	From       ProcID `json:"from"`
	To         ProcID `json:"to"`
	SentStep   int32  `json:"sentStep"`
	RecvStep   int32  `json:"recvStep"` // -1 until delivered
	SentAt     Time   `json:"sentAt"`
	DeliverAt  Time   `json:"deliverAt"`
	Label      string `json:"label"`
	Dropped    bool   `json:"dropped,omitempty"`
	DropReason string `json:"dropReason,omitempty"`
}

// ChoiceRecord is one decision of the schedule.
type ChoiceRecord struct {
	Step   int32      `json:"step"`
	N      int32      `json:"n"`
	Picked int32      `json:"picked"`
	Kind   ChoiceKind `json:"kind"`
	Label  string     `json:"label"`
}

// Trace is the recording of a run.
type Trace struct {
	Steps    []Step
	Messages []Message
	Choices  []ChoiceRecord
	// VC holds the vector clock of every step: Width entries per step,
	// one per process.
	VC         []uint32
	Width      int
	SeriesDefs []SeriesDef
	Series     [][]Point

	lastStep []int32
}

// Clock returns the vector clock of step i (a view into the trace).
func (t *Trace) Clock(i int) []uint32 { return t.VC[i*t.Width : (i+1)*t.Width] }

// HappensBefore reports whether step a happens before step b.
func (t *Trace) HappensBefore(a, b int) bool {
	if a == b {
		return false
	}
	pa := t.Steps[a].Proc
	return t.Clock(a)[pa] <= t.Clock(b)[pa] && a < b
}

func (w *World) record() {
	t := w.trace
	if t == nil {
		return
	}
	c := &w.cur
	t.Steps = append(t.Steps, Step{Time: w.now, Proc: c.proc, Kind: c.kind, Msg: c.msg, Parent: c.parent, Obj: c.obj, Label: c.label})
	width := t.Width
	base := len(t.VC)
	t.VC = append(t.VC, make([]uint32, width)...)
	vc := t.VC[base : base+width]
	if last := t.lastStep[c.proc]; last >= 0 {
		copy(vc, t.VC[int(last)*width:int(last+1)*width])
	}
	if c.parent >= 0 {
		pv := t.VC[int(c.parent)*width : int(c.parent+1)*width]
		for i, x := range pv {
			if x > vc[i] {
				vc[i] = x
			}
		}
	}
	vc[c.proc]++
	t.lastStep[c.proc] = int32(w.steps)
}
