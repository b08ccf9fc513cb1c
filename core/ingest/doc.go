// Package ingest turns a logged execution of a real system into the same
// step records a model run is made of: processes on nodes, steps of the
// kernel's kinds (sim.StepKind), messages with their send and receive
// steps, mutexes, and a vector clock per step. Three formats come in:
//
//   - ShiViz logs, parsed with ShiViz's own parser and delimiter regular
//     expressions (named groups host, clock and event; any other named
//     group is kept as a field of the event; JSON vector clocks; several
//     executions split by the delimiter);
//   - Racetrack's NDJSON trace format (docs/trace-format.md), which the
//     tracer package writes from a real Go program;
//   - Racetrack's own JSON export of a run (core/export.WriteJSON).
//
// Every importer is a pure function from bytes to a Log: it reads no
// clock, does no I/O and is the same natively and in wasm. A log that is
// not a valid execution (a clock that goes backwards, a receive before its
// send, an unknown message id, bad JSON) is refused with an *Error naming
// the line and the field, and nothing of it is returned.
//
// Memory is bounded before it is taken: Estimate says what an import of n
// bytes takes with events of a typical size (what a server reserves and
// passes as Options.MaxBytes), Need what it takes for a given number of
// events and processes. An import checks the input's size before
// parsing, each event before reading it and the vector clocks once the
// processes are counted, and fails with a *TooLargeError carrying the
// bytes the whole log needs when it would go over Options.MaxBytes.
//
// Execution.Timeline makes an imported execution a timeline.Timeline, so
// that it is laid out, stepped through, sliced and exported like a run.
package ingest
