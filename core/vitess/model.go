package vitess

import (
	"strconv"

	"github.com/racetrack-sim/racetrack/core/sim"
)

// Sizes of the message table's configuration, from the Vitess docs'
// example table comment (vt_cache_size=10000, vt_batch_size=10).
const (
	cacheSize = 10000
	batchSize = 10
)

// Config is one configuration of the model.
type Config struct {
	// Fixed selects the code after PR #10132.
	Fixed bool
	// UnlockedPoller is a wrong fix of v13: runPoller takes no streamMu
	// at all (receiverCount, readPending, then mu for the cache), which
	// removes its half of the lock cycle and with it what streamMu
	// protects: no discard or vstream event may fall between the poller's
	// snapshot (lastPollPosition) and its cache.Add.
	UnlockedPoller bool
	// Timed: steps take modelled time; untimed: every step costs zero and
	// only the chooser orders them.
	Timed bool
	// Delivery adds runSend and one send goroutine per receiver. They add
	// no lock-order edge (runSend takes only mu; send takes mu, then
	// streamMu, one after the other), so the lock-level preset leaves them
	// out to keep the state space small. Without them the model keeps no
	// message accounting either (rows, cache, curReceiver,
	// messagesPending): nothing reads it, and it would only multiply the
	// states.
	Delivery bool

	Clients int
	// Cycles is the number of Subscribe/unsubscribe cycles of each client.
	Cycles int
	// Ticks and Events bound the poller ticks and binlog row events
	// (0: unbounded, until Close).
	Ticks, Events int

	ThinkTime       sim.Time // mean time a client stays subscribed, and then away
	PollerInterval  sim.Time // vt_poller_interval
	ReadPendingCost sim.Time // duration of the poller's readPending query
	RowEventRate    float64  // binlog row events per second
	RowsPerEvent    int      // rows of one event batch (one transaction)
	RowCost         sim.Time // processing one row in the vstream callback
	SendCost        sim.Time // receiver.Send plus the postpone update
	CloseAt         sim.Time // when Close (the tablet transition) starts
	CloseDeadline   sim.Time // close-completes: how long Close may take
	// FieldSendCost is how long Subscribe's receiver.Send(fieldResult)
	// takes; it runs under mu (0: not modelled, no step).
	FieldSendCost sim.Time
	// EngineMutex models the messager Engine's own mutex: Engine.Subscribe
	// holds it across the manager's Subscribe, Engine.Close across the
	// manager's Close (the tablet transition of PlannedReparentShard).
	EngineMutex     bool
	DeliverDeadline sim.Time // delivery-progress: longest wait for a delivery
	// GoMutex makes every mutex a Go mutex (sim.MutexGo): an unlock
	// wakes the first waiter instead of handing it the mutex, and a
	// goroutine that locks in between barges in, as with sync.Mutex.
	GoMutex bool
}

// Program counters. Each constant is the NEXT step a thread runs; a
// thread blocked in a Lock has its PC already on the step after the lock.
const (
	// client: Subscribe and unsubscribe.
	cSubLock      = iota // Subscribe: mu.Lock()
	cSubCheck            // Subscribe: isOpen? (then the field info, when modelled)
	cSubFields           // Subscribe: receiver.Send(fieldResult) returned; first receiver → startVStream
	cSubStart            // startVStream (buggy): streamCancel set, streamMu.Unlock()
	cSubAppend           // Subscribe: append receiver, rescanReceivers
	cSubUnlock           // Subscribe: mu.Unlock() (after a Broadcast)
	cEngineUnlock        // Engine.Subscribe returns: me.mu.Unlock() (engineMutex)
	cUnsubLock           // unsubscribe: mu.Lock()
	cUnsubRemove         // unsubscribe: remove receiver; last → stopVStream
	cUnsubStop           // stopVStream (buggy): streamCancel(), streamMu.Unlock()
	cUnsubClear          // unsubscribe: cache.Clear(), mu.Unlock()
	cExit                // the client goes away
)

const (
	// runPoller, on the pollerTicks timer goroutine.
	pTick         = iota // timer fires: pollerTicks' run loop calls runPoller
	pFastLock            // receiverCount: mu.Lock() (buggy) / cacheManagementMu.Lock() (fixed)
	pFastRead            // receiverCount: n := len(receivers), mu.Unlock() (buggy)
	pStreamLock          // runPoller: streamMu.Lock() (buggy)
	pMuLockFixed         // runPoller: mu.Lock() under cacheManagementMu (fixed)
	pCheckFixed          // runPoller: len(receivers) == 0? (fixed)
	pRead                // runPoller: readPending (a DB query that takes time)
	pMuLock              // runPoller: mu.Lock() after readPending (buggy)
	pAdd                 // runPoller: messagesPending, cache.Add each row
	pMuUnlock            // runPoller: mu.Unlock() (after the deferred Broadcast)
	pStreamUnlock        // runPoller: streamMu/cacheManagementMu.Unlock()
	pReturn              // runPoller returned: the timer waits for the next tick
	pExit                // the timer was stopped
)

