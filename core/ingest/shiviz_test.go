package ingest_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/racetrack-sim/racetrack/core/ingest"
	"github.com/racetrack-sim/racetrack/core/sim"
)

// The logs below are written for these tests in the layouts ShiViz's
// published examples use, with the same expressions: events grouped by
// host (not in causal order), several executions split by a delimiter
// with a trace group, a host line before its event (GoVector), extra
// named groups, zero clock entries and trailing blanks.

const groupedByHost = `client GET /cart uid=7
client {"client":1}
client INFO cart received: [] src=server
client {"client":2, "server": 2}

server INFO request for cart uid=7
server {"server":1, "client": 1}
server INFO sending cart dest=client
server {"server":2, "client": 1}
server INFO audit {flushed}
server {"server":3, "client": 1, "audit": 0}

db INFO compaction started
db {"db":1}   
`

func mustShiViz(t *testing.T, log string, opt ingest.Options) *ingest.Log {
	t.Helper()
	l, err := ingest.ShiViz([]byte(log), opt)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func labels(x *ingest.Execution) []string {
	var out []string
	for i := range x.Steps {
		out = append(out, x.Procs[x.Steps[i].Proc].Name+": "+x.StepLabel(i))
	}
	return out
}

func TestShiVizGroupedByHost(t *testing.T) {
	l := mustShiViz(t, groupedByHost, ingest.Options{})
	if len(l.Executions) != 1 {
		t.Fatalf("%d executions, want 1", len(l.Executions))
	}
	x := l.Executions[0]
	got := strings.Join(labels(x), "\n")
	want := strings.Join([]string{
		"client: client GET /cart uid=7",
		"server: server INFO request for cart uid=7",
		"server: server INFO sending cart dest=client",
		"client: client INFO cart received: [] src=server",
		"server: server INFO audit {flushed}",
		"db: db INFO compaction started",
	}, "\n")
	if got != want {
		t.Fatalf("steps in causal order:\n%s\nwant:\n%s", got, want)
	}
	if x.Steps[1].Kind != sim.StepReceive || x.Steps[1].Parent != 0 || x.Steps[3].Kind != sim.StepReceive || x.Steps[3].Parent != 2 {
		t.Fatalf("receives: %+v %+v", x.Steps[1], x.Steps[3])
	}
	if len(x.Messages) != 2 || x.Messages[1].SentStep != 2 || x.Messages[1].RecvStep != 3 {
		t.Fatalf("messages %+v", x.Messages)
	}
	if x.Lines[3] != 3 || x.Lines[5] != 13 {
		t.Fatalf("lines %v", x.Lines)
	}
	if !x.HappensBefore(0, 3) || x.HappensBefore(4, 3) || x.HappensBefore(5, 0) || x.HappensBefore(0, 5) {
		t.Fatal("happens-before does not follow the clocks")
	}
	if !x.Untimed {
		t.Fatal("a ShiViz log has no times")
	}
}

const twoExecutions = `=== first run ===
a send
a {"a":1}
b recv
b {"a":1, "b":1}

=== second run ===
b alone
b {"b":1}
`

func TestShiVizExecutionsSplitByDelimiter(t *testing.T) {
	l := mustShiViz(t, twoExecutions, ingest.Options{Delimiter: `^=== (?<trace>.*) ===$`})
	if len(l.Executions) != 2 || l.Executions[0].Label != "first run" || l.Executions[1].Label != "second run" {
		t.Fatalf("executions %+v", l.Executions)
	}
	if n0, n1 := l.Executions[0].Len(), l.Executions[1].Len(); n0 != 2 || n1 != 1 {
		t.Fatalf("%d and %d events, want 2 and 1", n0, n1)
	}
	if l.Executions[1].Lines[0] != 8 {
		t.Fatalf("the second execution's event is on line %d, want 8", l.Executions[1].Lines[0])
	}
	// Without a trace group, the executions that hold text are numbered.
	l = mustShiViz(t, twoExecutions, ingest.Options{Delimiter: `^=== .* ===$`})
	if len(l.Executions) != 2 || l.Executions[0].Label != "1" || l.Executions[1].Label != "2" {
		t.Fatalf("labels %q %q, want 1 and 2", l.Executions[0].Label, l.Executions[1].Label)
	}
}

// A file in ShiViz's upload layout: expression, delimiter line, log. The
// expression puts the host line first (GoVector's order) and names a
// timestamp group, which becomes a field.
const hostFirstFile = `(?<timestamp>\d+) (?<host>\S*) (?<clock>{.*})\n(?<event>.*)

1700000000001 p1 {"p1":1}
Initialization Complete
1700000000005 p2 {"p2":1, "p1":1}
Received ping
`

func TestShiVizFileWithItsOwnExpressionAndFields(t *testing.T) {
	x := mustShiViz(t, hostFirstFile, ingest.Options{}).Executions[0]
	if x.Len() != 2 || x.StepLabel(1) != "Received ping" || x.Procs[x.Steps[1].Proc].Name != "p2" {
		t.Fatalf("steps %v", labels(x))
	}
	if f := x.Fields[1]; len(f) != 1 || f[0] != (ingest.Field{Name: "timestamp", Value: "1700000000005"}) {
		t.Fatalf("fields %v", f)
	}
	if x.Lines[1] != 5 {
		t.Fatalf("line %d, want 5 (counted from the file's start)", x.Lines[1])
	}
}

func TestShiVizNamedGroupsEitherSyntax(t *testing.T) {
	js := mustShiViz(t, groupedByHost, ingest.Options{Parser: `(?<event>.*)\n(?<host>\S*) (?<clock>{.*})`}).Executions[0]
	re2 := mustShiViz(t, groupedByHost, ingest.Options{Parser: `(?P<event>.*)\n(?P<host>\S*) (?P<clock>{.*})`}).Executions[0]
	if strings.Join(labels(js), "|") != strings.Join(labels(re2), "|") {
		t.Fatal("the two syntaxes read different events")
	}
}

// TLC writes a ShiViz trace's clock as a TLA+ string, its quotes
// escaped; ShiViz reads such a clock again with them unescaped, and so
// does the importer. A clock still not JSON after that is refused with
// the first reading's reason.
func TestShiVizClockWithEscapedQuotes(t *testing.T) {
	const tlc = "State 2: <SendMsg>\n/\\ Host = n1\n/\\ Clock = \"{\\\"n1\\\":1}\"\n" +
		"State 3: <RecvMsg>\n/\\ Host = n2\n/\\ Clock = \"{\\\"n1\\\":1,\\\"n2\\\":1}\"\n"
	parser := `^State [0-9]+: <(?<event>\w*)>\n/\\ Host = (?<host>.*)\n/\\ Clock = "(?<clock>.*)"`
	x := mustShiViz(t, tlc, ingest.Options{Parser: parser}).Executions[0]
	if got := strings.Join(labels(x), "|"); got != "n1: SendMsg|n2: RecvMsg" {
		t.Fatalf("steps %q", got)
	}
	if x.Steps[1].Kind != sim.StepReceive {
		t.Fatalf("the second step is %v, want a receive (its clock names n1's send)", x.Steps[1].Kind)
	}
	_, err := ingest.ShiViz([]byte("a x\na {\\\"a\\\":1,}\n"), ingest.Options{})
	var e *ingest.Error
	if !errors.As(err, &e) || e.Line != 1 || e.Field != "clock" || !strings.Contains(e.Msg, "host name") {
		t.Fatalf("got %v, want line 1, field clock, the first reading's reason", err)
	}
}

func TestShiVizRefuses(t *testing.T) {
	ok := "a x\na {\"a\":1}\n"
	cases := []struct {
		name, log, parser, delim string
		line                     int
		field, says              string
	}{
		{"invalid parser", ok, `(?<event>.*\n`, "", 0, "parser", "invalid regular expression"},
		{"missing group", ok, `(?<event>.*)\n(?<host>\S*) {.*}`, "", 0, "parser", "no named group clock"},
		{"lookbehind", ok, `(?<=x)(?<event>.*)\n(?<host>\S*) (?<clock>{.*})`, "", 0, "parser", "lookaround"},
		{"duplicate group", ok, `(?<event>.*)\n(?<host>\S*) (?<clock>{.*}) (?<host>x)`, "", 0, "parser", "two capture groups"},
		{"empty match", ok, `(?<event>x?)(?<host>y?)(?<clock>z?)`, "", 1, "parser", "empty string"},
		{"no events", "nothing here\n", "", "", 1, "parser", "matches no event"},
		{"huge parser", ok, strings.Repeat("a", ingest.MaxRegexBytes+1), "", 0, "parser", "more than"},
		{"bad delimiter", ok, "", "(", 0, "delimiter", "invalid"},
		{"empty delimiter match", ok, "", "z*", 1, "delimiter", "empty string"},
		{"same execution twice", "=== r ===\n" + ok + "=== r ===\n" + ok, "", `^=== (?<trace>.*) ===$`, 4, "delimiter", "two executions are named \"r\""},
		{"bad json", "a x\na {\"a\":1,}\n", "", "", 1, "clock", "host name"},
		{"not a number", "a x\na {\"a\":\"1\"}\n", "", "", 1, "clock", "not a clock value"},
		{"own host missing", "a x\na {\"b\":1}\n", "", "", 1, "clock", "missing from its own clock"},
		{"starts at 2", "a x\na {\"a\":2}\n", "", "", 1, "clock", "must start at 1"},
		{"skips", "a x\na {\"a\":1}\na y\na {\"a\":3}\n", "", "", 3, "clock", "grow by 1"},
		{"unknown host", "a x\na {\"a\":1, \"z\":1}\n", "", "", 1, "clock", "logs no event"},
		{"beyond host", "a x\na {\"a\":1}\nb y\nb {\"b\":1, \"a\":2}\n", "", "", 3, "clock", "logs 1 events"},
		{"goes backwards", "a x\na {\"a\":1}\nb y\nb {\"b\":1, \"a\":1}\nb z\nb {\"b\":2}\n", "", "", 5, "clock", "goes backwards from 1 to 0"},
		{"not transitive", "a x\na {\"a\":1}\nb y\nb {\"b\":1, \"a\":1}\nc z\nc {\"c\":1, \"b\":1}\n", "", "", 5, "clock", "make it 1"},
		{"cycle", "a x\na {\"a\":1, \"b\":1}\nb y\nb {\"b\":1, \"a\":1}\n", "", "", 1, "clock", "cycle"},
	}
	for _, c := range cases {
		_, err := ingest.ShiViz([]byte(c.log), ingest.Options{Parser: c.parser, Delimiter: c.delim})
		var e *ingest.Error
		if !errors.As(err, &e) {
			t.Errorf("%s: got %v, want an *ingest.Error", c.name, err)
			continue
		}
		if e.Line != c.line || e.Field != c.field || !strings.Contains(e.Msg, c.says) {
			t.Errorf("%s: got line %d field %q %q; want line %d field %q saying %q", c.name, e.Line, e.Field, e.Msg, c.line, c.field, c.says)
		}
	}
}

func TestImportBoundsMemoryFirst(t *testing.T) {
	log := []byte(groupedByHost)
	_, err := ingest.ShiViz(log, ingest.Options{MaxBytes: 100})
	var tl *ingest.TooLargeError
	if !errors.As(err, &tl) || !errors.Is(err, ingest.ErrTooLarge) || tl.NeedBytes != ingest.Need(ingest.FormatShiViz, len(log), 0, 0) || tl.MaxBytes != 100 {
		t.Fatalf("got %v, want the input refused before parsing", err)
	}
	// Room for the input and two events: refused at the third, needing
	// what the whole log's events would take at that density.
	room := ingest.Need(ingest.FormatShiViz, len(log), 2, 0)
	_, err = ingest.ShiViz(log, ingest.Options{MaxBytes: room})
	if !errors.As(err, &tl) || tl.NeedBytes < ingest.Need(ingest.FormatShiViz, len(log), 6, 0) {
		t.Fatalf("got %v, want the events refused with what 6 events need", err)
	}
	// Room for the events, not for the clocks of many hosts.
	var b strings.Builder
	for h := range 200 {
		name := fmt.Sprintf("h%d", h)
		b.WriteString("e\n" + name + " {\"" + name + "\":1}\n")
	}
	big := []byte(b.String())
	_, err = ingest.ShiViz(big, ingest.Options{MaxBytes: ingest.Need(ingest.FormatShiViz, len(big), 200, 0) + 1000})
	if !errors.As(err, &tl) || !strings.Contains(tl.Error(), "200 events over 200 processes") || tl.NeedBytes != ingest.Need(ingest.FormatShiViz, len(big), 200, 200) {
		t.Fatalf("got %v, want the clocks refused", err)
	}
}
