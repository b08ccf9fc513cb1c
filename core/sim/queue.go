package sim

// EventKind says why an event wakes a process.
type EventKind uint8

// Event kinds.
const (
	EvDeliver EventKind = iota + 1 // a message arrives at an actor or thread
	EvTimer                        // a timer set by the process fires
	EvStep                         // a thread's next atomic step
	EvAcquire                      // a blocked thread was handed the mutex it waited for (a Go mutex: woken to try it)
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
	Relock  bool    // EvAcquire of a MutexGo: a signal woke the thread, which locks afresh (sync.Cond.Wait); false: an unlock woke it
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
	q.up(len(*q) - 1)
}

func (q *eventQueue) pop() Event { return q.remove(0) }

// remove takes out the event at index i.
func (q *eventQueue) remove(i int) Event {
	h := *q
	n := len(h) - 1
	e := h[i]
	h[i] = h[n]
	h[n] = Event{}
	*q = h[:n]
	if i < n {
		// The moved event may belong above i or below it.
		q.down(q.up(i))
	}
	return e
}

// up moves the event at i towards the root while it is less than its
// parent, and returns where it ends.
func (q eventQueue) up(i int) int {
	for i > 0 {
		p := (i - 1) / 2
		if !q.less(i, p) {
			break
		}
		q[i], q[p] = q[p], q[i]
		i = p
	}
	return i
}

// down moves the event at i towards the leaves while a child is less.
func (q eventQueue) down(i int) {
	n := len(q)
	for {
		l := 2*i + 1
		if l >= n {
			return
		}
		m := l
		if r := l + 1; r < n && q.less(r, l) {
			m = r
		}
		if !q.less(m, i) {
			return
		}
		q[i], q[m] = q[m], q[i]
		i = m
	}
}
