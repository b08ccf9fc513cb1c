package tarantool

// PayloadTypes lists the messages the model sends, for the state codec
// (sim.Capabilities.PayloadTypes): an encoded state names a pending message's type
// by its place in this list.
func (m *Model) PayloadTypes() []any {
	return []any{subscribeMsg{}, subscribeReply{}, raftRow{}, dataRow{}, heartbeat{}, ackMsg{},
		closeMsg{}, relayStartMsg{}, enableMsg{}, enabledMsg{}, raftPushMsg{}, raftReturnMsg{}, relayExitMsg{}, walEventMsg{}}
}