const (
	// vstream: the binlog and the runOneVStream callback.
	rEvent        = iota // a row event: rows committed; the callback takes streamMu
	rCheck               // runOneVStream: ctx done? mustSkip
	rRow                 // processRowEvent for the next row
	rAddLock             // Add: mu.Lock()
	rAdd                 // Add: receivers?, cache.Add
	rAddUnlock           // Add: mu.Unlock() (after the deferred Broadcast)
	rStreamUnlock        // runOneVStream: streamMu.Unlock()
	rExit                // the stream of a closed manager ends
)

const (
	// runSend.
	sLock  = iota // runSend: mu.Lock()
	sLoop         // runSend: isOpen? receiver and rows? pop a batch
	sYield        // runSend: mu.Unlock() (the yield of its outer loop)
	sExit
)

const (
	// send: one goroutine per receiver, started by runSend.
	dLock        = iota // waits for runSend to start it: mu.Lock()
	dIdle               // a batch for this receiver?
	dWrite              // receiver.Send(rows), then postpone
	dDone               // deferred busy reset: mu.Lock()
	dBusy               // busy = false, rescanReceivers
	dBusyUnlock         // mu.Unlock() (after the Broadcast)
	dDiscardLock        // deferred cache.Discard: streamMu.Lock()
	dDiscard            // cache.Discard(ids), streamMu.Unlock()
	dExit
)

const (
	// Close.
	kStop       = iota // pollerTicks.Stop(): waits for an in-flight runPoller
	kStopped           // the timer stopped
	kLock              // Close: mu.Lock()
	kClose             // isOpen = false, cancel receivers, cache.Clear()
	kWake              // cond.Broadcast(); cancelled receivers' sends wake
	kStreamStop        // stopVStream (buggy, v13): streamCancel(), streamMu.Unlock()
	kUnlock            // Close: mu.Unlock()
	kWait              // wg.Wait()
	kReturned          // Close returned
)

// Manager is the state of one message manager (one message table on one
// tablet). Fields after the kernel ids are the state; per-client state
// lives in slices indexed by client, in the same layout for every client,
// so that identical clients are interchangeable.
type Manager struct {
	cfg Config

	mu, stream, ticks sim.MutexID
	// engine is the messager Engine's own mutex (engineMutex), or None.
	engine           sim.MutexID
	cond             sim.CondID
	recvCond         []sim.CondID // one per client: its send goroutine waits here
	clients, senders []sim.ProcID
	poller, vstream  sim.ProcID
	runSend, closer  sim.ProcID
	sMu, sStream     sim.SeriesID
	sDelivered       sim.SeriesID
	sBlocked         sim.SeriesID

	isOpen          bool
	streaming       bool // streamCancel != nil: a vstream runs
	curReceiver     int  // client index, -1: none ready
	messagesPending bool

	// Message rows, by where they are: only in the table (stored), in the
	// cache, handed to a send goroutine (batch), being written or waiting
	// for cache.Discard (sending).
	stored, cached int
	subscribed     []bool
	busy           []bool
	batch          []int
	sending        []int
	sendFailed     []bool // the receiver was gone: the rows go back to the table
	cyclesDone     []int

	ticksLeft     int // -1: unbounded
	pollerStopped bool
	eventsLeft    int  // -1: unbounded
	evRows        int  // rows of the current callback not processed yet
	evPending     int  // rows of the current event only in the table
	evCtxDone     bool // the stream of the current callback was cancelled
	closeStarted  bool
	closeReturned bool
	// polling: the poller has read its snapshot (readPending set
	// lastPollPosition) and not yet added it; readDirty: a send's
	// cache.Discard ran since (the snapshot may hold rows just
	// postponed); evStale: the snapshot was read while the vstream
	// callback was past its mustSkip check, so the rows it still adds
	// are older than lastPollPosition. Only the wrong fix can set the
	// last two (hashed only there).
	polling, readDirty, evStale bool
	// stale describes the step that requeued a stale row; "" after any
	// other step.
	stale string
	// inEngine: client i (the last slot: Close) holds engine.mu.
	inEngine []bool
	// window is the client (plus one) whose step removed the last
	// receiver while runPoller or the vstream callback held the stream
	// lock; 0 after any other step (windowText describes it).
	window int8

	// Bookkeeping for times, series and views. It never changes what a
	// thread does next (except tickStart, see Hash), so it stays out of
	// the hash.
	tickStart     sim.Time
	closeStartAt  sim.Time
	delivered     int
	progressSince sim.Time
	progressDue   bool
	holder        [2]sim.ProcID
	holdSince     [2]sim.Time
}

