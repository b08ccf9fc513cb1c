package sim

import "math/rand/v2"

// ChoiceKind tells a chooser what kind of decision it is asked for.
type ChoiceKind uint8

// Choice kinds.
const (
	// ChooseEvent picks which of several events ready at the same virtual
	// time runs next; Choice.Procs lists the process of each option.
	ChooseEvent ChoiceKind = iota + 1
	// ChooseValue picks a value: a latency, a loss, a workload draw.
	ChooseValue
)

// Choice is one nondeterministic decision with N > 1 options.
type Choice struct {
	N     int
	Kind  ChoiceKind
	Label string
	// Procs holds, for ChooseEvent, the process of each option in queue
	// order. It is owned by the kernel and valid only during Choose.
	Procs []ProcID
	// Step is the index of the step the decision belongs to.
	Step int
}

// Chooser makes every nondeterministic decision of a run. Choose returns
// an option in [0, c.N); the kernel rejects anything else.
type Chooser interface {
	Choose(c *Choice) int
}

// RandomChooser draws every choice from a PCG generator seeded by the run's
// seed.
type RandomChooser struct {
	src rand.PCG
	rng *rand.Rand
}

// NewRandomChooser returns a chooser seeded with seed.
func NewRandomChooser(seed uint64) *RandomChooser {
	r := &RandomChooser{src: *rand.NewPCG(seed, seed^0x5851f42d4c957f2d)}
	r.rng = rand.New(&r.src)
	return r
}

// Clone is an independent chooser at the same point of the stream: what
// a search that branches a run needs to keep drawing the values that
// run would have drawn.
func (r *RandomChooser) Clone() *RandomChooser {
	c := &RandomChooser{src: r.src}
	c.rng = rand.New(&c.src)
	return c
}

// HashInto folds the stream's position (two choosers at one position
// draw the same values from then on).
func (r *RandomChooser) HashInto(h *Hasher) {
	next := r.src // a copy: the stream does not move
	h.Uint64(next.Uint64())
}

// Choose draws uniformly.
func (r *RandomChooser) Choose(c *Choice) int { return r.rng.IntN(c.N) }

// ReplayChooser follows a recorded schedule, then falls back to the random
// stream of the seed. It draws from the fallback even while replaying, so
// that a schedule which is a prefix of a seed's own schedule continues
// exactly as that seed's run did.
type ReplayChooser struct {
	schedule []int
	pos      int
	fallback Chooser
}

// NewReplayChooser replays schedule, then continues with fallback.
func NewReplayChooser(schedule []int, fallback Chooser) *ReplayChooser {
	return &ReplayChooser{schedule: schedule, fallback: fallback}
}

// Choose returns the next recorded choice, or the fallback's once the
// schedule is used up.
func (r *ReplayChooser) Choose(c *Choice) int {
	v := r.fallback.Choose(c)
	if r.pos < len(r.schedule) {
		v = r.schedule[r.pos]
		r.pos++
	}
	return v
}

// Remaining is the number of recorded choices not yet replayed.
func (r *ReplayChooser) Remaining() int { return len(r.schedule) - r.pos }

// ScriptChooser follows a schedule strictly and fails (returns -1, which
// the kernel rejects) when the run asks for more choices than it holds. The
// explorers use it to replay exact prefixes.
type ScriptChooser struct {
	Schedule []int
	Pos      int
}

// Choose returns the next scripted choice or -1.
func (s *ScriptChooser) Choose(c *Choice) int {
	if s.Pos >= len(s.Schedule) {
		return -1
	}
	v := s.Schedule[s.Pos]
	s.Pos++
	return v
}

// FirstChooser always takes option 0: events run in scheduling order.
type FirstChooser struct{}

// Choose returns 0.
func (FirstChooser) Choose(*Choice) int { return 0 }
