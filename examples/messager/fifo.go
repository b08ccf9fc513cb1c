package messager

import "sync"

// fifoMutex is a mutex that hands itself to the goroutine that has
// waited longest, as the model's (the kernel's) mutexes do. A sync.Mutex
// lets a running goroutine barge in ahead of a woken waiter, and the
// model has no such behaviour: validating this program's traces found
// runs where the poller took cacheManagementMu twice while the row
// event's callback waited for it, and a stop and a start of the vstream
// fell in between, which the model, handing the mutex to the callback at
// the poller's first unlock, cannot do. The program locks mu and the
// stream mutex with it so that its traces are the model's behaviours;
// with sync.Mutex the comparison would be against a stricter model.
type fifoMutex struct {
	mu      sync.Mutex // guards held and waiters
	held    bool
	waiters []chan struct{}
}

// TryLock takes the mutex if nobody holds it.
func (f *fifoMutex) TryLock() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.held {
		return false
	}
	f.held = true
	return true
}

// Lock takes the mutex, after every goroutine that waited before.
func (f *fifoMutex) Lock() {
	f.mu.Lock()
	if !f.held {
		f.held = true
		f.mu.Unlock()
		return
	}
	turn := make(chan struct{})
	f.waiters = append(f.waiters, turn)
	f.mu.Unlock()
	<-turn // the unlocker handed it over: held stays set
}

// Unlock hands the mutex to the first waiter, or frees it.
func (f *fifoMutex) Unlock() {
	f.mu.Lock()
	defer f.mu.Unlock()
	if !f.held {
		panic("messager: unlock of an unlocked fifoMutex")
	}
	if len(f.waiters) == 0 {
		f.held = false
		return
	}
	next := f.waiters[0]
	f.waiters = f.waiters[1:]
	close(next)
}
