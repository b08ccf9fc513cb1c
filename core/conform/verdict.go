package conform

import "github.com/racetrack-sim/racetrack/core/sim"

// Stop says how a validation ended.
type Stop string

// Stops.
const (
	// StopConforms: a model run matches every logged event.
	StopConforms Stop = "conforms"
	// StopLeaves: the search ended without one; the log leaves the model
	// at Verdict.At.
	StopLeaves Stop = "leaves"
	// StopBudget: the state budget ran out first; Verdict.At is the
	// furthest point reached, which proves nothing.
	StopBudget Stop = "budget"
)

// Verdict is the answer of a validation.
type Verdict struct {
	Stop     Stop   `json:"stop"`
	Conforms bool   `json:"conforms"`
	Mapping  string `json:"mapping"`
	// Events counts the logged events, Matched those consumed in the
	// furthest state the search reached (all of them when it conforms).
	Events  int `json:"events"`
	Matched int `json:"matched"`
	// States counts the distinct states the search stored, Transitions
	// the model steps it tried.
	States      int `json:"states"`
	Transitions int `json:"transitions"`
	// The model run of the conforming match (or of the furthest state):
	// Schedule replays it (the spec's schedule: the model's choices
	// among ready events); StepEvents[k] is the logged event model step
	// k matched (-1: a step the log does not show); Reached[i] is how
	// many model steps had run when logged event i was consumed (its own
	// step included, for an event a step matched), or -1 when the run did
	// not reach it. One cursor over the model's steps thus points into
	// the log too.
	Schedule   []int   `json:"schedule"`
	StepEvents []int32 `json:"stepEvents"`
	Reached    []int32 `json:"reached"`
	// At says where the log leaves the model (nil when it conforms).
	At *Departure `json:"at,omitempty"`
}

// Departure is where a log leaves the model: the furthest state the
// search reached, the logged events waiting there that nothing in the
// model matches, and what the model could do instead.
type Departure struct {
	// Event is the first (in the log's order) of the waiting events.
	Event   int       `json:"event"`
	Line    int       `json:"line"`
	Waiting []Waiting `json:"waiting"`
	// Instead lists the observable model steps enabled in that state:
	// what the model could have done there.
	Instead []Alternative `json:"instead"`
	// State is the model's view of its state there, when it offers one.
	State *sim.View `json:"state,omitempty"`
	// Steps is the number of model steps taken to that state.
	Steps int `json:"steps"`
}

// Waiting is a logged event whose happens-before past is matched but
// which the model cannot match, and why.
type Waiting struct {
	Event int    `json:"event"`
	Line  int    `json:"line"`
	Lane  string `json:"lane"`
	Kind  string `json:"kind"`
	Label string `json:"label"`
	Why   string `json:"why"`
}

// Alternative is a model step enabled where the log leaves the model.
type Alternative struct {
	Proc   string `json:"proc"`
	Kind   string `json:"kind"`
	Object string `json:"object,omitempty"`
	// Says is the model's description of the step, when it gives one.
	Says string `json:"says,omitempty"`
}
