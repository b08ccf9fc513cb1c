package session

import (
	"github.com/racetrack-sim/racetrack/core/scenario"
)

// ForkArgs takes another option at a choice point: Choice indexes the
// decisions made at Step (alternatives' list), Option the option there.
type ForkArgs struct {
	RunArgs
	Step   int `json:"step"`
	Choice int `json:"choice"`
	Option int `json:"option"`
}

// Fork records the run that takes another option at a choice point (the
// what-if), links it under its parent in the session's fork tree, and
// returns its summary.
func (s *Session) Fork(a ForkArgs) (scenario.Summary, error) {
	tl, err := s.Timeline(a.Run)
	if err != nil {
		return scenario.Summary{}, err
	}
	b, err := tl.Branch(a.Step, a.Choice, a.Option)
	if err != nil {
		return scenario.Summary{}, err
	}
	ns, err := s.Normalize(b.Spec)
	if err != nil {
		return scenario.Summary{}, AsError(err, "spec")
	}
	child, err := s.runs.Get(ns)
	if err != nil {
		return scenario.Summary{}, AsError(err, "spec")
	}
	b.Spec = ns
	s.remember(ns, &b, len(child.Violations()))
	return child.Summary(), nil
}

// ForkNode is a run in the fork tree.
type ForkNode struct {
	Run string `json:"run"`
	// Spec opens the run again.
	Spec scenario.RunSpec `json:"spec"`
	// Fork is the edge from the parent (absent at the root).
	Fork       *ForkEdge  `json:"fork,omitempty"`
	Violations int        `json:"violations"`
	Children   []ForkNode `json:"children"`
}

// ForkEdge is how a run was forked from its parent.
type ForkEdge struct {
	Parent string `json:"parent"`
	Step   int    `json:"step"`
	Choice int    `json:"choice"`
	Option int    `json:"option"`
	Text   string `json:"text"`
}

// Forks returns the fork tree that holds a run, from its root.
func (s *Session) Forks(run string) (ForkNode, error) {
	if _, err := s.Timeline(run); err != nil {
		return ForkNode{}, err
	}
	root := run
	for i := 0; i <= len(s.known); i++ {
		p := s.known[root].parent
		if p == nil {
			break
		}
		if _, ok := s.known[p.Parent]; !ok {
			break
		}
		root = p.Parent
	}
	return s.node(root, 0)
}

// maxForkDepth bounds the tree walk (the tree is acyclic by
// construction; this is the bound on the work).
const maxForkDepth = maxKnown

func (s *Session) node(id string, depth int) (ForkNode, error) {
	info := s.known[id]
	n := ForkNode{Run: id, Spec: info.spec, Children: []ForkNode{}}
	if p := info.parent; p != nil {
		n.Fork = &ForkEdge{Parent: p.Parent, Step: p.Step, Choice: p.Choice, Option: p.Option, Text: p.Text}
	}
	n.Violations = info.violations
	if depth >= maxForkDepth {
		return n, nil
	}
	for _, c := range info.children {
		if _, ok := s.known[c]; !ok {
			continue
		}
		cn, err := s.node(c, depth+1)
		if err != nil {
			return ForkNode{}, err
		}
		n.Children = append(n.Children, cn)
	}
	return n, nil
}
