// Package cluster runs core/check searches across machines on NATS
// JetStream: an embedded NATS server (the default, reachable only inside
// the process unless a listen address is given) or an external cluster,
// workers that take search work from a JetStream work queue, and a
// coordinator that splits a search, aggregates progress, cancels and
// settles the answer.
//
// It does the I/O and starts the goroutines the pure core may not; the
// search itself (runs, states, shrinking) is core/check's, unchanged.
//
// # Same answer
//
// A distributed random or pct search gives the Result a local search with
// the same Config gives, field for field (only wall time differs): runs
// are split into seed ranges [lo, hi) (check.Explorer.StartAt), each range
// stops at its first violation, and the coordinator waits until every
// range below the lowest violation is done, so the answer is the lowest
// violating run, as in the local search that tries runs in order. The
// coordinator then replays that run and shrinks it locally, so the
// counterexample, its length and the run count (runs up to and including
// the violating one, plus the shrinking replays) are the local ones. A
// worker that dies holding a range loses nothing: the range is not
// acknowledged, JetStream redelivers it after AckWait, and a range
// computes the same result wherever it runs.
package cluster
