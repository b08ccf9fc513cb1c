package conform

import (
	"fmt"

	"github.com/racetrack-sim/racetrack/core/check"
	"github.com/racetrack-sim/racetrack/core/sim"
)

// stepChooser makes the choices of one model step the search tries: the
// ready event it picked, the values of the draws it enumerates (each of
// at most check.MaxValueOptions options, as bfs and dfs do; with a seed,
// starting from the seed's pick), and, with a seed, the values of larger
// draws from the seeded stream. The stream
// moves at every choice, as the run's own chooser moves, so that the
// search draws the values that run drew wherever it follows its choices.
type stepChooser struct {
	values *check.StepValues
	rng    *sim.RandomChooser // nil: no seed
	// big is the first draw of more options than are enumerated, with no
	// seed to take it from.
	big  string
	bigN int
}

func newStepChooser(event int, values []int, rng *sim.RandomChooser) *stepChooser {
	return &stepChooser{values: check.NewStepValues(event, values), rng: rng}
}

func (c *stepChooser) Choose(ch *sim.Choice) int {
	seeded := -1
	if c.rng != nil {
		seeded = c.rng.Choose(ch)
	}
	if ch.Kind == sim.ChooseValue && ch.N > check.MaxValueOptions {
		if seeded < 0 && c.big == "" {
			c.big, c.bigN = ch.Label, ch.N
		}
		return max(seeded, 0)
	}
	v := c.values.Choose(ch)
	if seeded >= 0 && ch.Kind == sim.ChooseValue {
		// The seed's own pick first, then the others: a log of the
		// seed's run is followed without trying every option before it.
		return (v + seeded) % ch.N
	}
	return v
}

// refused is the error for a draw the step could neither enumerate nor
// take from a seed, at step (the model's Init when it is -1).
func (c *stepChooser) refused(scenarioID string, step int) error {
	if c.big == "" {
		return nil
	}
	where := fmt.Sprintf("at step %d", step+1)
	if step < 0 {
		where = "as it starts"
	}
	return fmt.Errorf("%w: %s draws %q from %d options %s; validation enumerates draws of at most %d options, "+
		"and takes larger ones from a seed: give one (-seed, Options.Seed), or validate an untimed configuration",
		ErrUnsupported, scenarioID, c.big, c.bigN, where, check.MaxValueOptions)
}