// New builds a manager for cfg.
func New(cfg Config) *Manager {
	return &Manager{cfg: cfg}
}

// Init creates the tablet, its locks and goroutines.
func (m *Manager) Init(w *sim.World) {
	c := &m.cfg
	w.SetUntimed(!c.Timed)
	node := w.AddNode("vttablet")
	kind := sim.MutexFIFO
	if c.GoMutex {
		kind = sim.MutexGo
	}
	m.mu = w.AddMutexKind(node, "mu", kind)
	if c.Fixed {
		m.stream = w.AddMutexKind(node, "cacheManagementMu", kind)
	} else {
		m.stream = w.AddMutexKind(node, "streamMu", kind)
	}
	// pollerTicks stands for the timer's mutex and its unbuffered stop
	// channel: Stop returns only once an in-flight runPoller has returned.
	m.ticks = w.AddMutexKind(node, "pollerTicks", kind)
	m.engine = sim.None
	if c.EngineMutex {
		m.engine = w.AddMutexKind(node, "engine.mu", kind)
	}
	m.cond = w.AddCond(m.mu, "cond")
	// Clients do not come first: process 0 must not be one that a
	// symmetry renames (the kernel's permuted hash renames the From field
	// of every event, and non-message events carry From 0).
	m.poller = w.AddThread(node, -1, "runPoller", c.PollerInterval)
	m.vstream = w.AddThread(node, -1, "vstream", m.eventGap(w))
	m.closer = w.AddThread(node, -1, "Close", c.CloseAt)
	for i := 0; i < c.Clients; i++ {
		m.clients = append(m.clients, w.AddThread(node, -1, clientName(i), w.Between(0, c.ThinkTime/2, sim.Millisecond, "first Subscribe")))
	}
	if c.Delivery {
		m.runSend = w.AddThread(node, -1, "runSend", 0)
		for i := 0; i < c.Clients; i++ {
			m.recvCond = append(m.recvCond, w.AddCond(m.mu, "receiver "+clientName(i)))
			m.senders = append(m.senders, w.AddThread(node, -1, "send("+clientName(i)+")", 0))
		}
	} else {
		m.runSend = sim.None
	}

	m.sMu = w.DefineSeries("mu held for", "ms", "locks")
	m.sStream = w.DefineSeries(w.Mutex(m.stream).Name+" held for", "ms", "locks")
	m.sBlocked = w.DefineSeries("goroutines blocked", "goroutines", "locks")
	m.sDelivered = w.DefineSeries("messages delivered", "messages", "delivery")

	m.isOpen = true
	m.curReceiver = -1
	m.messagesPending = true
	m.subscribed = make([]bool, c.Clients)
	m.busy = make([]bool, c.Clients)
	m.batch = make([]int, c.Clients)
	m.sending = make([]int, c.Clients)
	m.sendFailed = make([]bool, c.Clients)
	m.cyclesDone = make([]int, c.Clients)
	m.inEngine = make([]bool, c.Clients+1)
	m.ticksLeft = boundOrUnbounded(c.Ticks)
	m.eventsLeft = boundOrUnbounded(c.Events)
	m.holder = [2]sim.ProcID{sim.None, sim.None}
}

func boundOrUnbounded(n int) int {
	if n <= 0 {
		return -1
	}
	return n
}

func clientName(i int) string { return "c" + strconv.Itoa(i+1) }

// client returns the index of client thread p, or -1.
func (m *Manager) client(p sim.ProcID) int {
	for i, q := range m.clients {
		if q == p {
			return i
		}
	}
	return -1
}

// sender returns the client index of send goroutine p, or -1.
func (m *Manager) sender(p sim.ProcID) int {
	for i, q := range m.senders {
		if q == p {
			return i
		}
	}
	return -1
}

// receivers is len(mm.receivers).
func (m *Manager) receivers() int {
	n := 0
	for _, s := range m.subscribed {
		if s {
			n++
		}
	}
	return n
}

