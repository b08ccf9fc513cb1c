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
// A distributed bfs is partitioned by state fingerprint into Parts
// ranges and runs level by level (check.Expander), one task per
// partition a level: the task admits the states sent to its partition
// for the level, in the order of their index paths, against its visited
// set, and expands the admitted ones, decoding each from the bytes it
// arrived as (check.Expander.EncodeStates: the model's sim.Codec, no
// replay from the initial state); the successors go, encoded, batched
// by owner and compressed, to the owners' subjects for the next level
// while the level is still being expanded. It gives the local bfs's
// verdict, its state count (the states of the levels expanded, also
// when it stops at a violation or at the state budget) and its
// counterexample (the first violation in level order, so a shortest one,
// whose path every state carries), replayed and shrunk on the
// coordinator as locally. Transitions count the steps the workers
// executed, which may differ from the local count. With storage exact
// each state travels with its canonical encoding and each partition's
// visited set keys on it, so the state count is the local exact bfs's
// and no state is omitted (the owner is still chosen by fingerprint,
// which equal encodings share). Every task's input and output is kept
// in JetStream (the states sent to each partition for each level, and
// each partition's visited-set increment per level, the checkpoint)
// under message ids a repeated attempt repeats: a worker killed mid-task
// costs that task, redone by another worker from the stored level; a
// worker keeps the visited sets of the partitions it ran and catches up
// from the increments. Persistent sets (reductions.por) are not
// available distributed: they consult the visited set while expanding;
// neither is dfs (an error names the strategy field). docs/cluster.md
// describes the protocol.
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
// unchecked: a result must carry its task's token, a claimed violation
// is replayed from the initial state (never decoded from a worker's
// bytes), a bfs level's counts are checked against the visited-set
// increments published and a secret sample of the states sent to each
// partition is re-expanded on the coordinator (bfsAudit), and one secret
// run of each seed range reported clean is re-run (ErrForged otherwise). docs/security.md says what a
// malicious worker can still do.
package cluster
