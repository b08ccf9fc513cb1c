package export

import (
	"encoding/json"
	"io"
	"strconv"
	"strings"

	"github.com/racetrack-sim/racetrack/core/sim"
	"github.com/racetrack-sim/racetrack/core/timeline"
)

// ShiVizRegex is the log parsing expression the export carries: an event
// line, then the host and its vector clock as a JSON object, each pair
// anchored to whole lines. ShiViz applies it globally with the multiline
// flag; ShiViz's default expression, which is not anchored, also matches
// an event line that itself reads like "host {...}" (a label holding a
// brace), and so finds more events than the log has. Anchored, a match
// starts at the first event line and every match consumes exactly one
// event line and its clock line, whatever the event text says.
const ShiVizRegex = `^(?<event>.*)\n(?<host>\S+) (?<clock>\{.*\})$`

// ShiViz writes the run as a ShiViz log file: the parsing expression on
// the first line, an empty execution delimiter on the second, then two
// lines per step — what happened, and "host {clock}" with the step's
// vector clock keyed by host (zero entries left out). A host's own entry
// is 1 at its first step and grows by one per step, as ShiViz requires.
func ShiViz(tl *timeline.Timeline) ([]byte, error) { return collect(WriteShiViz, tl) }

// WriteShiViz writes the ShiViz log one event at a time.
func WriteShiViz(w io.Writer, tl *timeline.Timeline) error {
	tr := tl.Trace()
	hosts := hostNames(tl)
	var b strings.Builder
	b.WriteString(ShiVizRegex + "\n\n")
	for i := 0; i < tr.Len(); i++ {
		s := tr.Step(i)
		b.WriteString(shivizLine(shivizEvent(tl, i, s)))
		b.WriteByte('\n')
		b.WriteString(hosts[s.Proc])
		b.WriteString(" {")
		first := true
		for p, c := range tr.Clock(i) {
			if c == 0 {
				continue
			}
			if !first {
				b.WriteString(", ")
			}
			first = false
			key, _ := json.Marshal(hosts[p])
			b.Write(key)
			b.WriteString(": " + strconv.FormatUint(uint64(c), 10))
		}
		b.WriteString("}\n")
		if b.Len() >= flushBytes || i == tr.Len()-1 {
			if _, err := io.WriteString(w, b.String()); err != nil {
				return err
			}
			b.Reset()
		}
	}
	if b.Len() > 0 {
		_, err := io.WriteString(w, b.String())
		return err
	}
	return nil
}

// flushBytes is how much text a writer gathers before handing it on.
const flushBytes = 32 << 10

// shivizLine keeps an event on one line as JavaScript sees lines: its "."
// and multiline anchors also stop at carriage returns and the Unicode
// line and paragraph separators.
func shivizLine(s string) string {
	return strings.Map(func(r rune) rune {
		switch r {
		case '\n', '\r', '\u2028', '\u2029':
			return ' '
		}
		return r
	}, s)
}

func shivizEvent(tl *timeline.Timeline, i int, s *sim.Step) string {
	tr := tl.Trace()
	e := tr.Label(s.Label) + " [" + s.Kind.String() + "] step " + strconv.Itoa(i) + " at " + s.Time.String()
	if s.Kind == sim.StepReceive && s.Msg > 0 {
		e += " (receives " + tr.Label(tr.Message(s.Msg).Label) + ")"
	}
	for _, v := range tl.Violations() {
		if v.Step == i {
			e += " VIOLATES " + v.Property + ": " + v.Message
		}
	}
	return e
}
