package sim

// About returns the property with a hook naming the nodes its outstanding
// obligation concerns (an Eventually property's leader and follower, say).
// The debugger's slice of a violation then holds those nodes' steps from
// the obligation's start to the violation: the steps that could have met
// it. A property without the hook is sliced by the nodes of the steps
// that started and violated it.
func (p Prop[M]) About(nodes func(w *World, m M) []NodeID) Prop[M] {
	p.about = nodes
	return p
}

// Concerns names the nodes the property's outstanding obligation in w is
// about (nil when the property has no About hook or nothing is pending).
func (p *Property) Concerns(w *World) []NodeID {
	if p.about == nil {
		return nil
	}
	return p.about(w)
}
