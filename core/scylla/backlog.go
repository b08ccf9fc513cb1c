package scylla

import "github.com/racetrack-sim/racetrack/core/sim"

// Levels 1 and 2 of the view-update backlog.
//
// Level 1 is the per-shard view-update memory semaphore: a shard's backlog
// is the bytes its pending view updates hold (database::get_view_update_backlog,
// {max - available units, max}). Level 2 is the per-node node_update_backlog
// (db/view/node_view_update_backlog.hh): one slot per shard, a cached max
// refreshed at most once per interval, and, in the fixed code, one
// need_publishing flag per shard.
//
// Backlogs are kept as bytes; every backlog of a run has the same max
// (maxMem), so comparing bytes is comparing relative_size() as upstream does.
// no_backlog is {0, maxMem} here (upstream {0, SIZE_MAX}: relative 0 either way).

// idx is the index of shard s of node n in the per-shard tables.
func (m *Model) idx(n, s int) int { return n*m.cfg.shards + s }

// recompute is the accumulate over all slots of node n (starting from
// no_backlog) that add_fetch, fetch and fetch_if_changed share: it stores
// the new max, the refresh time, and (for the response-from-applying-shard
// property) the true per-shard backlogs at that instant.
func (m *Model) recompute(n int) int64 {
	base := m.idx(n, 0)
	var mx int64
	for s := 0; s < m.cfg.shards; s++ {
		mx = max(mx, m.slot[base+s])
		m.truthAtRefresh[base+s] = m.sem[base+s]
	}
	m.cachedMax[n] = mx
	m.lastUpdate[n] = m.now
	return mx
}

// intervalPassed is `now >= _last_update + _interval`.
func (m *Model) intervalPassed(n int) bool { return m.now >= m.lastUpdate[n]+m.cfg.refresh }

// addFetch mirrors node_update_backlog::add_fetch(shard, backlog), the code
// before 272e80fe0a split it: store the calling shard's own semaphore
// backlog in its slot, then return the fresh max if the interval passed,
// else max(backlog, cached max). Callers pass this_shard_id(), which on the
// response path is the shard that handled the RPC (bug #18542). With
// flag set it also raises the shard's need_publishing flag: from
// 272e80fe0a to fd9c7d4d59 a response does add() then fetch() on the
// handling shard, the same value, and add() raises the flag since
// f70f774e40 (PR #18663).
func (m *Model) addFetch(n, s int, flag bool) int64 {
	i := m.idx(n, s)
	b := m.sem[i]
	m.slot[i] = b
	if flag {
		m.flag[i] = true
	}
	if m.intervalPassed(n) {
		return m.recompute(n)
	}
	return max(b, m.cachedMax[n])
}

// add mirrors node_update_backlog::add(backlog) (272e80fe0a), called as
// storage_proxy::update_view_update_backlog() when each view update
// finishes (mutate_MV's continuation, 2cafa573df) and, after #19341, on
// the shard that generated view updates (after builder.close()): store the
// shard's semaphore backlog in its slot and set its need_publishing flag
// (f70f774e40).
func (m *Model) add(n, s int) {
	i := m.idx(n, s)
	m.slot[i] = m.sem[i]
	m.flag[i] = true
}

// fetch mirrors node_update_backlog::fetch() on shard s: the fresh max if
// the interval passed, else max(slot[this shard], cached max) — at most one
// interval stale ("may be outdated up to 10ms", PR #19341).
func (m *Model) fetch(n, s int) int64 {
	if m.intervalPassed(n) {
		return m.recompute(n)
	}
	return max(m.slot[m.idx(n, s)], m.cachedMax[n])
}

// fetchIfChanged mirrors node_update_backlog::fetch_if_changed() (shard 0
// only): on every shard swap the need_publishing flag to no and read the
// slot; always store the new max and the refresh time; report whether any
// flag was set.
func (m *Model) fetchIfChanged(n int) (int64, bool) {
	changed := m.takeFlags(n)
	return m.recompute(n), changed
}

// takeFlags clears node n's need_publishing flags and reports whether any
// was set.
func (m *Model) takeFlags(n int) bool {
	base := m.idx(n, 0)
	changed := false
	for s := 0; s < m.cfg.shards; s++ {
		changed = changed || m.flag[base+s]
		m.flag[base+s] = false
	}
	return changed
}

// setSem changes the semaphore units held on shard s of node n (level 1)
// and keeps the node's true backlog (max over its shards) and the time it
// last changed, which coordinator-view-converges measures from.
func (m *Model) setSem(w *sim.World, n, s int, units int64) {
	i := m.idx(n, s)
	m.sem[i] = units
	w.Sample(m.sShard[i], m.rel(units))
	base := m.idx(n, 0)
	var mx int64
	for k := 0; k < m.cfg.shards; k++ {
		mx = max(mx, m.sem[base+k])
	}
	if mx != m.truth[n] {
		m.truth[n] = mx
		m.trueSince[n] = m.now
		w.Sample(m.sTruth[n], m.rel(mx))
	}
}

// rel is relative_size(): current / max.
func (m *Model) rel(b int64) float64 { return float64(b) / float64(m.cfg.maxMem) }
