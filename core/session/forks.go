package session

import (
	"github.com/racetrack-sim/racetrack/core/scenario"
	"github.com/racetrack-sim/racetrack/core/timeline"
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
	b.Spec = ns.Spec()
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
	tl, err := s.Timeline(run)
	if err != nil {
		return ForkNode{}, err
	}
	if tl.IsImported() {
		return LoneTree(tl)
	}
	return ForkTree(run, func(id string) (ForkInfo, bool) {
		info, ok := s.known[id]
		if !ok {
			return ForkInfo{}, false
		}
		return ForkInfo{Spec: info.spec.Spec(), Parent: info.parent, Children: info.children, Violations: info.violations}, true
	})
}

// LoneTree is the fork tree of a logged execution: itself alone, since a
// log records no choices to fork at.
func LoneTree(tl *timeline.Timeline) (ForkNode, error) {
	return ForkTree(tl.ID(), func(id string) (ForkInfo, bool) { return ForkInfo{Violations: len(tl.Violations())}, id == tl.ID() })
}

// ForkInfo is what a fork tree shows of one run.
type ForkInfo struct {
	Spec scenario.RunSpec
	// Parent is the edge from the run it was forked from (nil at a root).
	Parent *timeline.Branch
	// Children are the runs forked from it, in the order they were made.
	Children   []string
	Violations int
}

// MaxForkNodes bounds the runs one fork tree holds: a tree past it is
// refused (the session forgets runs past maxKnown, so its own trees stay
// below it; a store that keeps every fork can grow one further).
const MaxForkNodes = maxKnown

// ForkTree is the fork tree that holds run, from its root, as know
// describes each run (the session's memory, or a server's store). A run
// know does not know is left out: the walk up stops below it, and a
// child it does not know is not shown. An edge that would close a cycle
// ends the walk up as well, so the answer is a tree.
func ForkTree(run string, know func(id string) (ForkInfo, bool)) (ForkNode, error) {
	if _, ok := know(run); !ok {
		return ForkNode{}, errorf(CodeNotFound, "run", "run %s is not known", run)
	}
	root := run
	seen := map[string]bool{run: true}
	for {
		info, _ := know(root)
		if info.Parent == nil || seen[info.Parent.Parent] {
			break
		}
		if _, ok := know(info.Parent.Parent); !ok {
			break
		}
		if len(seen) >= MaxForkNodes {
			return ForkNode{}, tooBig(run)
		}
		root = info.Parent.Parent
		seen[root] = true
	}
	w := treeWalk{know: know, seen: map[string]bool{}}
	n, ok := w.node(root)
	if !ok {
		return ForkNode{}, tooBig(run)
	}
	return n, nil
}

func tooBig(run string) error {
	return errorf(CodeInvalid, "run", "the fork tree holding run %s has more than %d runs", run, MaxForkNodes)
}

// treeWalk builds a tree, each run once, at most MaxForkNodes runs.
type treeWalk struct {
	know func(string) (ForkInfo, bool)
	seen map[string]bool
}

func (w *treeWalk) node(id string) (ForkNode, bool) {
	if len(w.seen) >= MaxForkNodes {
		return ForkNode{}, false
	}
	w.seen[id] = true
	info, _ := w.know(id)
	n := ForkNode{Run: id, Spec: info.Spec, Violations: info.Violations, Children: []ForkNode{}}
	if p := info.Parent; p != nil {
		n.Fork = &ForkEdge{Parent: p.Parent, Step: p.Step, Choice: p.Choice, Option: p.Option, Text: p.Text}
	}
	for _, c := range info.Children {
		if w.seen[c] {
			continue
		}
		ci, ok := w.know(c)
		if !ok || ci.Parent == nil || ci.Parent.Parent != id {
			continue
		}
		cn, ok := w.node(c)
		if !ok {
			return ForkNode{}, false
		}
		n.Children = append(n.Children, cn)
	}
	return n, true
}
