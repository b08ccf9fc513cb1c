package messager

import (
	"sync"

	"github.com/racetrack-sim/racetrack/tracer"
)

// Version selects the locking of the message manager.
type Version int

// Versions.
const (
	V13   Version = iota // mu and streamMu taken in both orders
	Fixed                // PR #10132: cacheManagementMu, then mu
	Slip                 // Fixed, but the poller wakes the sender outside mu
)

func (v Version) String() string { return [...]string{"v13", "fixed", "slip"}[v] }

// manager is the message manager's locking and the state it guards.
type manager struct {
	version Version
	node    *tracer.Logger

	mu        sync.Mutex
	receivers []int // client ids
	isOpen    bool
	cache     int  // rows waiting to be sent
	streaming bool // the vstream runs (guarded by streamMu in v13, mu after)

	// streamMu is v13's streamMu and the fix's cacheManagementMu.
	streamMu sync.Mutex
	// streamGen counts the vstream's starts and stops (odd: a vstream
	// runs). genMu (not logged: the model has no such lock) guards it,
	// and makes a row event's decision (does a vstream run?) and the
	// line it logs for it (no vstream, block or lock) one step, as the
	// model's row event is, against a start or stop and its line. A
	// callback that finds streamGen changed once it holds streamMu sees
	// its stream's context cancelled; one that finds it unchanged holds
	// genMu until Add's try of mu, as the model's check and try are one
	// step too.
	genMu     sync.Mutex
	streamGen int64

	// wake carries the trace id of each wake-up to the sender.
	wake chan tracer.MsgID
}

func (m *manager) streamName() string {
	if m.version == V13 {
		return "streamMu"
	}
	return "cacheManagementMu"
}

func newManager(v Version, node *tracer.Logger) *manager {
	return &manager{version: v, node: node, isOpen: true, wake: make(chan tracer.MsgID, 1024)}
}

// subscribe is Subscribe: the first receiver starts the vstream.
func (m *manager) subscribe(l *tracer.Logger, client int) {
	l.Lock(&m.mu, "mu")
	if !m.isOpen {
		l.Unlock(&m.mu, "mu")
		return
	}
	if len(m.receivers) == 0 {
		m.startVStream(l)
	}
	m.receivers = append(m.receivers, client)
	l.State("Subscribe: receivers = append(..)", tracer.F("receivers", len(m.receivers)))
	l.Unlock(&m.mu, "mu")
}

// unsubscribe removes the receiver; the last one stops the vstream and
// clears the cache.
func (m *manager) unsubscribe(l *tracer.Logger, client int) {
	l.Lock(&m.mu, "mu")
	for i, c := range m.receivers {
		if c == client {
			m.receivers = append(m.receivers[:i], m.receivers[i+1:]...)
			break
		}
	}
	l.State("unsubscribe: receiver removed", tracer.F("receivers", len(m.receivers)))
	if len(m.receivers) == 0 {
		m.stopVStream(l)
		m.cache = 0
	}
	l.Unlock(&m.mu, "mu")
}

// startVStream and stopVStream take streamMu in v13; after the fix mu
// (which the caller holds) guards the stream.
func (m *manager) startVStream(l *tracer.Logger) {
	if m.version == V13 {
		l.Lock(&m.streamMu, m.streamName())
		defer l.Unlock(&m.streamMu, m.streamName())
	}
	m.streaming = true
	m.genMu.Lock()
	m.streamGen++
	l.Local("startVStream")
	m.genMu.Unlock()
}

func (m *manager) stopVStream(l *tracer.Logger) {
	if m.version == V13 {
		l.Lock(&m.streamMu, m.streamName())
		defer l.Unlock(&m.streamMu, m.streamName())
	}
	m.streaming = false
	m.genMu.Lock()
	m.streamGen++
	l.Local("stopVStream")
	m.genMu.Unlock()
}

