package messager

import (
	"fmt"
	"io"
	"math/rand/v2"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/racetrack-sim/racetrack/tracer"
)

// Config is one run.
type Config struct {
	Version Version
	// Clients subscribe and unsubscribe Cycles times each; the poller
	// ticks Ticks times and the vstream delivers RowEvents batches.
	Clients, Cycles, Ticks, RowEvents int
	// MaxDelay bounds the random pause before each operation, and
	// ReadPending the poller's database read.
	MaxDelay, ReadPending time.Duration
	// Seed seeds the delays (the scheduler is the real one: two runs of
	// one seed may differ).
	Seed uint64
	// Watchdog is how long nothing may progress before the run is
	// declared stuck.
	Watchdog time.Duration
	// Trace receives the run's trace (nil: tracing off).
	Trace io.Writer
}

// Result is what a run did.
type Result struct {
	// Deadlocked is set when the watchdog ended the run; Blocked then
	// says which goroutine waits for which mutex, sorted.
	Deadlocked bool
	Blocked    []string
}

// waits records which mutex each goroutine is trying to take, for the
// watchdog's report.
type waits struct {
	mu sync.Mutex
	on map[string]string
}

func (w *waits) set(who, what string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if what == "" {
		delete(w.on, who)
		return
	}
	w.on[who] = what
}

// Run runs one execution.
func Run(cfg Config) Result {
	tr := tracer.New(cfg.Trace)
	tablet := tr.Node("tablet")
	m := newManager(cfg.Version, tablet)
	var progress atomic.Int64
	w := &waits{on: map[string]string{}}
	// step wraps an operation of goroutine who: progress is counted, and
	// the mutex it may block on is noted while it runs.
	step := func(who, what string, f func()) {
		w.set(who, what)
		f()
		w.set(who, "")
		progress.Add(1)
	}
	var wg sync.WaitGroup
	goroutine := func(name string, seed uint64, body func(l *tracer.Logger, pause func())) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := rand.New(rand.NewPCG(cfg.Seed, seed))
			pause := func() {
				if cfg.MaxDelay > 0 {
					time.Sleep(time.Duration(r.Int64N(int64(cfg.MaxDelay))))
				}
			}
			body(tablet.Thread(name), pause)
		}()
	}
	for c := range cfg.Clients {
		name := fmt.Sprintf("client%d", c+1)
		goroutine(name, uint64(c+1), func(l *tracer.Logger, pause func()) {
			for range cfg.Cycles {
				pause()
				step(name, "Subscribe (mu, then "+m.streamName()+" for the first)", func() { m.subscribe(l, c) })
				pause()
				step(name, "unsubscribe (mu, then "+m.streamName()+" for the last)", func() { m.unsubscribe(l, c) })
			}
		})
	}
	goroutine("poller", 100, func(l *tracer.Logger, pause func()) {
		read := func() { time.Sleep(cfg.ReadPending) }
		for range cfg.Ticks {
			pause()
			step("poller", "runPoller", func() { m.poll(l, read) })
		}
	})
	goroutine("vstream", 101, func(l *tracer.Logger, pause func()) {
		for range cfg.RowEvents {
			pause()
			step("vstream", "row event ("+m.streamName()+", then mu)", func() { m.rowEvent(l) })
		}
	})
	sender := make(chan struct{})
	go func() {
		defer close(sender)
		l := tablet.Thread("runSend")
		for id := range m.wake {
			step("runSend", "runSend (mu)", func() { m.send(l, id) })
		}
	}()
	done := make(chan struct{})
	go func() {
		wg.Wait()
		step("close", "Close (mu)", func() { m.close(tablet.Thread("close")) })
		close(m.wake)
		<-sender
		close(done)
	}()
	return watch(cfg, tablet, done, &progress, w)
}

// watchTicks is how many of its ticks the watchdog must see pass without
// progress: a process the machine starves of CPU sees fewer ticks (a
// ticker drops those it could not deliver), so a slow run is not taken
// for a stuck one.
const watchTicks = 8

// watch waits for the run to end, or for nothing to progress for
// cfg.Watchdog and watchTicks ticks; then it logs the goroutines still
// waiting and reports a deadlock. Goroutines stuck on a mutex cannot be
// stopped: they stay blocked on this run's manager, which nothing else
// uses.
func watch(cfg Config, tablet *tracer.Logger, done <-chan struct{}, progress *atomic.Int64, w *waits) Result {
	tick := time.NewTicker(cfg.Watchdog / watchTicks)
	defer tick.Stop()
	last, since, idle := progress.Load(), time.Now(), 0
	for {
		select {
		case <-done:
			return Result{}
		case now := <-tick.C:
			if p := progress.Load(); p != last {
				last, since, idle = p, now, 0
				continue
			}
			if idle++; idle < watchTicks || now.Sub(since) < cfg.Watchdog {
				continue
			}
			w.mu.Lock()
			if len(w.on) == 0 {
				// No goroutine is inside an operation: they all pause
				// (a machine starved of CPU), and none can be stuck.
				w.mu.Unlock()
				last, since, idle = progress.Load(), now, 0
				continue
			}
			var who []string
			// order-independent: sorted below.
			for g := range w.on {
				who = append(who, g)
			}
			sort.Strings(who)
			fields := []tracer.Field{tracer.F("stalled for", cfg.Watchdog.String())}
			var blocked []string
			for _, g := range who {
				fields = append(fields, tracer.F(g, w.on[g]))
				blocked = append(blocked, g+": "+w.on[g])
			}
			w.mu.Unlock()
			tablet.Thread("watchdog").State("watchdog: no progress; the run is stuck", fields...)
			return Result{Deadlocked: true, Blocked: blocked}
		}
	}
}
