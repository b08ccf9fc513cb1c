package scenario

// Cost is what one world of a scenario costs in memory: a timeline
// snapshot, a state an exhaustive search keeps. A server estimates a
// run's or a search's memory from it before starting the work, so it is
// declared per scenario, as a function of the parameters, and checked
// against measured memory by core/catalog's tests.
type Cost struct {
	// WorldBytes is one world at step 0.
	WorldBytes int64
	// GrowthPerStep is how much a world grows with every step it has
	// taken (logs that only grow); 0 for models whose state is bounded.
	GrowthPerStep float64
}

// defaultWorldBytes is the cost of a world of a scenario that declares
// none: generous for the small models this house ships.
const defaultWorldBytes = 64 << 10

// CostOf is the declared cost of a world of v, or the default.
func (s *Scenario) CostOf(v Values) Cost {
	if s.Cost == nil {
		return Cost{WorldBytes: defaultWorldBytes}
	}
	return s.Cost(v)
}