// wanting counts the clients subscribed or inside Subscribe.
func (m *Manager) wanting(w *sim.World) int {
	n := 0
	for i, q := range m.clients {
		if pc := w.Proc(q).PC; m.subscribed[i] || (pc >= cSubCheck && pc <= cSubUnlock) {
			n++
		}
	}
	return n
}

// Clone copies the state; the kernel ids and config are shared values.
func (m *Manager) Clone() sim.Model {
	c := *m
	c.subscribed = append([]bool(nil), m.subscribed...)
	c.busy = append([]bool(nil), m.busy...)
	c.batch = append([]int(nil), m.batch...)
	c.sending = append([]int(nil), m.sending...)
	c.sendFailed = append([]bool(nil), m.sendFailed...)
	c.cyclesDone = append([]int(nil), m.cyclesDone...)
	c.inEngine = append([]bool(nil), m.inEngine...)
	return &c
}

// CloneInto is Clone into dst's memory (sim.ModelRecycler).
func (m *Manager) CloneInto(dst sim.Model) sim.Model {
	d, ok := dst.(*Manager)
	if !ok || d == m {
		return nil
	}
	// Keep only d's buffers (a copy of all of d costs as much again).
	subscribed, busy, batch, sending := d.subscribed, d.busy, d.batch, d.sending
	sendFailed, cyclesDone, inEngine := d.sendFailed, d.cyclesDone, d.inEngine
	*d = *m
	d.subscribed = append(subscribed[:0], m.subscribed...)
	d.busy = append(busy[:0], m.busy...)
	d.batch = append(batch[:0], m.batch...)
	d.sending = append(sending[:0], m.sending...)
	d.sendFailed = append(sendFailed[:0], m.sendFailed...)
	d.cyclesDone = append(cyclesDone[:0], m.cyclesDone...)
	d.inEngine = append(inEngine[:0], m.inEngine...)
	return d
}

// Hash folds the state that decides what happens next. Delivered counts
// are left out: they follow from the rows inserted (fixed by eventsLeft in
// the untimed mode) minus the rows still in the table.
func (m *Manager) Hash(h *sim.Hasher) { m.HashPermuted(h, nil) }

// HashPermuted folds the state as it is after renaming the clients by p
// (p nil: the identity): new client slot j holds old client inv[j].
func (m *Manager) HashPermuted(h *sim.Hasher, p *sim.Permutation) {
	n := len(m.clients)
	var buf [2 * 16]int
	var pi, inv []int // old client -> new client, and back
	if n <= 16 {
		pi, inv = buf[:n], buf[16:16+n]
	} else {
		pi, inv = make([]int, n), make([]int, n)
	}
	for i := range pi {
		pi[i] = i
		if p != nil && p.Procs != nil {
			pi[i] = m.client(p.Procs[m.clients[i]])
		}
	}
	for i, j := range pi {
		inv[j] = i
	}
	cur := -1
	if m.curReceiver >= 0 {
		cur = pi[m.curReceiver]
	}
	// The words below pack what fits (bit 63 set: each long form starts
	// with a word below it).
	if fits16(cur+1) && fits16(m.stored) && fits16(m.cached) {
		h.Uint64(1<<63 | flagBits(m.isOpen, m.streaming, m.messagesPending, false) | uint64(cur+1)<<8 | uint64(m.stored)<<24 | uint64(m.cached)<<40)
	} else {
		h.Bool(m.isOpen)
		h.Bool(m.streaming)
		h.Int(cur)
		h.Bool(m.messagesPending)
		h.Int(m.stored)
		h.Int(m.cached)
	}
	for _, i := range inv {
		m.foldClient(h, i)
	}
	if fits16(m.ticksLeft+1) && fits16(m.eventsLeft+1) && m.evRows >= 0 && m.evRows < 1<<12 && m.evPending >= 0 && m.evPending < 1<<11 {
		h.Uint64(1<<63 | flagBits(m.pollerStopped, m.evCtxDone, m.closeStarted, m.closeReturned) |
			uint64(m.ticksLeft+1)<<8 | uint64(m.eventsLeft+1)<<24 | uint64(m.evRows)<<40 | uint64(m.evPending)<<52)
	} else {
		h.Bool(m.pollerStopped)
		h.Int(m.ticksLeft)
		h.Int(m.eventsLeft)
		h.Int(m.evRows)
		h.Int(m.evPending)
		h.Bool(m.evCtxDone)
		h.Bool(m.closeStarted)
		h.Bool(m.closeReturned)
	}
	if m.cfg.EngineMutex {
		h.Bool(m.inEngine[n]) // Close's slot
	}
	if m.cfg.UnlockedPoller {
		h.Bool(m.polling)
		h.Bool(m.readDirty)
		h.Bool(m.evStale)
	}
	if m.cfg.Timed {
		// The next tick is due at tickStart+interval. Timed states are not
		// explored by hash; folding the absolute time only keeps two
		// states apart that might have merged.
		h.Int64(int64(m.tickStart))
	}
}

