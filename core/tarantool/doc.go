// Package tarantool models Tarantool's Raft leader election together with
// the replication relays that carry Raft messages between instances
// (seed 004: "replication: send accumulated Raft messages after relay
// start", the gh-5445 follow-up, first described in issue #5438).
//
// Every instance is a kernel node with an actor for its tx thread; every
// ordered pair A -> B has an actor for A's relay thread serving B and one
// for B's applier fetching from A, so the space-time diagram shows the tx
// -> relay cbus hops and the network hop separately. The Raft state machine
// (src/lib/raft/raft.c), the subscribe handshake and relay start
// (box_process_subscribe, relay_subscribe_f), the is_raft_enabled cbus round
// trip (relay_send_is_raft_enabled, tx_set_is_raft_enabled), Raft pushes
// through the relay pipe (relay_push_raft, relay_raft_msg_push) and the
// applier's sender filter (raft_is_source_allowed) are modelled step by
// step; comments name the upstream function each step mirrors.
//
// Variants: drop (the bug: a push to a relay that is not enabled yet is
// lost), pending (the v4 fix: a rotating pair of preallocated messages, at
// most one in flight, the latest update kept and pushed on enable and on
// return) and pending-alloc (the earlier review version: one message per
// update). Like everything under core, the package performs no I/O and
// draws every random value through the kernel's chooser.
package tarantool
