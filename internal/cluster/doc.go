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
//
// A distributed bfs is the local bfs split where its phases meet
// (check.Split), level by level, with two rounds of tasks a level. An
// expand task expands a range of the level's chunks (the local search's
// cuts of 256 states), rebuilding each state by replaying its path as the
// local search does, and sends each successor, as an instance (its
// parent, its place among the parent's successors, its key, sleep set,
// renaming and step), to the batch of the partition that owns its
// fingerprint. A merge task decides one partition's instances as the
// local search's merge does (wave by wave, in the level's order) and
// publishes its decisions. Every worker process and the coordinator keep
// a replica of the search (its level logs and visited set), advanced with
// every partition's instances and decisions, so any worker can take any
// task. The answer is the local bfs's Result, field for field, transitions
// included, with fingerprint or exact storage. Every task's input and
// output is kept in JetStream (rt.bfs.<search>.inst.<level>.<part>.<range>.<batch>
// and .dec.<level>.<part>.<batch>) under message ids a repeated attempt
// repeats (a replica's batches depend only on the levels before): a
// worker killed mid-task costs that task, redone by another worker; a
// worker that joins mid-search builds its replica from the levels stored.
// Persistent sets (reductions.por) are not available distributed: they
// consult the visited set while expanding; neither is dfs (an error names
// the strategy field). docs/cluster.md describes the protocol.
//
// # Lost connections
//
// Every connection retries a lost server for ever. A search waits for
// it up to Options.LostAfter: its publications are retried (message ids
// make a retry that was stored already a duplicate JetStream drops), its
// result consumer is recreated, and a worker whose task was cut off
// leaves it unacknowledged, redelivered once the server is back. So a
// NATS server restarted on the same port and JetStream directory (file
// storage: the streams, the queue and its unacknowledged tasks are on
// disk) costs the tasks in flight, not the answer. A cluster unreachable
// for LostAfter ends the search with ErrLost and a Result whose Error
// says so; the server records the search as failed. So does a cluster
// with no worker: tasks queued for LostAfter while no worker held one
// or asked for one.
//
// # Trust
//
// Every connection authenticates as the account's coordinator or as a
// worker (AccountConfig: a worker may only take tasks, read bfs data and
// publish results and bfs data), and no worker's word becomes a verdict
// unchecked: a result must carry its task's token; a bfs violation is
// found again by expanding its chunk on the coordinator's replica; each
// merge's counts are checked against what its decisions add to that
// replica, and each level a secret chunk is expanded again and each
// merge merged again with probability 1/8, compared with what the
// workers published (bfsAudit); a state whose rebuilt world does not
// hash to the key it was sent with fails the search; and one secret run
// of each seed range reported clean is re-run (ErrForged otherwise).
// docs/security.md says what a malicious worker can still do.
package cluster
