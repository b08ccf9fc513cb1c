package check

// The interfaces below are how a model offered the reductions before
// sim.Capabilities. The explorers read only a world's Capabilities; a
// model that implements these and declares nothing has them translated
// once, when its world is built (core/sim/legacy.go).

import "github.com/racetrack-sim/racetrack/core/sim"

// Symmetric is implemented by models whose processes are interchangeable
// (identical clients, the philosophers of a round table): renaming the
// processes and mutexes by any of the listed permutations maps every
// behaviour to a behaviour and the searched properties to themselves.
// With the symmetry reduction on, bfs and dfs store each state once per
// orbit: its hash is the least over the symmetries.
//
// Deprecated: declare sim.Capabilities.Symmetries and HashPermuted instead; a model
// registered without a declaration still has its methods found (see
// core/sim/legacy.go).
type Symmetric interface {
	// Symmetries lists the permutations (the identity not needed).
	Symmetries(w *sim.World) []sim.Permutation
	// HashPermuted folds the model's state as it is after renaming by p;
	// p == nil is the identity.
	HashPermuted(h *sim.Hasher, p *sim.Permutation)
}

// ProcSignatures is implemented by Symmetric models that can say what of
// their state belongs to one process alone: values a renaming moves with
// their process (a client's counters and flags), never a reference to
// another process or mutex. hash adds them to the kernel's part of each
// process's signature, so that fewer renamings tie for the least
// signature vector and fewer are hashed. Any function of the process's
// own state is sound; one that maps different states to one value only
// leaves more ties.
//
// Deprecated: declare sim.Capabilities.ProcSignature instead; a model
// registered without a declaration still has its methods found (see
// core/sim/legacy.go).
type ProcSignatures interface {
	ProcSignature(w *sim.World, p sim.ProcID) uint64
}

// UnlockedSharing says whether a model's threads share state outside the
// kernel's mutexes (atomics, racy reads). The sleep-set and partial-order
// reductions assume that steps of different threads touching different
// mutexes commute, which holds only for a model whose SharesUnlockedState
// returns false. The switch defaults safe: a model that does not implement
// UnlockedSharing is taken to share state, so every pair of its steps is
// dependent (unless it declares its accesses, SharedAccess), and a model
// that forgets the declaration loses speed, never a counterexample.
//
// Deprecated: declare sim.Capabilities.SharesUnlockedState instead; a model
// registered without a declaration still has its methods found (see
// core/sim/legacy.go).
type UnlockedSharing interface {
	SharesUnlockedState() bool
}

// SharedAccess is implemented by models whose threads share state outside
// the kernel's mutexes (UnlockedSharing) and that declare which of it
// each step may touch. Accesses names, as bits of masks (at most 64
// variables), the shared model variables the next step of thread p in w
// may read and write (a superset is sound); ok false means it cannot say,
// and the step is then dependent on every other. With the declarations,
// two steps of different threads are independent when they touch
// different mutexes and neither writes a variable the other reads or
// writes, so sleep sets, persistent sets and DPOR apply to such a model
// too. A model that shares state and declares nothing gets none of them.
//
// Deprecated: declare sim.Capabilities.Accesses instead; a model
// registered without a declaration still has its methods found (see
// core/sim/legacy.go).
type SharedAccess interface {
	Accesses(w *sim.World, p sim.ProcID) (reads, writes uint64, ok bool)
}

// LockSets is implemented by thread models that can say which mutexes a
// process may still lock or unlock from now on (a superset is fine). With
// it the partial-order reduction computes stubborn sets (Valmari): from a
// state it explores the next steps of a set T of processes closed under
// "a process outside T may later touch a mutex a step in T touches", so no
// step outside T can interfere with T first. That preserves every
// deadlock and end state, and for programs where most processes share
// few locks it explores a small fraction of the interleavings.
//
// Deprecated: declare sim.Capabilities.MayTouch instead; a model
// registered without a declaration still has its methods found (see
// core/sim/legacy.go).
type LockSets interface {
	MayTouch(w *sim.World, p sim.ProcID) []sim.MutexID
}
