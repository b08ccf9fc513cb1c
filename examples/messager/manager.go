package messager

import (
	"sync"
	"sync/atomic"

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
	// runs), read by the binlog without a lock in one load, as the
	// model's row event reads it in one step; a callback that finds it
	// changed since its event arrived sees its stream's context
	// cancelled. (Between that load and taking streamMu, v13's
	// stopVStream could take and release streamMu: the one window where
	// the program is less atomic than the model, and a trace through it
	// would not conform.)
	streamGen atomic.Int64

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
	m.streamGen.Add(1)
	l.Local("startVStream")
}

func (m *manager) stopVStream(l *tracer.Logger) {
	if m.version == V13 {
		l.Lock(&m.streamMu, m.streamName())
		defer l.Unlock(&m.streamMu, m.streamName())
	}
	m.streaming = false
	m.streamGen.Add(1)
	l.Local("stopVStream")
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

func (m *manager) wakeSender(l *tracer.Logger) {
	m.wake <- l.Send("cond.Broadcast: wake runSend", "tablet")
}

// rowEvent is a batch of row events committing: while a vstream runs,
// its callback takes streamMu and adds the rows (Add takes mu), unless
// the stream was stopped since the event arrived (runOneVStream's ctx
// check under streamMu).
func (m *manager) rowEvent(l *tracer.Logger) {
	gen := m.streamGen.Load()
	if gen%2 == 0 {
		l.Local("binlog: rows committed; no vstream runs")
		return
	}
	stream := m.streamName()
	l.Lock(&m.streamMu, stream)
	if m.streamGen.Load() != gen {
		l.Local("runOneVStream: ctx done")
		l.Unlock(&m.streamMu, stream)
		return
	}
	l.Lock(&m.mu, "mu")
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
