// Package conform validates a logged execution of a real system against
// a model: it answers whether the log is a behaviour of the model, by a
// search of the model constrained by the log.
//
// The model declares how its logs map to it (sim.LogMap, in its
// Capabilities): which model process each logged lane is, what each
// logged event is (a model step, a condition on the model's state, or
// nothing of it) and which model values the logged fields name. Validate
// binds a log (an ingest.Execution) to that mapping, refusing a lane or
// an event the mapping does not know with an *ingest.Error naming its
// line and field, and then searches: a state is the model's world and how
// far each lane's events are consumed; a model step that the mapping
// makes observable must match its lane's next logged event, whose
// happens-before past is already consumed; the model's other steps may
// happen in between; an optional step event (a logged block) may also be
// passed over; condition events are consumed as soon as their condition
// holds. Draws of few options are enumerated inside a step, larger ones
// taken from Options.Seed. States are deduplicated by (world hash, positions),
// and the search is bounded by Options.MaxStates.
//
// The verdict either says the log conforms, with the model run aligned to
// it (the model's choices, and for each model step the logged event it
// matched), or where it leaves the model: the furthest logged event no
// reachable model state can match, why, what the model could have done
// there instead, and the model's state there.
//
// Validation is pure: no clock, goroutine, I/O or map order reaches its
// result, so the server, the wasm engine and the command line, which all
// call Validate, give the same verdict.
package conform
