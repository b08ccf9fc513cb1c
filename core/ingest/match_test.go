package ingest

import (
	"regexp"
	"slices"
	"testing"
)

// windowedAgrees checks the windowed global match against Go's own
// FindAllSubmatchIndex over the whole text.
func windowedAgrees(t *testing.T, expr string, text []byte) {
	t.Helper()
	re, err := compileShiViz(FormatShiViz, "parser", expr)
	if err != nil {
		return
	}
	g := newGlobalMatcher(re)
	var got [][]int
	_ = g.each(text, func(loc []int) error {
		got = append(got, slices.Clone(loc))
		return nil
	})
	want := re.FindAllSubmatchIndex(text, -1)
	// Go's FindAll steps over an empty match; the importer refuses it, and
	// each stops there.
	for k, m := range want {
		if m[0] == m[1] {
			want = want[:k+1]
			break
		}
	}
	if len(got) != len(want) {
		t.Fatalf("%q on %q: %d matches, Go finds %d", expr, text, len(got), len(want))
	}
	for k := range got {
		if !slices.Equal(got[k], want[k]) {
			t.Fatalf("%q on %q: match %d at %v, Go's at %v", expr, text, k, got[k], want[k])
		}
	}
}

var windowExprs = []string{
	DefaultShiVizParser,
	`^(?<event>.*)\n(?<host>\S+) (?<clock>\{.*\})$`,
	`(?<host>\S*) (?<clock>{.*})\n(?<event>.*)`,
	`\b(?<host>\w+) (?<clock>{.*})\n(?<event>.*)\n(?<more>.*)`,
	`(?<event>[^\n]*)\n?(?<host>h) (?<clock>{})`,
}

func TestWindowedMatchesAreGos(t *testing.T) {
	texts := []string{
		"ev\nh {\"h\":1}\nh {x} looks like a clock\nh {\"h\":2}\n",
		"garbage\n\n\nmore garbage\nev\nh {}   \nev2\nh {}",
		"ab h {}\nq\nh {}\nh {}\nh {}\n",
		"",
		"\n\n\n",
	}
	for _, e := range windowExprs {
		for _, s := range texts {
			windowedAgrees(t, e, []byte(s))
		}
	}
	if newGlobalMatcher(regexp.MustCompile(`(?s)a.*b`)).lines >= 0 {
		t.Fatal("a match of (?s).* has no bound on its line feeds")
	}
	if newGlobalMatcher(regexp.MustCompile(`a\n[^x]\nb`)).lines != 3 {
		t.Fatal("a\\n[^x]\\nb holds at most 3 line feeds ([^x] takes one)")
	}
}

func FuzzWindowedMatches(f *testing.F) {
	f.Add(0, []byte("ev\nh {\"h\":1}\nh {x} y\nh {\"h\":2}\n"))
	f.Add(1, []byte("x\n\nh {}\ny\nh {}"))
	f.Add(3, []byte("a b\nc\nd {}\ne\nf\n"))
	f.Fuzz(func(t *testing.T, which int, text []byte) {
		if which < 0 {
			which = -which
		}
		windowedAgrees(t, windowExprs[which%len(windowExprs)], text)
	})
}
