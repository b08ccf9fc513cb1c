package tracer

// Logger logs the events of one node, or of one thread of a node. It is
// safe for concurrent use. A nil *Logger is off: its methods do nothing
// but lock and unlock.
type Logger struct {
	t      *Tracer
	node   string
	thread string
}

// Mutex is what Lock and Unlock take: a *sync.Mutex, a *sync.RWMutex
// (its write lock), or any lock that can be tried.
type Mutex interface {
	Lock()
	Unlock()
	TryLock() bool
}

// Thread returns the Logger of a thread of l's node (its own lane).
func (l *Logger) Thread(name string) *Logger {
	if l == nil {
		return nil
	}
	return &Logger{t: l.t, node: l.node, thread: name}
}

// Send logs a message leaving and returns its id, to carry in the
// message; to names the receiving node (or is empty when unknown).
func (l *Logger) Send(label, to string) MsgID {
	if l == nil {
		return ""
	}
	id := l.t.nextID(l.node)
	l.t.write(&event{node: l.node, thread: l.thread, kind: "send", msg: id, to: to, label: label})
	return id
}

// Receive logs the arrival of the message with the id Send gave. An
// empty id (the sender's tracer was off) logs a local event instead.
func (l *Logger) Receive(id MsgID, label string, fields ...Field) {
	if l == nil {
		return
	}
	kind := "receive"
	if id == "" {
		kind = "local"
	}
	l.t.write(&event{node: l.node, thread: l.thread, kind: kind, msg: id, label: label, fields: fields})
}

// Lock acquires mu, logging a block first if another holds it, then the
// lock.
func (l *Logger) Lock(mu Mutex, name string) {
	if l == nil {
		mu.Lock()
		return
	}
	if !mu.TryLock() {
		l.t.write(&event{node: l.node, thread: l.thread, kind: "block", obj: name})
		mu.Lock()
	}
	l.t.write(&event{node: l.node, thread: l.thread, kind: "lock", obj: name})
}

// Unlock logs the release of mu, then releases it.
func (l *Logger) Unlock(mu Mutex, name string) {
	if l == nil {
		mu.Unlock()
		return
	}
	l.t.write(&event{node: l.node, thread: l.thread, kind: "unlock", obj: name})
	mu.Unlock()
}

// Local logs a step of local work.
func (l *Logger) Local(label string, fields ...Field) {
	if l == nil {
		return
	}
	l.t.write(&event{node: l.node, thread: l.thread, kind: "local", label: label, fields: fields})
}

// State logs named state fields of the node.
func (l *Logger) State(label string, fields ...Field) {
	if l == nil {
		return
	}
	l.t.write(&event{node: l.node, thread: l.thread, kind: "state", label: label, fields: fields})
}

// Crash logs the node going down: nothing of it may be logged until
// Restart.
func (l *Logger) Crash(label string) {
	if l == nil {
		return
	}
	l.t.write(&event{node: l.node, thread: l.thread, kind: "crash", label: label})
}

// Restart logs the node coming back after a Crash.
func (l *Logger) Restart(label string) {
	if l == nil {
		return
	}
	l.t.write(&event{node: l.node, thread: l.thread, kind: "restart", label: label})
}
