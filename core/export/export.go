// Package export writes a recorded timeline in formats other tools read:
// a ShiViz log (vector clocks), Chrome trace event JSON for Perfetto and
// chrome://tracing, and plain JSON of the whole run. Each writer writes
// to an io.Writer the caller gives, a piece at a time, so an export of
// any length takes bounded memory (core performs no I/O of its own: the
// caller decides where the bytes go); JSON, ShiViz and Chrome collect
// the same bytes into memory.
package export

import (
	"strconv"
	"strings"
	"unicode"

	"github.com/racetrack-sim/racetrack/core/timeline"
)

// hostNames gives every process a name without white space, unique in
// the run ("name", or "name@node" when names repeat).
func hostNames(tl *timeline.Timeline) []string {
	procs := tl.Procs()
	nodes := tl.Nodes()
	count := map[string]int{}
	for _, p := range procs {
		count[p.Name]++
	}
	out := make([]string, len(procs))
	used := map[string]bool{}
	for i, p := range procs {
		name := p.Name
		if count[name] > 1 {
			name += "@" + nodes[p.Node].Name
		}
		name = noSpace(name)
		base := name
		for k := 2; used[name]; k++ {
			name = base + "#" + strconv.Itoa(k)
		}
		used[name] = true
		out[i] = name
	}
	return out
}

func noSpace(s string) string {
	if s == "" {
		return "_"
	}
	return strings.Map(func(r rune) rune {
		if unicode.IsSpace(r) {
			return '_'
		}
		return r
	}, s)
}

func oneLine(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '\n' || r == '\r' {
			return ' '
		}
		return r
	}, s)
}
