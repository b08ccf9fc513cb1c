package check

import (
	"fmt"

	"github.com/racetrack-sim/racetrack/core/sim"
)

// rebuilder rebuilds the worlds of one level's states by replaying their
// paths from the root, keeping the worlds along the last path so that
// neighbours (which share most of their path) replay only where they
// differ. Told which state it will be asked for next, it steps the
// worlds of the path that state does not share in place instead of
// copying them first.
type rebuilder struct {
	b      *bfsEngine
	ids    []uint32     // entry at each depth of the cached path
	worlds []*sim.World // its world
	anc    []uint32
	buf    []int
	// free holds worlds dropped from the cached path, to recycle; last
	// is the world world returned last, recycled by the next call.
	free    []*sim.World
	last    *sim.World
	chooser sim.ScriptChooser
}

// world returns a world of entry i at depth d, valid until the next call.
// next is the entry the next call will ask for at depth d, or -1 if
// unknown.
func (r *rebuilder) world(d int, i uint32, next int64) (*sim.World, error) {
	if d == 0 {
		r.last = r.b.roots[i].SnapshotInto(r.last)
		return r.last, nil
	}
	if cap(r.anc) < d+1 {
		r.anc = make([]uint32, d+1)
	}
	anc := r.anc[:d+1]
	anc[d] = i
	// Walk up to the deepest cached world on the path to i: the cached
	// path is a path, so where it meets i's ancestors it holds all the
	// ones above too.
	j := d
	for j > 0 && !(j < len(r.worlds) && r.ids[j] == anc[j]) {
		anc[j-1] = r.b.levels[j].parent[anc[j]]
		j--
	}
	if j == 0 && (len(r.worlds) == 0 || r.ids[0] != anc[0]) {
		// A path from another initial state: drop the cached one.
		if len(r.worlds) > 0 {
			r.free = append(r.free, r.worlds[1:]...)
		}
		r.ids, r.worlds = append(r.ids[:0], anc[0]), append(r.worlds[:0], r.b.roots[anc[0]])
	}
	r.free = append(r.free, r.worlds[j+1:]...) // never an initial state: j >= 0
	r.ids, r.worlds = r.ids[:j+1], r.worlds[:j+1]
	// The worlds of i's path at depths v and below are not on next's
	// path: each is stepped in place into the next one (an initial
	// state never is).
	v := r.divergence(d, i, next)
	w := r.worlds[j]
	for k := j + 1; k <= d; k++ {
		inPlace := k-1 >= v && k-1 > 0
		var into *sim.World
		switch {
		case inPlace:
			r.ids, r.worlds = r.ids[:min(len(r.ids), k-1)], r.worlds[:min(len(r.worlds), k-1)]
		case k == d:
			into = r.last
		default:
			if n := len(r.free); n > 0 {
				into, r.free = r.free[n-1], r.free[:n-1]
			}
		}
		c, err := r.replay(w, k, anc[k], into, inPlace)
		if err != nil {
			return nil, err
		}
		if k == d {
			if inPlace && r.last != nil {
				r.free = append(r.free, r.last)
			}
			r.last = c
			return c, nil
		}
		if !inPlace {
			r.ids, r.worlds = append(r.ids, anc[k]), append(r.worlds, c)
		}
		w = c
	}
	return nil, fmt.Errorf("%w: bfs lost the path to a state", ErrReplay)
}

// divergence is the least depth from which the paths to entries i and
// next of depth d differ: both share their ancestors above it. It is
// d+1 when next is unknown (-1), 0 when their initial states differ.
func (r *rebuilder) divergence(d int, i uint32, next int64) int {
	if next < 0 {
		return d + 1
	}
	a, b := i, uint32(next)
	for k := d; k > 0; k-- {
		pa, pb := r.b.levels[k].parent[a], r.b.levels[k].parent[b]
		if pa == pb {
			return k
		}
		a, b = pa, pb
	}
	return 0
}

// replay steps w (at depth k-1) by entry e of depth k: a copy of w made
// in into's memory, or w itself when inPlace.
func (r *rebuilder) replay(w *sim.World, k int, e uint32, into *sim.World, inPlace bool) (*sim.World, error) {
	r.buf = r.b.levels[k].stepChoices(e, r.buf[:0])
	steps := w.Steps()
	c := w
	if !inPlace {
		c = w.SnapshotInto(into)
	}
	ch := &r.chooser
	*ch = sim.ScriptChooser{Schedule: r.buf}
	c.SetChooser(ch)
	if !c.Step() || ch.Pos != len(r.buf) {
		return nil, fmt.Errorf("%w: bfs replay of a stored state failed at step %d: %v", ErrReplay, steps, c.Err())
	}
	return c, nil
}
