package scylla

// PayloadTypes lists the messages the model sends, for the state codec
// (sim.Capabilities.PayloadTypes): an encoded state names a pending message's type
// by its place in this list.
func (m *Model) PayloadTypes() []any {
	return []any{writeReq{}, mutation{}, applyReq{}, applied{}, mutationDone{}, writeReply{}, gossipMsg{}}
}