// clientWord packs client i's own state in one word, when its counters
// fit in 16 bits (bit 63 set: the long form of foldClient starts below
// it).
func (m *Manager) clientWord(i int) (uint64, bool) {
	if !fits16(m.batch[i]) || !fits16(m.sending[i]) || !fits16(m.cyclesDone[i]) {
		return 0, false
	}
	return 1<<63 | uint64(m.batch[i])<<40 | uint64(m.sending[i])<<24 | uint64(m.cyclesDone[i])<<8 |
		flagBits(m.subscribed[i], m.busy[i], m.sendFailed[i], m.cfg.EngineMutex && m.inEngine[i]), true
}

func fits16(v int) bool { return v >= 0 && v < 1<<16 }

// flagBits packs up to four flags, the first in bit 0.
func flagBits(a, b, c, d bool) uint64 { return bit(a, 0) | bit(b, 1) | bit(c, 2) | bit(d, 3) }

func bit(f bool, i uint) uint64 {
	if f {
		return 1 << i
	}
	return 0
}

// foldClient folds client i's own state: one word when it fits.
func (m *Manager) foldClient(h *sim.Hasher, i int) {
	if v, ok := m.clientWord(i); ok {
		h.Uint64(v)
		return
	}
	h.Bool(m.subscribed[i])
	h.Bool(m.busy[i])
	h.Int(m.batch[i])
	h.Int(m.sending[i])
	h.Bool(m.sendFailed[i])
	h.Int(m.cyclesDone[i])
	if m.cfg.EngineMutex {
		h.Bool(m.inEngine[i])
	}
}

// ProcSignature is the state of client thread p that renaming moves
// with it (check.ProcSignatures); 0 for the other threads.
func (m *Manager) ProcSignature(w *sim.World, p sim.ProcID) uint64 {
	i := m.client(p)
	if i < 0 {
		return 0
	}
	if v, ok := m.clientWord(i); ok {
		return v
	}
	h := sim.NewHasher()
	m.foldClient(&h, i)
	return h.Sum()
}

// Symmetries lists the renamings of identical clients (check.Symmetric):
// every permutation for up to maxPermuted clients, the swaps of
// neighbours beyond. With delivery on there is none: runSend picks
// receivers in client order, and the kernel does not rename the
// per-receiver condition variables.
func (m *Manager) Symmetries(w *sim.World) []sim.Permutation {
	n := len(m.clients)
	if m.cfg.Delivery || n < 2 {
		return nil
	}
	var perms [][]int
	if n <= maxPermuted {
		perms = permutations(n)[1:] // the first is the identity
	} else {
		for i := 0; i+1 < n; i++ {
			s := identity(n)
			s[i], s[i+1] = s[i+1], s[i]
			perms = append(perms, s)
		}
	}
	out := make([]sim.Permutation, 0, len(perms))
	for _, pi := range perms {
		procs := make([]sim.ProcID, len(w.Procs()))
		for q := range procs {
			procs[q] = sim.ProcID(q)
		}
		for i, j := range pi {
			procs[m.clients[i]] = m.clients[j]
		}
		out = append(out, sim.Permutation{Procs: procs})
	}
	return out
}

// maxPermuted bounds the clients whose every permutation is listed (5! =
// 120 hashes per state).
const maxPermuted = 5

func identity(n int) []int {
	s := make([]int, n)
	for i := range s {
		s[i] = i
	}
	return s
}

// permutations lists every permutation of 0..n-1 in lexicographic order.
func permutations(n int) [][]int {
	if n == 1 {
		return [][]int{{0}}
	}
	var out [][]int
	for first := 0; first < n; first++ {
		for _, rest := range permutations(n - 1) {
			p := []int{first}
			for _, r := range rest {
				if r >= first {
					r++
				}
				p = append(p, r)
			}
			out = append(out, p)
		}
	}
	return out
}

// SharesUnlockedState tells the explorers that threads share state
// outside the kernel's mutexes, as upstream does: the binlog commits rows
// and the vstream's ctx is cancelled without streamMu/cacheManagementMu,
// the timer's stop flag is read by its goroutine, Close's wg.Wait reads
// the send goroutines. Steps of different threads on different mutexes
// therefore do not always commute.
func (m *Manager) SharesUnlockedState() bool { return true }
