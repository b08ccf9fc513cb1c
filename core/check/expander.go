package check

import (
	"encoding/binary"
	"errors"
	"fmt"
	"slices"

	"github.com/racetrack-sim/racetrack/core/scenario"
	"github.com/racetrack-sim/racetrack/core/sim"
)

// Expander gives a breadth-first search to a driver that keeps the
// visited set itself, partitioned across machines: it expands one state
// at a time into its successors and decides, for the
// owner of a successor's fingerprint, whether the successor is new.
// A state travels as its path from the initial state (its depth and
// schedule) plus its sleep set; the world is rebuilt by replay, or, once
// EncodeStates was called, decoded from the state's bytes (BFSState.World,
// sim.Codec) without replaying.
//
// Expanding the states of each level in the order of their index paths
// (the indices of the successors taken from the root, compared
// lexicographically) and admitting each level's successors in that order
// reproduces the local bfs: the same states, the same verdict and the
// same first counterexample. With exact storage a state carries its
// canonical encoding (BFSState.Enc), which the owner's visited set keys
// on, so the state count is the local exact bfs's. The persistent-set
// reduction depends on the visited set while expanding and is not
// offered.
//
// A distributed search is better served by Split (internal/cluster uses
// it): it gives the local result field for field, transitions included,
// rebuilds states by replay (cheaper than decoding them) and sends about
// a quarter of the bytes. Expander serves a driver that wants states one
// at a time, as ProfileSearch does.
type Expander struct {
	x    *Explorer
	g    *graphEngine
	root *sim.World
	// codec, once EncodeStates was called, writes every successor's world
	// into BFSState.World.
	codec *sim.Codec
}

// BFSState is a state of a distributed bfs.
type BFSState struct {
	// Key is the state's canonical fingerprint.
	Key   uint64
	Depth int
	// Path is the schedule from the initial state.
	Path []int
	// Sleep is the state's sleep set, encoded.
	Sleep []byte
	// Enc is the state's canonical encoding with exact storage (the key
	// of the visited set then); empty with fingerprint storage.
	Enc string
	// Renaming is the renaming of the state into the one its key stands
	// for: 1 + an index into the model's symmetries, 0 the identity.
	// Admit names the sleep set's processes with it as the visited set
	// does (see graphEngine.canonMask).
	Renaming int
	// Only, when not 0, is the processes whose steps are taken (a state
	// expanded again: the others' were taken the first time).
	Only uint64
	// World is the state's world written by the model's sim.Codec (see
	// EncodeStates); when set, Expand decodes it instead of replaying
	// Path, which then only names the counterexample.
	World []byte
}

// Finding is a violation met while expanding a state.
type Finding struct {
	Counterexample scenario.RunSpec
	Violation      sim.Violation
}

// Expansion is what expanding one state found besides its successors.
type Expansion struct {
	// Transitions is the steps executed.
	Transitions int
	// Cut is true when the state was left unexpanded at the depth bound.
	Cut   bool
	Found *Finding
}

// NewExpander validates cfg (a bfs, without persistent sets) and returns
// its expander.
func NewExpander(reg *scenario.Registry, cfg Config) (*Expander, error) {
	x, b, err := newDistributedBFS(reg, cfg)
	if err != nil {
		return nil, err
	}
	if len(b.roots) != 1 {
		return nil, fieldErr("preset", "%s/%s draws values while it is set up (%d initial states); a distributed bfs starts from one", x.sc.ID, x.base.Preset, len(b.roots))
	}
	return &Expander{x: x, g: b.g, root: b.roots[0]}, nil
}

// newDistributedBFS validates cfg for a bfs run by parts (a bfs without
// persistent sets, which consult the whole visited set while expanding)
// and returns its explorer and engine, which never shrink.
func newDistributedBFS(reg *scenario.Registry, cfg Config) (*Explorer, *bfsEngine, error) {
	if cfg.Strategy != BFS {
		return nil, nil, fieldErr("strategy", "a distributed search partitions bfs by state; strategy is %s", cfg.Strategy)
	}
	cfg.NoShrink = true
	x, err := New(reg, cfg)
	if err != nil {
		return nil, nil, err
	}
	b, ok := x.eng.(*bfsEngine)
	if !ok {
		return nil, nil, fmt.Errorf("%w: bfs engine", ErrUnsupported)
	}
	if b.g.por {
		return nil, nil, fieldErr("reductions.por", "a distributed bfs cannot use persistent sets (they consult the visited set while expanding)")
	}
	return x, b, nil
}

// Config is the normalised configuration.
func (e *Expander) Config() Config { return e.x.cfg }

