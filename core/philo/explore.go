package philo

import "github.com/racetrack-sim/racetrack/core/sim"

// The methods below let core/check reduce its exhaustive searches of the
// table; they are what the model knows that the kernel cannot.

// MayTouch lists the forks philosopher p may still take or put down (a
// superset is fine): the lock sets behind core/check's stubborn sets.
func (t *Table) MayTouch(w *sim.World, p sim.ProcID) []sim.MutexID {
	proc := w.Proc(p)
	if proc.Status == sim.Done || proc.PC >= pcDone {
		return nil
	}
	first, second := t.forks(int(p))
	if proc.PC == pcPutFirst {
		return []sim.MutexID{t.Forks[first]}
	}
	return []sim.MutexID{t.Forks[first], t.Forks[second]}
}

// Symmetries lists the rotations of a left-first table: renaming
// philosopher i and fork i to i+r (mod n) maps it to itself. A
// lower-fork-first table has no symmetry (philosopher n-1 reaches across).
func (t *Table) Symmetries(w *sim.World) []sim.Permutation {
	if t.ordered {
		return nil
	}
	n := len(t.Phils)
	var out []sim.Permutation
	for r := 1; r < n; r++ {
		p := sim.Permutation{Procs: make([]sim.ProcID, len(w.Procs())), Mutexes: make([]sim.MutexID, len(w.Mutexes()))}
		for i := 0; i < n; i++ {
			p.Procs[t.Phils[i]] = t.Phils[(i+r)%n]
			p.Mutexes[t.Forks[i]] = t.Forks[(i+r)%n]
		}
		out = append(out, p)
	}
	return out
}

// HashPermuted folds the meals eaten as Hash does, seat j holding the
// meals of the philosopher renamed to j.
func (t *Table) HashPermuted(h *sim.Hasher, p *sim.Permutation) {
	n := len(t.Phils)
	for j := 0; j < n; j++ {
		i := j
		if p != nil {
			for k := 0; k < n; k++ {
				if p.Procs[t.Phils[k]] == t.Phils[j] {
					i = k
				}
			}
		}
		h.Int(t.Eaten[i])
	}
}

// SharesUnlockedState tells core/check that the philosophers share
// nothing but the forks (kernel mutexes): each writes only its own meal
// count. Without it the explorers would assume shared state and reduce
// nothing (check.UnlockedSharing).
func (t *Table) SharesUnlockedState() bool { return false }
