package sim

// SendOrLose sends payload like Send, or loses it: when mayLose is true
// the chooser decides, in a choice of two options labelled "lose a→b?"
// (0 delivers, 1 loses). A lost message is in the trace as dropped
// (DropLost) and never arrives. It is the loss that breadth-first search
// can enumerate: Link.Drop draws from 2^16 options per message (Chance),
// more than bfs and dfs enumerate (check.MaxValueOptions), so a model
// that wants its losses explored exhaustively leaves Link.Drop at 0 and
// loses messages here, with mayLose bounding how many (a budget the model
// keeps in its state).
func (w *World) SendOrLose(from, to ProcID, payload any, mayLose bool) (id MsgID, lost bool) {
	if !mayLose || w.Choose(2, "lose "+w.procs[from].Name+"→"+w.procs[to].Name+"?") == 0 {
		return w.Send(from, to, payload), false
	}
	w.msgSeq++
	id = w.msgSeq
	if w.trace != nil {
		w.trace.messages.add(Message{ID: id, From: from, To: to, SentStep: int32(w.steps), SentAt: w.now,
			RecvStep: -1, Label: w.trace.intern(payloadLabel(payload))})
	}
	w.dropped(id, DropLost)
	return id, true
}
