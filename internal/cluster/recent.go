package cluster

import "sync"

// maxCancelled bounds a worker's list of cancelled searches: a flood of
// cancels pushes out old ones (whose tasks the coordinator purged from
// the queue already) instead of growing the worker.
const maxCancelled = 4096

// recentSet holds the last n strings added.
type recentSet struct {
	mu    sync.Mutex
	set   map[string]struct{}
	order []string // a ring: next is where the next one goes
	next  int
}

func newRecentSet(n int) *recentSet {
	return &recentSet{set: make(map[string]struct{}, n), order: make([]string, 0, n)}
}

func (r *recentSet) add(s string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, ok := r.set[s]; ok {
		return
	}
	if len(r.order) < cap(r.order) {
		r.order = append(r.order, s)
	} else {
		delete(r.set, r.order[r.next])
		r.order[r.next] = s
		r.next = (r.next + 1) % len(r.order)
	}
	r.set[s] = struct{}{}
}

func (r *recentSet) has(s string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	_, ok := r.set[s]
	return ok
}

func (r *recentSet) len() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.set)
}
