// Package tarantool models Tarantool's Raft leader election together with
// the replication relays that carry Raft messages between instances
// (seed 004: "replication: send accumulated Raft messages after relay
// start", the gh-5445 follow-up, first described in issue #5438).
//
// Every instance is a kernel node with an actor for its tx thread; every
// ordered pair A -> B has an actor for A's relay thread serving B and one
// for B's applier fetching from A, so the space-time diagram shows the tx
// -> relay cbus hops and the network hop separately. Each kind of thread
// declares what it does per message type and timer, and on boot, restart
// and crash, in a sim.Handlers table (txTable, relayTable, applierTable,
// nemesisTable), which also words the pending events; logmap.go maps a
// logged execution to their rows (sim.LogMap "instances"), so that a log
// validates against a variant with the seed that drew its latencies.
// The Raft state machine (src/lib/raft/raft.c), the subscribe handshake
// and relay start
// (box_process_subscribe, relay_subscribe_f), the is_raft_enabled cbus round
// trip (relay_send_is_raft_enabled, tx_set_is_raft_enabled), Raft pushes
// through the relay pipe (relay_push_raft, relay_raft_msg_push) and the
// applier's sender filter (raft_is_source_allowed) are modelled step by
// step; comments name the upstream function each step mirrors.
//
// # Where the model simplifies, or follows upstream over the spec
//
//   - raft_process_msg follows raft.c (2.8): besides "raft off", "leader
//     known", "already voted" and the vclock test, a vote is also skipped for
//     self and for a message that is not a candidate's request; a candidate
//     skips votes for others; outdated terms are ignored wholesale.
//   - The subscribe-time Raft row is written only when the master has Raft
//     enabled (box_process_subscribe); election_mode=off sends none.
//   - A subscribe while the previous relay for that replica still runs is
//     refused with "duplicate connection", as in box_process_subscribe; the
//     applier retries every replication_timeout.
//   - relayEnableDelay covers the relay thread's start (cord_costart,
//     cbus_pair) up to relay_send_is_raft_enabled, drawn in [d/2, d]; every
//     cbus hop then takes 20 µs to 1 ms, in order.
//   - Relays send a heartbeat every replication_timeout (upstream: only when
//     idle); appliers ack once per replication_timeout (upstream: also after
//     each applied transaction). Either side drops the connection after
//     4 x replication_timeout of silence.
//   - A partition breaks both TCP connections of the pair at once (relays
//     stop, appliers reconnect later) instead of dropping messages from the
//     middle of a stream, which TCP never does.
//   - Client rows are one-row transactions written at writeRate, applied
//     without a WAL delay; a relay never sends a replica its own rows.
//   - A crash loses a raft_write that had not finished; term, vote, WAL and
//     vclock survive. Synchronous replication (the limbo, PROMOTE) is not
//     modelled, so leader-inconsistency replays the gh-5445 restarts and
//     mode changes, not its rollback checks.
//   - pending-alloc sends the saved request as its own message on enable
//     (the review version carried it inside the enable message), without a
//     recovery restart.
//   - The relay struct is upstream's replica->relay: made once (zeroed)
//     and reused by every connection of that replica; relay_start resets
//     nothing the model keeps, so recv_vclock carries the previous
//     connection's last ack into the next one (zeros for a fresh struct,
//     and after the master restarts) until the first ack, except in
//     merged, where relay_subscribe sets it to the replica's vclock.
//   - The oldVersion parameter and half of anonymous are later upstream,
//     not the seed's code: 3bee3fe2b9 ("always send raft state to
//     subscribers", committed August 2021, after the fix) added the
//     version >= 2.6.0 checks and the anon check on the subscribe-time
//     Raft row; only skipping relay_send_is_raft_enabled for an anonymous
//     replica is seed-era. The model keeps the seed's raft_is_enabled
//     condition on that row (3bee3fe2b9 sends it with Raft off too), so
//     runs with these parameters mix the seed's code with its checks.
//
// Variants: drop (the bug, the code before 660f3323b9: a push to a relay
// that is not enabled yet is lost), pending (the seed's v4 patch, never
// merged as is: a rotating pair of preallocated messages, at most one in
// flight, the latest update kept and pushed on enable and on return; a
// restart flag keeps the first push after enabling from restarting the
// recovery), pending-alloc (the earlier review version: one message per
// update), merged (660f3323b9 as merged: the rotating pair without the
// restart flag, and recv_vclock set to the replica's vclock on subscribe)
// and merged-without-recv-vclock (a wrong fix: merged without that
// initialisation, which rows-not-resent catches). Like everything under
// core, the package performs no I/O and draws every random value through
// the kernel's chooser.
package tarantool
