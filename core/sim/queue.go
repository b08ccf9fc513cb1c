package sim

// EventKind says why an event wakes a process.
type EventKind uint8

// Event kinds.
const (
	EvDeliver EventKind = iota + 1 // a message arrives at an actor or thread
	EvTimer                        // a timer set by the process fires
	EvStep                         // a thread's next atomic step
	EvAcquire                      // a blocked thread was handed the mutex it waited for
)

var eventKindNames = [...]string{"", "deliver", "timer", "step", "acquire"}

func (k EventKind) String() string { return eventKindNames[k] }

// Event is one entry of the event queue. Events are plain data so that a
// world can be cloned and hashed.
type Event struct {
	At      Time
	seq     uint64
	Proc    ProcID
	Kind    EventKind
	Msg     MsgID // EvDeliver: the message
	From    ProcID
	Timer   int     // EvTimer: the model's tag
	TimerID int64   // EvTimer: kernel id, for cancellation
	Mutex   MutexID // EvAcquire: the mutex handed over
	Cause   int32   // the step this event was caused by (send, unlock, set timer), -1 if none
	Payload any     // EvDeliver: the message payload (an immutable value)
	inc     int32   // incarnation of the target's node when scheduled
}

// eventQueue is a binary min-heap ordered by (At, seq). It is written out
// rather than built on container/heap to avoid boxing every event.
type eventQueue []Event

func (q eventQueue) less(i, j int) bool {
	if q[i].At != q[j].At {
		return q[i].At < q[j].At
	}
	return q[i].seq < q[j].seq
}

func (q *eventQueue) push(e Event) {
	*q = append(*q, e)
	h := *q
	i := len(h) - 1
	for i > 0 {
		p := (i - 1) / 2
		if !h.less(i, p) {
			break
		}
		h[i], h[p] = h[p], h[i]
		i = p
	}
}

func (q *eventQueue) pop() Event {
	h := *q
	n := len(h) - 1
	top := h[0]
	h[0] = h[n]
	h[n] = Event{}
	h = h[:n]
	i := 0
	for {
		l := 2*i + 1
		if l >= n {
			break
		}
		m := l
		if r := l + 1; r < n && h.less(r, l) {
			m = r
		}
		if !h.less(m, i) {
			break
		}
		h[i], h[m] = h[m], h[i]
		i = m
	}
	*q = h
	return top
}

// remove takes out the event at index i.
func (q *eventQueue) remove(i int) Event {
	h := *q
	n := len(h) - 1
	e := h[i]
	h[i] = h[n]
	h[n] = Event{}
	h = h[:n]
	*q = h
	if i < n {
		// The moved event may belong above i or below it.
		for i > 0 {
			p := (i - 1) / 2
			if !h.less(i, p) {
				break
			}
			h[i], h[p] = h[p], h[i]
			i = p
		}
		for {
			l := 2*i + 1
			if l >= n {
				break
			}
			m := l
			if r := l + 1; r < n && h.less(r, l) {
				m = r
			}
			if !h.less(m, i) {
				break
			}
			h[i], h[m] = h[m], h[i]
			i = m
		}
	}
	return e
}
