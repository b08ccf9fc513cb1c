package timeline

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/racetrack-sim/racetrack/core/sim"
)

// StepView is one step, ready for JSON (times in milliseconds).
type StepView struct {
	Index    int          `json:"index"`
	Time     float64      `json:"time"`
	Proc     sim.ProcID   `json:"proc"`
	ProcName string       `json:"procName"`
	Node     sim.NodeID   `json:"node"`
	NodeName string       `json:"nodeName"`
	Shard    int          `json:"shard"`
	Kind     sim.StepKind `json:"kind"`
	Label    string       `json:"label"`
	// Object names the mutex (lock, block, unlock) or condition variable
	// (wait, signal) the step is about.
	Object string `json:"object,omitempty"`
	// Msg is the message received, 0 if none.
	Msg    sim.MsgID `json:"msg,omitempty"`
	Parent int32     `json:"parent"`
	// Sends lists the messages this step sent.
	Sends []sim.MsgID `json:"sends"`
	// Choices is how many choices with several options were made at this
	// step (what Alternatives lists).
	Choices int `json:"choices,omitempty"`
}

// MaxStepsPage bounds one Steps call.
const MaxStepsPage = 10_000

// Steps returns up to limit steps starting at from. A from equal to Len
// returns an empty page.
func (tl *Timeline) Steps(from, limit int) ([]StepView, error) {
	n := tl.Len()
	if from < 0 || from > n {
		return nil, fmt.Errorf("%w: from %d is outside [0, %d]", ErrStepRange, from, n)
	}
	if limit < 0 {
		return nil, fmt.Errorf("%w: limit %d is negative", ErrStepRange, limit)
	}
	if limit > MaxStepsPage {
		limit = MaxStepsPage
	}
	to := min(n, from+limit)
	out := make([]StepView, 0, to-from)
	for i := from; i < to; i++ {
		out = append(out, tl.StepView(i))
	}
	return out, nil
}

// StepView describes step i (which must be in range).
func (tl *Timeline) StepView(i int) StepView {
	s := tl.trace.Step(i)
	p := &tl.procs[s.Proc]
	v := StepView{Index: i, Time: s.Time.Millis(), Proc: s.Proc, ProcName: p.Name, Node: p.Node, NodeName: tl.nodes[p.Node].Name,
		Shard: p.Shard, Kind: s.Kind, Label: tl.trace.Label(s.Label), Msg: s.Msg, Parent: s.Parent,
		Sends: tl.Sends(i), Object: tl.objectName(s)}
	if v.Sends == nil {
		v.Sends = []sim.MsgID{}
	}
	lo, hi := tl.choicesAt(i)
	v.Choices = hi - lo
	return v
}

func (tl *Timeline) objectName(s *sim.Step) string {
	switch s.Kind {
	case sim.StepLock, sim.StepBlock, sim.StepUnlock:
		if s.Obj >= 0 && int(s.Obj) < len(tl.mutexes) {
			return tl.mutexes[s.Obj].Name
		}
	case sim.StepWait, sim.StepSignal:
		if s.Obj >= 0 && int(s.Obj) < len(tl.conds) {
			return tl.conds[s.Obj].Name
		}
	}
	return ""
}

// choicesAt returns the range of trace choices made at step i.
func (tl *Timeline) choicesAt(i int) (lo, hi int) {
	cs := tl.trace.Choices
	lo = sort.Search(len(cs), func(k int) bool { return int(cs[k].Step) >= i })
	hi = sort.Search(len(cs), func(k int) bool { return int(cs[k].Step) > i })
	return lo, hi
}

// FilterKind selects which steps NextEvent and PrevEvent stop at.
type FilterKind uint8

// Filter kinds.
const (
	AnyStep       FilterKind = iota // every step
	MessageStep                     // a step that sends or receives a message
	LockStep                        // lock, block, unlock, wait or signal
	ViolationStep                   // a step at which a property failed
	ChoiceStep                      // a step at which the chooser had several options
	ProcStep                        // a step of process Proc
)

// Filter selects steps for NextEvent and PrevEvent.
type Filter struct {
	Kind FilterKind
	Proc sim.ProcID // for ProcStep
}

// ParseFilter reads "message", "lock", "violation", "choice", "proc=P" or "" (any
// step).
func ParseFilter(s string) (Filter, error) {
	switch s {
	case "", "step", "any":
		return Filter{Kind: AnyStep}, nil
	case "message":
		return Filter{Kind: MessageStep}, nil
	case "lock":
		return Filter{Kind: LockStep}, nil
	case "violation":
		return Filter{Kind: ViolationStep}, nil
	case "choice":
		return Filter{Kind: ChoiceStep}, nil
	}
	if p, ok := strings.CutPrefix(s, "proc="); ok {
		n, err := strconv.Atoi(p)
		if err != nil || n < 0 {
			return Filter{}, fmt.Errorf("timeline: filter %q: proc must be a process number", s)
		}
		return Filter{Kind: ProcStep, Proc: sim.ProcID(n)}, nil
	}
	return Filter{}, fmt.Errorf("timeline: unknown filter %q; one of message, lock, violation, choice, proc=P", s)
}

func (f Filter) String() string {
	switch f.Kind {
	case MessageStep:
		return "message"
	case LockStep:
		return "lock"
	case ViolationStep:
		return "violation"
	case ChoiceStep:
		return "choice"
	case ProcStep:
		return "proc=" + strconv.Itoa(int(f.Proc))
	}
	return "step"
}

// steps returns the sorted step list a filter selects, or nil for
// AnyStep.
func (tl *Timeline) filterSteps(f Filter) ([]int32, bool) {
	switch f.Kind {
	case MessageStep:
		return tl.idx.messageSteps, true
	case LockStep:
		return tl.idx.lockSteps, true
	case ViolationStep:
		return tl.idx.violationSteps, true
	case ChoiceStep:
		return tl.idx.choiceSteps, true
	case ProcStep:
		return tl.ProcSteps(f.Proc), true
	}
	return nil, false
}

// NextEvent returns the first step after i that f selects. i may be -1
// (search from the start).
func (tl *Timeline) NextEvent(i int, f Filter) (int, bool) {
	list, ok := tl.filterSteps(f)
	if !ok {
		if i+1 < tl.Len() && i+1 >= 0 {
			return i + 1, true
		}
		return 0, false
	}
	k := sort.Search(len(list), func(k int) bool { return int(list[k]) > i })
	if k < len(list) {
		return int(list[k]), true
	}
	return 0, false
}

// PrevEvent returns the last step before i that f selects. i may be Len
// (search from the end).
func (tl *Timeline) PrevEvent(i int, f Filter) (int, bool) {
	list, ok := tl.filterSteps(f)
	if !ok {
		if i-1 >= 0 && i-1 < tl.Len() {
			return i - 1, true
		}
		return 0, false
	}
	k := sort.Search(len(list), func(k int) bool { return int(list[k]) >= i })
	if k > 0 {
		return int(list[k-1]), true
	}
	return 0, false
}
