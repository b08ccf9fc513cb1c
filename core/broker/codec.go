package broker

// PayloadTypes lists the messages the model sends, for the state codec
// (sim.Capabilities.PayloadTypes): an encoded state names a pending
// message's type by its place in this list.
func (b *Broker) PayloadTypes() []any {
	return []any{produce{}, produceAck{}, fetch{}, fetchResp{}, epochReq{}, epochResp{}}
}
