package ingest

import (
	"bytes"
	"fmt"
	"regexp"
	"slices"
	"strconv"

	"github.com/racetrack-sim/racetrack/core/sim"
)

// DefaultShiVizParser is the parser ShiViz offers by default: an event
// line, then the host and its vector clock as a JSON object.
const DefaultShiVizParser = `(?<event>.*)\n(?<host>\S*) (?<clock>{.*})`

// splitShiVizFile reads the file layout ShiViz loads and other tools
// write: the parser expression on the first line, the delimiter (often
// empty) on the second, then the log. ok is false when the first line
// is no parser (it has no host group).
func splitShiVizFile(data []byte) (parser, delimiter string, log []byte, ok bool) {
	first, rest, _ := bytes.Cut(data, []byte("\n"))
	second, rest, _ := bytes.Cut(rest, []byte("\n"))
	first, second = bytes.TrimRight(first, "\r"), bytes.TrimRight(second, "\r")
	if !bytes.Contains(first, []byte("(?<host>")) && !bytes.Contains(first, []byte("(?P<host>")) {
		return "", "", data, false
	}
	return string(first), string(bytes.TrimSpace(second)), rest, true
}

// shivizEvent is one match of the parser.
type shivizEvent struct {
	host   int32
	own    uint32
	line   int32
	text   string
	fields []Field
	clock  []clockEntry // sorted by host, zero entries left out
}

type clockEntry struct {
	host int32
	v    uint32
}