// EncodeStates makes Expand write each successor's world into its
// BFSState.World, so that whoever expands it next decodes it rather than
// replaying its path. It fails, naming why, for a model the state codec
// cannot carry (sim.NewCodec).
func (e *Expander) EncodeStates() error {
	c, err := sim.NewCodec(e.root)
	if err != nil {
		return fmt.Errorf("check: a distributed bfs ships states with the model's state codec: %w", err)
	}
	e.codec = c
	return nil
}

// Root is the initial state.
func (e *Expander) Root() BFSState {
	k := e.g.keyOf(e.root)
	s := BFSState{Key: k.fp, Enc: k.enc}
	if e.codec != nil {
		s.World, _ = e.codec.Append(nil, e.root) // the template itself always encodes
	}
	return s
}

// Expand rebuilds s and passes its successors to emit in the local
// search's order; it stops at the first violation, which it returns.
// It changes nothing shared: expansions may run concurrently.
//
// A state with World is decoded, and its world has no schedule: the
// successors' paths and a counterexample's schedule are s.Path followed
// by the choices of the step taken.
func (e *Expander) Expand(s BFSState, emit func(BFSState)) (Expansion, error) {
	return e.ExpandWith(nil, s, emit)
}

// ExpandWith is Expand reusing sc's memory (nil: none) from one call to
// the next: the worlds of the successors and of a decoded state. Give
// each goroutine its own.
func (e *Expander) ExpandWith(sc *Scratch, s BFSState, emit func(BFSState)) (Expansion, error) {
	return e.ExpandSkipping(sc, s, nil, emit)
}

// ExpandSkipping is ExpandWith that first passes each successor, without
// its world, to skip (if not nil): one skip answers true for is not
// encoded nor emitted. A driver that knows a successor's owner will not
// admit it (seen before with a sleep set no larger, see Admit) saves
// encoding and sending it.
func (e *Expander) ExpandSkipping(sc *Scratch, s BFSState, skip func(BFSState) bool, emit func(BFSState)) (Expansion, error) {
	if sc == nil {
		sc = &Scratch{}
	}
	var w *sim.World
	var err error
	var prefix []int
	if s.World != nil {
		if e.codec == nil {
			return Expansion{}, errors.New("check: a state carries its world, but EncodeStates was not called")
		}
		w, err = e.codec.DecodeInto(sc.decoded, s.World)
		sc.decoded = w // nil after a failure: DecodeInto left nothing to reuse
		if err == nil && w.Steps() != s.Depth {
			err = fmt.Errorf("%w: a state of depth %d decodes to a world of %d steps", sim.ErrCodec, s.Depth, w.Steps())
		}
		prefix = s.Path
	} else {
		w, err = e.rebuild(s)
	}
	if err != nil {
		return Expansion{}, err
	}
	// The key is the sender's word: a worker of a distributed search
	// could pair a junk world with the fingerprint of a reachable state
	// and so make its owner drop the real one as seen. The world is
	// checked against it before it is expanded.
	if k := e.g.keyOfWith(w, &sc.h); k.fp != s.Key || k.enc != s.Enc {
		return Expansion{}, fmt.Errorf("%w: a state's world hashes to %016x, not to the fingerprint %016x it came with", ErrStateKey, k.fp, s.Key)
	}
	sleep, err := decodeSleep(s.Sleep)
	if err != nil {
		return Expansion{}, err
	}
	ex := expansion{e: e.g, scratch: &sc.ex}
	var encErr error
	ex.emit = func(sc succ, sl []footprint) {
		next := BFSState{Key: sc.key.fp, Depth: sc.w.Steps(), Sleep: encodeSleep(sl), Enc: sc.key.enc, Renaming: sc.perm + 1}
		if skip != nil && skip(next) {
			return
		}
		next.Path = append(slices.Clip(prefix), sc.w.Schedule()...)
		if e.codec != nil {
			var err error
			if next.World, err = e.codec.Append(nil, sc.w); err != nil && encErr == nil {
				encErr = err
			}
		}
		emit(next)
	}
	ex.expand(&node{w: w, key: stateKey{fp: s.Key, enc: s.Enc}, sleep: sleep, only: s.Only})
	out := Expansion{Transitions: ex.transitions, Cut: ex.cut}
	if ex.found != nil {
		out.Found = &Finding{Counterexample: ex.found.spec, Violation: ex.found.violation}
		out.Found.Counterexample.Schedule = append(slices.Clip(prefix), out.Found.Counterexample.Schedule...)
	}
	if ex.err == nil {
		ex.err = encErr
	}
	return out, ex.err
}

