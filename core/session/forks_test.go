package session_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/racetrack-sim/racetrack/core/scenario"
	"github.com/racetrack-sim/racetrack/core/session"
	"github.com/racetrack-sim/racetrack/core/timeline"
)

// forkMap is a store of fork records for ForkTree.
type forkMap map[string]session.ForkInfo

func (m forkMap) know(id string) (session.ForkInfo, bool) { i, ok := m[id]; return i, ok }

func (m forkMap) fork(parent, child string, step int) {
	c := m[child]
	c.Spec = scenario.RunSpec{Scenario: "x", Seed: uint64(len(m))}
	c.Parent = &timeline.Branch{Edge: timeline.Edge{Parent: parent, Step: step, Text: child}}
	m[child] = c
	p := m[parent]
	p.Children = append(p.Children, child)
	m[parent] = p
}

func shape(n session.ForkNode) string {
	s := n.Run
	if len(n.Children) > 0 {
		s += "("
		for i, c := range n.Children {
			if i > 0 {
				s += " "
			}
			s += shape(c)
		}
		s += ")"
	}
	return s
}

func TestForkTree(t *testing.T) {
	m := forkMap{"a": {Violations: 2}}
	m.fork("a", "b", 3)
	m.fork("a", "c", 4)
	m.fork("b", "d", 7)
	for _, from := range []string{"a", "b", "c", "d"} {
		tree, err := session.ForkTree(from, m.know)
		if err != nil {
			t.Fatal(err)
		}
		if got := shape(tree); got != "a(b(d) c)" {
			t.Errorf("the tree from %s is %s, want a(b(d) c)", from, got)
		}
		if tree.Violations != 2 || tree.Fork != nil {
			t.Errorf("root %+v", tree)
		}
		if e := tree.Children[0].Children[0].Fork; e == nil || e.Parent != "b" || e.Step != 7 || e.Text != "d" {
			t.Errorf("edge to d: %+v", e)
		}
	}

	// A parent the store no longer knows: the tree starts below it.
	delete(m, "a")
	if tree, err := session.ForkTree("d", m.know); err != nil || shape(tree) != "b(d)" {
		t.Errorf("without a: %s, %v", shape(tree), err)
	}

	// A cycle (a record that claims its own descendant as parent) ends
	// the walk; every run shows once.
	cyc := forkMap{"p": {}}
	cyc.fork("p", "q", 1)
	cyc.fork("q", "p", 2) // p's record now names q as parent
	tree, err := session.ForkTree("q", cyc.know)
	if err != nil {
		t.Fatal(err)
	}
	if got := shape(tree); got != "p(q)" && got != "q(p)" {
		t.Errorf("cyclic records gave %s", got)
	}

	// Unknown run.
	_, err = session.ForkTree("zz", m.know)
	var se *session.Error
	if !errors.As(err, &se) || se.Code != session.CodeNotFound || se.Field != "run" {
		t.Errorf("unknown run: %v", err)
	}

	// Past MaxForkNodes: refused, naming the run.
	big := forkMap{"r": {}}
	for i := range session.MaxForkNodes {
		big.fork("r", fmt.Sprintf("c%d", i), i)
	}
	_, err = session.ForkTree("c0", big.know)
	if !errors.As(err, &se) || se.Code != session.CodeInvalid || se.Field != "run" {
		t.Errorf("a tree of %d runs: %v", session.MaxForkNodes+1, err)
	}
	delete(big, "c0")
	big["r"] = session.ForkInfo{Children: big["r"].Children[1:]}
	if tree, err := session.ForkTree("c1", big.know); err != nil || len(tree.Children) != session.MaxForkNodes-1 {
		t.Errorf("a tree of %d runs: %d children, %v", session.MaxForkNodes, len(tree.Children), err)
	}
}