// ShiViz reads a ShiViz log the way ShiViz does. Without Options.Parser,
// a file in the layout ShiViz loads (the parser on the first line, the
// delimiter on the second, then the log) brings its own expressions, and
// any other text is read with DefaultShiVizParser. The text is trimmed,
// split into executions where the delimiter matches (its "trace" group,
// when it has one, labels the execution that follows it; otherwise the
// executions that hold text are numbered from 1), and the parser is applied to
// each execution globally and multiline; each match is one event, with
// the host, the JSON vector clock, the event text, and every other named
// group as a field. Each host's events are ordered by its own clock
// entry, which must run 1, 2, 3, ...; an event follows, on another host
// h, the event whose own entry is the largest h entry its clock has
// gained since the host's previous event. The vector clocks the log
// gives must be exactly the ones these edges imply. Carriage returns
// before line feeds are dropped first (ShiViz would not match them).
func ShiViz(data []byte, opt Options) (*Log, error) {
	if err := checkSize(FormatShiViz, len(data), opt); err != nil {
		return nil, err
	}
	expr, delimExpr := opt.Parser, opt.Delimiter
	var lineBase int32
	if expr == "" {
		expr = DefaultShiVizParser
		if p, d, rest, ok := splitShiVizFile(data); ok {
			expr, delimExpr, data, lineBase = p, d, rest, 2
		}
	}
	parser, err := compileShiViz(FormatShiViz, "parser", expr)
	if err != nil {
		return nil, err
	}
	if err := requireGroups(FormatShiViz, "parser", parser, "host", "clock", "event"); err != nil {
		return nil, err
	}
	var delim *regexp.Regexp
	if delimExpr != "" {
		if delim, err = compileShiViz(FormatShiViz, "delimiter", delimExpr); err != nil {
			return nil, err
		}
	}
	text := data
	if bytes.Contains(text, []byte("\r\n")) {
		text = bytes.ReplaceAll(text, []byte("\r\n"), []byte("\n"))
	}
	// ShiViz trims the text; line numbers count from the untrimmed start.
	start := len(text) - len(bytes.TrimLeft(text, " \t\n\r\v\f"))
	lineBase += int32(bytes.Count(text[:start], []byte("\n")))
	text = bytes.TrimSpace(text)

	type chunk struct {
		label string
		off   int
	}
	chunks := []chunk{{off: 0}}
	var ends []int
	numbered := false // no trace group: executions are numbered from 1
	if delim != nil {
		trace := delim.SubexpIndex("trace")
		numbered = trace < 0
		err := newGlobalMatcher(delim).each(text, func(m []int) error {
			if m[0] == m[1] {
				return &Error{Format: FormatShiViz, Line: int(lineBase) + 1 + bytes.Count(text[:m[0]], []byte("\n")),
					Field: "delimiter", Msg: "the delimiter matches the empty string"}
			}
			ends = append(ends, m[0])
			var label string
			if trace >= 0 && m[2*trace] >= 0 {
				label = string(text[m[2*trace]:m[2*trace+1]])
			}
			chunks = append(chunks, chunk{label: label, off: m[1]})
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	ends = append(ends, len(text))
	log := &Log{Format: FormatShiViz}
	seen := 0 // events in the executions read so far
	for k, c := range chunks {
		body := text[c.off:ends[k]]
		if len(bytes.TrimSpace(body)) == 0 {
			continue
		}
		line := lineBase + int32(bytes.Count(text[:c.off], []byte("\n")))
		if numbered {
			c.label = strconv.Itoa(len(log.Executions) + 1)
		}
		for _, x := range log.Executions {
			if x.Label == c.label {
				return nil, &Error{Format: FormatShiViz, Line: int(line) + 1, Field: "delimiter",
					Msg: fmt.Sprintf("two executions are named %q: ShiViz needs execution names to be unique", c.label)}
			}
		}
		x, err := shivizExecution(body, start+c.off, line, c.label, parser, len(data), &seen, opt)
		if err != nil {
			return nil, err
		}
		log.Executions = append(log.Executions, x)
	}
	if len(log.Executions) == 0 {
		return nil, &Error{Format: FormatShiViz, Field: "log", Msg: "the log holds no events"}
	}
	return log, nil
}

// shivizExecution parses one execution's text, which starts at byte
// offset of the input after lineBase lines; seen counts the events read.
func shivizExecution(body []byte, offset int, lineBase int32, label string, parser *regexp.Regexp, inputBytes int, seen *int, opt Options) (*Execution, error) {
	hi, ci, ei := parser.SubexpIndex("host"), parser.SubexpIndex("clock"), parser.SubexpIndex("event")
	fail := func(line int32, field, msg string, args ...any) error {
		return &Error{Format: FormatShiViz, Line: int(line), Field: field, Msg: fmt.Sprintf(msg, args...)}
	}
	// Every name met, as an event's host or in a clock, is numbered once
	// (a clock may name a host before its first event); hostOf maps a
	// name to its host, -1 for a name no event is logged on.
	nameIDs := map[string]int32{}
	var names, hosts []string
	var hostOf []int32
	intern := func(b []byte) int32 {
		if id, ok := nameIDs[string(b)]; ok {
			return id
		}
		id := int32(len(names))
		nameIDs[string(b)] = id
		names = append(names, string(b))
		hostOf = append(hostOf, -1)
		return id
	}
	var c clockReader
	var events []shivizEvent
	line, counted := lineBase+1, 0
	err := newGlobalMatcher(parser).each(body, func(m []int) error {
		line += int32(bytes.Count(body[counted:m[0]], []byte("\n")))
		counted = m[0]
		if m[0] == m[1] {
			return fail(line, "parser", "the parser matches the empty string")
		}
		*seen++
		if err := checkEvents(FormatShiViz, inputBytes, *seen, offset+m[1], opt); err != nil {
			return err
		}
		group := func(g int) []byte {
			if m[2*g] < 0 {
				return nil
			}
			return body[m[2*g]:m[2*g+1]]
		}
		name := intern(group(hi))
		if hostOf[name] < 0 {
			hostOf[name] = int32(len(hosts))
			hosts = append(hosts, names[name])
		}
		entries, err := c.read(group(ci), intern)
		if err != nil && bytes.Contains(group(ci), escapedQuote) {
			// As ShiViz does, a clock that is not JSON is read again with
			// its escaped quotes unescaped: TLC's ShiViz traces quote the
			// clock as a TLA+ string ("{\"n1\":0}").
			var again error
			if entries, again = c.read(bytes.ReplaceAll(group(ci), escapedQuote, []byte{'"'}), intern); again == nil {
				err = nil
			}
		}
		if err != nil {
			return fail(line, "clock", "%v", err)
		}
		ev := shivizEvent{host: hostOf[name], line: line, text: string(group(ei))}
		own := slices.IndexFunc(entries, func(e clockEntry) bool { return e.host == name })
		if own < 0 {
			return fail(line, "clock", "the local host %q is missing from its own clock", names[name])
		}
		ev.own = entries[own].v
		// ShiViz drops zero entries, of any host; the rest are kept by
		// name until every host is known.
		nonzero := 0
		for _, e := range entries {
			if e.v > 0 {
				nonzero++
			}
		}
		ev.clock = make([]clockEntry, 0, nonzero)
		for _, e := range entries {
			if e.v > 0 {
				ev.clock = append(ev.clock, e)
			}
		}
		for g, name := range parser.SubexpNames() {
			if name != "" && g != hi && g != ci && g != ei {
				ev.fields = append(ev.fields, Field{Name: name, Value: string(group(g))})
			}
		}
		events = append(events, ev)
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(events) == 0 {
		where := "the log"
		if label != "" {
			where = fmt.Sprintf("execution %q", label)
		}
		return nil, fail(lineBase+1, "parser", "the parser matches no event in %s", where)
	}
	if err := checkClocks(FormatShiViz, inputBytes, len(events), len(hosts), opt); err != nil {
		return nil, err
	}
	for i := range events {
		ev := &events[i]
		for k, e := range ev.clock {
			h := hostOf[e.host]
			if h < 0 {
				return nil, fail(ev.line, "clock", "the clock names host %q, which logs no event", names[e.host])
			}
			ev.clock[k].host = h
		}
		slices.SortFunc(ev.clock, func(a, b clockEntry) int { return int(a.host - b.host) })
	}
	return orderShiViz(events, hosts, label)
}

// orderShiViz finds each event's direct predecessors from the clocks,
// places the events in an order consistent with them (the log's order
// where it can), and builds the execution, checking every clock.
func orderShiViz(events []shivizEvent, hosts []string, label string) (*Execution, error) {
	fail := func(ev *shivizEvent, msg string, args ...any) error {
		return &Error{Format: FormatShiViz, Line: int(ev.line), Field: "clock", Msg: fmt.Sprintf(msg, args...)}
	}
	// byHost[h][t-1] is the event of host h whose own entry is t.
	byHost := make([][]int32, len(hosts))
	for i := range events {
		byHost[events[i].host] = append(byHost[events[i].host], int32(i))
	}
	for h, list := range byHost {
		slices.SortStableFunc(list, func(a, b int32) int { return int(events[a].own) - int(events[b].own) })
		for t, i := range list {
			if events[i].own != uint32(t+1) {
				if t == 0 {
					return nil, fail(&events[i], "the clock of host %q must start at 1 at its first event; it is %d", hosts[h], events[i].own)
				}
				return nil, fail(&events[i], "the clock of host %q goes from %d (line %d) to %d: it must grow by 1 per event",
					hosts[h], events[list[t-1]].own, events[list[t-1]].line, events[i].own)
			}
		}
	}
	// deps[i] lists the events on other hosts that event i directly
	// follows (ShiViz's rule: an entry that grew since the host's previous
	// event points at that host's event with that own entry; entries
	// another such event already implies are left out).
	deps := make([][]int32, len(events))
	for h, list := range byHost {
		var prev []clockEntry
		for _, i := range list {
			ev := &events[i]
			var cands []int32
			k := 0
			for _, e := range ev.clock {
				for k < len(prev) && prev[k].host < e.host {
					return nil, fail(ev, "the entry of host %q goes backwards from %d to 0", hosts[prev[k].host], prev[k].v)
				}
				old := uint32(0)
				if k < len(prev) && prev[k].host == e.host {
					old = prev[k].v
					k++
				}
				if e.v < old {
					return nil, fail(ev, "the entry of host %q goes backwards from %d to %d", hosts[e.host], old, e.v)
				}
				if e.host == int32(h) || e.v == old {
					continue
				}
				if int(e.v) > len(byHost[e.host]) {
					return nil, fail(ev, "the entry of host %q is %d, but that host logs %d events", hosts[e.host], e.v, len(byHost[e.host]))
				}
				cands = append(cands, byHost[e.host][e.v-1])
			}
			if k < len(prev) {
				return nil, fail(ev, "the entry of host %q goes backwards from %d to 0", hosts[prev[k].host], prev[k].v)
			}
			deps[i] = prune(events, cands)
			prev = ev.clock
		}
	}
	order, err := topoOrder(events, byHost, deps)
	if err != nil {
		return nil, err
	}
	x := &Execution{Label: label, Untimed: true}
	for h, name := range hosts {
		x.Nodes = append(x.Nodes, sim.Node{ID: sim.NodeID(h), Name: name})
		x.Procs = append(x.Procs, sim.Proc{ID: sim.ProcID(h), Node: sim.NodeID(h), Shard: -1, Name: name, Kind: sim.Actor})
	}
	b := newBuilder(x, len(events))
	pos := make([]int32, len(events))
	for _, i := range order {
		ev := &events[i]
		s := sim.Step{Proc: sim.ProcID(ev.host), Kind: sim.StepLocal, Parent: -1, Obj: -1}
		after := make([]int32, len(deps[i]))
		for k, d := range deps[i] {
			after[k] = pos[d]
		}
		if len(after) > 0 {
			s.Kind, s.Parent = sim.StepReceive, after[0]
		}
		step := int32(len(x.Steps))
		for _, a := range after {
			id := sim.MsgID(len(x.Messages) + 1)
			if s.Msg == 0 {
				s.Msg = id
			}
			x.Messages = append(x.Messages, sim.Message{ID: id, From: x.Steps[a].Proc, To: s.Proc, SentStep: a, RecvStep: step,
				Label: b.intern(x.StepLabel(int(a)))})
		}
		pos[i] = b.add(s, ev.text, after, ev.line, ev.fields)
		if err := sameClock(x.Clock(int(pos[i])), ev.clock, hosts); err != "" {
			return nil, fail(ev, "%s", err)
		}
	}
	return x, nil
}

// prune leaves out the candidates another candidate's clock already
// covers (they are in its past, not direct predecessors).
func prune(events []shivizEvent, cands []int32) []int32 {
	if len(cands) < 2 {
		return cands
	}
	out := cands[:0:0]
	for _, c := range cands {
		covered := false
		for _, d := range cands {
			if d != c && entryOf(events[d].clock, events[c].host) >= events[c].own {
				covered = true
				break
			}
		}
		if !covered {
			out = append(out, c)
		}
	}
	return out
}

func entryOf(clock []clockEntry, h int32) uint32 {
	k, ok := slices.BinarySearchFunc(clock, h, func(e clockEntry, h int32) int { return int(e.host - h) })
	if !ok {
		return 0
	}
	return clock[k].v
}

// sameClock compares the clock the edges imply with the logged one.
func sameClock(got []uint32, logged []clockEntry, hosts []string) string {
	k := 0
	for h, v := range got {
		want := uint32(0)
		if k < len(logged) && logged[k].host == int32(h) {
			want = logged[k].v
			k++
		}
		if v != want {
			return fmt.Sprintf("the entry of host %q is %d, but the events this one follows make it %d", hosts[h], want, v)
		}
	}
	return ""
}

// topoOrder places every event after its host's previous event and its
// direct predecessors, choosing among the ready events the one earliest
// in the log.
func topoOrder(events []shivizEvent, byHost [][]int32, deps [][]int32) ([]int32, error) {
	n := len(events)
	waits := make([]int32, n)
	// next[i] lists the events waiting for i: its host's next event and
	// the events that follow it on other hosts.
	start := make([]int32, n+1)
	for i := range deps {
		for _, d := range deps[i] {
			start[d+1]++
		}
		waits[i] = int32(len(deps[i]))
	}
	for _, list := range byHost {
		for t := 1; t < len(list); t++ {
			start[list[t-1]+1]++
			waits[list[t]]++
		}
	}
	for i := 1; i <= n; i++ {
		start[i] += start[i-1]
	}
	next := make([]int32, start[n])
	fill := slices.Clone(start[:n])
	for i := range deps {
		for _, d := range deps[i] {
			next[fill[d]] = int32(i)
			fill[d]++
		}
	}
	for _, list := range byHost {
		for t := 1; t < len(list); t++ {
			next[fill[list[t-1]]] = list[t]
			fill[list[t-1]]++
		}
	}
	var ready minHeap
	for i := range n {
		if waits[i] == 0 {
			ready.push(int32(i))
		}
	}
	order := make([]int32, 0, n)
	for len(ready) > 0 {
		i := ready.pop()
		order = append(order, i)
		for _, j := range next[start[i]:start[i+1]] {
			if waits[j]--; waits[j] == 0 {
				ready.push(j)
			}
		}
	}
	if len(order) < n {
		for i := range n {
			if waits[i] > 0 {
				return nil, &Error{Format: FormatShiViz, Line: int(events[i].line), Field: "clock",
					Msg: "the clocks form a cycle: this event happens before an event it follows"}
			}
		}
	}
	return order, nil
}

// minHeap is a binary heap of event indexes, least first.
type minHeap []int32

func (h *minHeap) push(v int32) {
	*h = append(*h, v)
	a := *h
	for i := len(a) - 1; i > 0; {
		p := (i - 1) / 2
		if a[p] <= a[i] {
			break
		}
		a[p], a[i] = a[i], a[p]
		i = p
	}
}

func (h *minHeap) pop() int32 {
	a := *h
	top := a[0]
	last := len(a) - 1
	a[0] = a[last]
	a = a[:last]
	for i := 0; ; {
		l, r, m := 2*i+1, 2*i+2, i
		if l < len(a) && a[l] < a[m] {
			m = l
		}
		if r < len(a) && a[r] < a[m] {
			m = r
		}
		if m == i {
			break
		}
		a[m], a[i] = a[i], a[m]
		i = m
	}
	*h = a
	return top
}

// escapedQuote is a quote escaped with a backslash, as a clock written
// inside a quoted string carries them.
var escapedQuote = []byte{'\\', '"'}