// Admit decides, at the owner of s's fingerprint, whether s is expanded
// at the next level, given the sleep mask the state was stored with (if
// seen): it returns the mask to store and s with its sleep set as it is
// to be expanded. The rule is the local search's (graphEngine.again):
// masks are stored in the names of the state the key stands for, and a
// state reached again with a sleep set that is not a superset of its
// stored one is expanded again for the steps asleep the first time.
func (e *Expander) Admit(stored uint64, seen bool, s BFSState) (uint64, BFSState, bool, error) {
	sleep, err := decodeSleep(s.Sleep)
	if err != nil {
		return 0, s, false, err
	}
	if s.Renaming < 0 || s.Renaming > len(e.g.perms) {
		return 0, s, false, fmt.Errorf("check: a state's renaming is %d, outside [0, %d]", s.Renaming, len(e.g.perms))
	}
	perm := s.Renaming - 1
	mask := e.g.canonMask(maskOf(sleep), perm)
	if seen {
		var again bool
		if mask, s.Only, again = e.g.again(stored, mask, perm); !again {
			return stored, s, false, nil
		}
		s.Sleep = encodeSleep(appendMasked(nil, sleep, e.g.instanceMask(mask, perm)))
	}
	return mask, s, true, nil
}

// Outcome is a distributed bfs's end, for Result.
type Outcome struct {
	States, Transitions, Depth int
	// Done is true when the levels ran out (Cut: some state was left
	// unexpanded at the depth bound); false when the state budget ended
	// the search.
	Done, Cut bool
	// Sampled is true when some drawn value was tried at sampled
	// options only (Config.ValueSamples).
	Sampled bool
	Found   *Finding
	Error   string
}

// Result is the result the local search gives for the same outcome:
// the counterexample replayed and shrunk here.
func (e *Expander) Result(o Outcome) Result { return outcomeResult(e.x, e.g, o) }

// outcomeResult is the result the local search of x gives for a
// distributed search's outcome: the counterexample replayed and shrunk
// by a new explorer, the fingerprint bound of g's storage.
func outcomeResult(x0 *Explorer, g *graphEngine, o Outcome) Result {
	cfg := x0.cfg
	cfg.NoShrink = false
	x, err := New(x0.reg, cfg)
	if err != nil {
		return Result{Strategy: cfg.Strategy, Verdict: VerdictNone, Error: err.Error()}
	}
	x.prog = Progress{States: o.States, Transitions: o.Transitions, Depth: o.Depth}
	x.sampled = o.Sampled
	settled := func(r Result) Result {
		if !g.exact {
			r.OmissionProbability = omissionOf(o.States)
		}
		return r
	}
	if o.Error != "" {
		x.err = errors.New(o.Error)
		x.prog.Done = true
		return settled(x.Result())
	}
	if o.Found != nil {
		x.report(o.Found.Counterexample, o.Found.Violation)
		for !x.prog.Done {
			x.Step(1 << 12)
		}
		return settled(x.Result())
	}
	x.prog.Done = true
	x.verified, x.bounded = o.Done && !o.Cut, o.Done && o.Cut
	return settled(x.Result())
}

// Exact reports whether states are stored exactly: a visited set keys on
// BFSState.Enc, not on Key.
func (e *Expander) Exact() bool { return e.g.exact }

// rebuild replays s's path from the initial state.
func (e *Expander) rebuild(s BFSState) (*sim.World, error) {
	w := e.root.Snapshot()
	ch := &sim.ScriptChooser{Schedule: s.Path}
	w.SetChooser(ch)
	for w.Steps() < s.Depth {
		if !w.Step() {
			return nil, fmt.Errorf("%w: replay of a state's path stopped at step %d of %d: %v", ErrReplay, w.Steps(), s.Depth, w.Err())
		}
	}
	if ch.Pos != len(s.Path) {
		return nil, fmt.Errorf("%w: a state's path has %d choices; its %d steps took %d", ErrReplay, len(s.Path), s.Depth, ch.Pos)
	}
	return w, nil
}

// encodeSleep writes a sleep set as (process, global, mutex+1, reads,
// writes) varints.
func encodeSleep(sleep []footprint) []byte {
	var b []byte
	for _, z := range sleep {
		b = binary.AppendUvarint(b, uint64(z.proc))
		g := uint64(0)
		if z.global {
			g = 1
		}
		b = binary.AppendUvarint(b, g)
		b = binary.AppendUvarint(b, uint64(int64(z.mutex)+1))
		b = binary.AppendUvarint(b, z.reads)
		b = binary.AppendUvarint(b, z.writes)
	}
	return b
}

var errSleep = errors.New("check: malformed sleep set")

func decodeSleep(b []byte) ([]footprint, error) {
	var out []footprint
	for len(b) > 0 {
		var v [5]uint64
		for i := range v {
			x, n := binary.Uvarint(b)
			if n <= 0 {
				return nil, errSleep
			}
			v[i], b = x, b[n:]
		}
		if v[0] >= 64 || v[1] > 1 || v[2] > 1<<31 {
			return nil, errSleep
		}
		out = append(out, footprint{proc: sim.ProcID(v[0]), global: v[1] == 1, mutex: int32(int64(v[2]) - 1), reads: v[3], writes: v[4]})
	}
	return out, nil
}