// poll is one runPoller: rows read from the table go into the cache and
// wake the sender.
func (m *manager) poll(l *tracer.Logger, readPending func()) {
	stream := m.streamName()
	if m.version == V13 {
		// Fast path: receiverCount() takes mu alone, and releases it
		// before streamMu is taken.
		l.Lock(&m.mu, "mu")
		n := len(m.receivers)
		l.Unlock(&m.mu, "mu")
		if n == 0 {
			return
		}
		l.Lock(&m.streamMu, stream)
		readPending()
		l.Local("readPending")
		l.Lock(&m.mu, "mu")
	} else {
		l.Lock(&m.streamMu, stream)
		l.Lock(&m.mu, "mu")
		if len(m.receivers) == 0 {
			l.Unlock(&m.mu, "mu")
			l.Unlock(&m.streamMu, stream)
			return
		}
		readPending()
		l.Local("readPending")
	}
	if len(m.receivers) > 0 {
		m.cache++
		l.State("runPoller: rows added to the cache", tracer.F("cache", m.cache))
		if m.version == Slip {
			l.Unlock(&m.mu, "mu")
			m.wakeSender(l) // the slip: the wake-up leaves after mu is released
			l.Unlock(&m.streamMu, stream)
			return
		}
		m.wakeSender(l)
	}
	l.Unlock(&m.mu, "mu")
	l.Unlock(&m.streamMu, stream)
}

// gated is a mutex taken while gate is held: a try that fails (the
// tracer then logs the block) lets go of gate before waiting, and held
// says whether gate is still held.
type gated struct {
	mu   *sync.Mutex
	gate *sync.Mutex
	held bool
}

func (g *gated) TryLock() bool { return g.mu.TryLock() }

func (g *gated) Lock() {
	g.gate.Unlock()
	g.held = false
	g.mu.Lock()
}

func (g *gated) Unlock() { g.mu.Unlock() }

func (m *manager) wakeSender(l *tracer.Logger) {
	m.wake <- l.Send("cond.Broadcast: wake runSend", "tablet")
}

// rowEvent is a batch of row events committing: while a vstream runs,
// its callback takes streamMu and adds the rows (Add takes mu), unless
// the stream was stopped since the event arrived (runOneVStream's ctx
// check under streamMu).
func (m *manager) rowEvent(l *tracer.Logger) {
	stream := m.streamName()
	m.genMu.Lock()
	gen := m.streamGen
	if gen%2 == 0 {
		l.Local("binlog: rows committed; no vstream runs")
		m.genMu.Unlock()
		return
	}
	g := &gated{mu: &m.streamMu, gate: &m.genMu, held: true}
	l.Lock(g, stream)
	if g.held {
		m.genMu.Unlock()
	}
	m.genMu.Lock()
	if m.streamGen != gen {
		m.genMu.Unlock()
		l.Local("runOneVStream: ctx done")
		l.Unlock(&m.streamMu, stream)
		return
	}
	// The check and Add's first try of mu are one step, as the model's
	// rCheck is: genMu is held until the try (or the block it logs).
	// Upstream may be descheduled between the two, and a stop may come
	// in between unlogged: the model reaches the same states with the
	// vstream queued on mu instead, but not the log of a vstream that
	// takes mu after the stop without blocking, so the example does not
	// leave that gap open (a trace under load showed it, 2 runs in 300).
	gm := &gated{mu: &m.mu, gate: &m.genMu, held: true}
	l.Lock(gm, "mu")
	if gm.held {
		m.genMu.Unlock()
	}
	if len(m.receivers) > 0 {
		m.cache++
		l.State("Add: row added to the cache", tracer.F("cache", m.cache))
	}
	l.Unlock(&m.mu, "mu")
	l.Unlock(&m.streamMu, stream)
}

// send is runSend taking one wake-up: it sends what the cache holds.
func (m *manager) send(l *tracer.Logger, id tracer.MsgID) {
	l.Receive(id, "runSend wakes")
	l.Lock(&m.mu, "mu")
	sent := m.cache
	m.cache = 0
	l.State("runSend: batch sent", tracer.F("rows", sent))
	l.Unlock(&m.mu, "mu")
}

// close is Close: mark closed and stop the vstream under mu (v13 does
// so since PR #8965, taking streamMu under mu).
func (m *manager) close(l *tracer.Logger) {
	// Upstream Close first stops the poller's ticker; here the poller's
	// loop has already returned (Close runs once every goroutine is done).
	l.Local("Close: pollerTicks.Stop()")
	l.Lock(&m.mu, "mu")
	m.isOpen = false
	m.receivers = nil
	m.stopVStream(l)
	l.Unlock(&m.mu, "mu")
}
