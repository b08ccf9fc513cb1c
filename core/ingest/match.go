package ingest

import (
	"bytes"
	"math"
	"regexp"
	"regexp/syntax"
)

// globalMatcher finds every match of an expression in a text, as
// JavaScript's global exec loop does (each search starts where the last
// match ended). Go's regexp searches a large text for submatches with
// its slow general engine; when no match of the expression can hold more
// than a known number of line feeds, each search runs instead on a
// window of a few lines, where Go uses its fast backtracker, with the
// same result: the window holds every line a match starting at or before
// the one found could reach, and one character of context before the
// search's start keeps ^ and \b exact there.
type globalMatcher struct {
	re *regexp.Regexp
	// head finds the leftmost match in a window that starts at the text's
	// start; tail in one whose first byte is context before the search's
	// start. Both capture the whole match as group 1, then re's groups.
	head, tail *regexp.Regexp
	lines      int // the most line feeds a match holds, or -1: unbounded
}

func newGlobalMatcher(re *regexp.Regexp) *globalMatcher {
	g := &globalMatcher{re: re, lines: -1}
	prog, err := syntax.Parse(re.String(), syntax.Perl)
	if err != nil {
		return g
	}
	n := maxNewlines(prog)
	if n < 0 || n > 64 {
		return g
	}
	g.lines = n
	g.head = regexp.MustCompile(`\A(?s:.)*?(` + re.String() + `)`)
	g.tail = regexp.MustCompile(`\A(?s:.)(?s:.)*?(` + re.String() + `)`)
	return g
}

// maxNewlines is the most line feeds a string matching re can hold, or
// -1 when there is no bound.
func maxNewlines(re *syntax.Regexp) int {
	const inf = math.MaxInt32
	var walk func(re *syntax.Regexp) int
	walk = func(re *syntax.Regexp) int {
		switch re.Op {
		case syntax.OpLiteral:
			return bytes.Count([]byte(string(re.Rune)), []byte("\n"))
		case syntax.OpCharClass:
			for k := 0; k+1 < len(re.Rune); k += 2 {
				if re.Rune[k] <= '\n' && '\n' <= re.Rune[k+1] {
					return 1
				}
			}
			return 0
		case syntax.OpAnyChar:
			return 1
		case syntax.OpCapture, syntax.OpQuest:
			return walk(re.Sub[0])
		case syntax.OpStar, syntax.OpPlus:
			if walk(re.Sub[0]) > 0 {
				return inf
			}
			return 0
		case syntax.OpRepeat:
			n := walk(re.Sub[0])
			if n == 0 {
				return 0
			}
			if re.Max < 0 || n == inf {
				return inf
			}
			return min(inf, n*re.Max)
		case syntax.OpConcat:
			sum := 0
			for _, s := range re.Sub {
				sum = min(inf, sum+walk(s))
			}
			return sum
		case syntax.OpAlternate:
			most := 0
			for _, s := range re.Sub {
				most = max(most, walk(s))
			}
			return most
		}
		return 0
	}
	if n := walk(re); n < inf {
		return n
	}
	return -1
}

// each calls f with every match's submatch indexes (as re numbers its
// groups, in text's coordinates), stopping at f's first error.
func (g *globalMatcher) each(text []byte, f func(loc []int) error) error {
	if g.lines < 0 {
		for _, loc := range g.re.FindAllSubmatchIndex(text, -1) {
			if err := f(loc); err != nil {
				return err
			}
		}
		return nil
	}
	loc := make([]int, 2*(g.re.NumSubexp()+1))
	for p := 0; p <= len(text); {
		end := afterNewlines(text, p, g.lines+2)
		for {
			from, re := p-1, g.tail
			if p == 0 {
				from, re = 0, g.head
			}
			m := re.FindSubmatchIndex(text[from:end])
			if m == nil {
				if end == len(text) {
					return nil
				}
				p = afterNewlines(text, p, 1)
				break
			}
			s := from + m[2]
			if need := afterNewlines(text, s, g.lines+1); need > end {
				end = need // a match starting at or before s may reach further
				continue
			}
			for k := range loc {
				if v := m[k+2]; v >= 0 {
					loc[k] = from + v
				} else {
					loc[k] = -1
				}
			}
			if err := f(loc); err != nil {
				return err
			}
			if loc[1] == loc[0] {
				return nil // f refuses empty matches; never loop on one
			}
			p = loc[1]
			break
		}
	}
	return nil
}

// afterNewlines is the position just after the n-th line feed at or
// after p, or len(text).
func afterNewlines(text []byte, p, n int) int {
	for ; n > 0; n-- {
		k := bytes.IndexByte(text[p:], '\n')
		if k < 0 {
			return len(text)
		}
		p += k + 1
	}
	return p
}
