package session_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/racetrack-sim/racetrack/core/catalog"
	"github.com/racetrack-sim/racetrack/core/check"
	"github.com/racetrack-sim/racetrack/core/scenario"
	"github.com/racetrack-sim/racetrack/core/session"
	"github.com/racetrack-sim/racetrack/core/sim"
	"github.com/racetrack-sim/racetrack/core/timeline"
	"github.com/racetrack-sim/racetrack/core/viz"
)

var reg = catalog.New()

func newSession() *session.Session { return session.New(session.Config{Registry: reg}) }

// call runs a method with args marshalled from v and fails the test on
// an error.
func call[T any](t *testing.T, s *session.Session, method string, v any) T {
	t.Helper()
	args, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	out, err := s.Call("1", method, args)
	if err != nil {
		t.Fatalf("%s %s: %v", method, args, err)
	}
	r, ok := out.(T)
	if !ok {
		t.Fatalf("%s returned %T", method, out)
	}
	return r
}

func callErr(t *testing.T, s *session.Session, method, args string) *session.Error {
	t.Helper()
	out, err := s.Call("1", method, json.RawMessage(args))
	if err == nil {
		t.Fatalf("%s %s = %v, want an error", method, args, out)
	}
	var e *session.Error
	if !errors.As(err, &e) {
		t.Fatalf("%s %s: error %T %v is not a *session.Error", method, args, err, err)
	}
	return e
}

func philoSpec(seed uint64) scenario.RunSpec {
	return scenario.RunSpec{Scenario: "dining-philosophers", Preset: "lock-level", Variant: "buggy", Seed: seed}
}

// deadlocked opens a philosophers' run that deadlocks.
func deadlocked(t *testing.T, s *session.Session) scenario.Summary {
	t.Helper()
	for seed := uint64(1); seed < 200; seed++ {
		sum := call[scenario.Summary](t, s, "open", map[string]any{"spec": philoSpec(seed)})
		if len(sum.Violations) > 0 {
			return sum
		}
	}
	t.Fatal("no deadlocking seed below 200")
	return scenario.Summary{}
}

func TestOpenAndSteps(t *testing.T) {
	s := newSession()
	sum := deadlocked(t, s)
	page := call[session.StepsPage](t, s, "steps", map[string]any{"run": sum.ID, "from": 2, "limit": 3})
	if page.Total != sum.Steps || page.From != 2 || len(page.Steps) != 3 || page.Steps[0].Index != 2 {
		t.Fatalf("page %+v of a %d-step run", page, sum.Steps)
	}
	again := call[scenario.Summary](t, s, "open", map[string]any{"spec": sum.Spec})
	if again.ID != sum.ID {
		t.Fatalf("the normalised spec opens run %s, not %s", again.ID, sum.ID)
	}
}

// TestFindMatchesAScan checks every step filter against a scan of the
// steps (what the page used to do).
func TestFindMatchesAScan(t *testing.T) {
	s := newSession()
	sum := deadlocked(t, s)
	steps := call[session.StepsPage](t, s, "steps", map[string]any{"run": sum.ID, "limit": 10000}).Steps
	violations := map[int]bool{}
	for _, v := range sum.Violations {
		violations[v.Step] = true
	}
	tests := map[string]func(timeline.StepView) bool{
		"message": func(v timeline.StepView) bool { return v.Kind == sim.StepReceive || len(v.Sends) > 0 },
		"lock": func(v timeline.StepView) bool {
			switch v.Kind {
			case sim.StepLock, sim.StepBlock, sim.StepUnlock, sim.StepWait, sim.StepSignal:
				return true
			}
			return false
		},
		"violation": func(v timeline.StepView) bool { return violations[v.Index] },
		"choice":    func(v timeline.StepView) bool { return v.Choices > 0 },
		"":          func(timeline.StepView) bool { return true },
	}
	for kind, test := range tests {
		for from := -1; from <= len(steps); from++ {
			want, wantOK := -1, false
			for i := from + 1; i < len(steps); i++ {
				if i >= 0 && test(steps[i]) {
					want, wantOK = i, true
					break
				}
			}
			got := call[session.Found](t, s, "find", map[string]any{"run": sum.ID, "step": from, "kind": kind})
			if got.Found != wantOK || (wantOK && got.Step != want) {
				t.Fatalf("find %q after %d = %+v, the scan says %d %v", kind, from, got, want, wantOK)
			}
			wantBack, backOK := -1, false
			for i := min(from, len(steps)) - 1; i >= 0; i-- {
				if test(steps[i]) {
					wantBack, backOK = i, true
					break
				}
			}
			if from < 0 {
				continue
			}
			back := call[session.Found](t, s, "find", map[string]any{"run": sum.ID, "step": from, "kind": kind, "back": true})
			if back.Found != backOK || (backOK && back.Step != wantBack) {
				t.Fatalf("find %q before %d = %+v, the scan says %d %v", kind, from, back, wantBack, backOK)
			}
		}
	}
	if e := callErr(t, s, "find", fmt.Sprintf(`{"run":%q,"kind":"bogus"}`, sum.ID)); e.Field != "kind" || e.Code != session.CodeInvalid {
		t.Fatalf("bad kind: %+v", e)
	}
}

func TestStateAndAlternativesFork(t *testing.T) {
	s := newSession()
	sum := deadlocked(t, s)
	c := call[session.Found](t, s, "find", map[string]any{"run": sum.ID, "step": -1, "kind": "choice"})
	st := call[session.State](t, s, "state", map[string]any{"run": sum.ID, "step": c.Step})
	if st.Step != c.Step || len(st.Alternatives) == 0 || len(st.Groups) == 0 {
		t.Fatalf("state at choice point %d: step %d, %d alternatives, %d groups", c.Step, st.Step, len(st.Alternatives), len(st.Groups))
	}
	alts := call[[]session.Alternative](t, s, "alternatives", map[string]any{"run": sum.ID, "step": c.Step})
	tl, err := timeline.Record(reg, sum.Spec, timeline.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var choice, option = -1, -1
	for ci, a := range alts {
		for _, o := range a.Options {
			if o.Picked {
				if o.Spec != nil {
					t.Fatalf("the option taken has a fork spec")
				}
				continue
			}
			want, err := tl.Fork(c.Step, ci, o.Index)
			if err != nil {
				t.Fatal(err)
			}
			if o.Spec == nil || o.Spec.ID() != want.ID() {
				t.Fatalf("option %d of choice %d: spec %v, timeline.Fork says %s", o.Index, ci, o.Spec, want.ID())
			}
			choice, option = ci, o.Index
		}
	}
	if choice < 0 {
		t.Fatal("no option not taken at a choice point")
	}
	child := call[scenario.Summary](t, s, "fork", map[string]any{"run": sum.ID, "step": c.Step, "choice": choice, "option": option})
	want := alts[choice].Options[option].Spec.ID()
	if child.ID != want {
		t.Fatalf("fork opened %s, the alternative's spec is %s", child.ID, want)
	}
	grand := call[session.Found](t, s, "find", map[string]any{"run": child.ID, "step": c.Step, "kind": "choice"})
	var grandChild scenario.Summary
	if grand.Found {
		galts := call[[]session.Alternative](t, s, "alternatives", map[string]any{"run": child.ID, "step": grand.Step})
		for _, o := range galts[0].Options {
			if !o.Picked {
				grandChild = call[scenario.Summary](t, s, "fork", map[string]any{"run": child.ID, "step": grand.Step, "choice": 0, "option": o.Index})
				break
			}
		}
	}
	tree := call[session.ForkNode](t, s, "forks", map[string]any{"run": child.ID})
	if tree.Run != sum.ID || tree.Fork != nil || len(tree.Children) != 1 || tree.Children[0].Run != child.ID {
		t.Fatalf("fork tree %+v: want root %s with child %s", tree, sum.ID, child.ID)
	}
	edge := tree.Children[0].Fork
	if edge == nil || edge.Parent != sum.ID || edge.Step != c.Step || edge.Option != option {
		t.Fatalf("fork edge %+v", edge)
	}
	if grandChild.ID != "" && (len(tree.Children[0].Children) != 1 || tree.Children[0].Children[0].Run != grandChild.ID) {
		t.Fatalf("grandchild %s missing from %+v", grandChild.ID, tree.Children[0])
	}
	ex := call[session.Exported](t, s, "export", map[string]any{"run": child.ID, "format": "json"})
	var run struct{ Parent *timeline.Branch }
	if err := json.Unmarshal([]byte(ex.Text), &run); err != nil {
		t.Fatal(err)
	}
	if run.Parent == nil || run.Parent.Parent != sum.ID || run.Parent.Step != c.Step {
		t.Fatalf("the exported fork's parent is %+v, want %s at step %d", run.Parent, sum.ID, c.Step)
	}
	root := call[session.Exported](t, s, "export", map[string]any{"run": sum.ID, "format": "json"})
	if strings.Contains(root.Text, `"parent":{`) {
		t.Fatal("the root run exports a parent")
	}
}

func TestExportEveryFormat(t *testing.T) {
	s := newSession()
	sum := deadlocked(t, s)
	formats := call[[]session.Format](t, s, "formats", nil)
	if len(formats) < 4 {
		t.Fatalf("formats %v", formats)
	}
	for _, f := range formats {
		ex := call[session.Exported](t, s, "export", map[string]any{"run": sum.ID, "format": f.ID})
		if ex.Format != f.ID || ex.Media != f.Media || !strings.HasSuffix(ex.Name, f.Suffix) || len(ex.Text) < 100 {
			t.Fatalf("export %s: %q %q %q, %d bytes", f.ID, ex.Format, ex.Media, ex.Name, len(ex.Text))
		}
	}
	if e := callErr(t, s, "export", fmt.Sprintf(`{"run":%q,"format":"pdf"}`, sum.ID)); e.Field != "format" {
		t.Fatalf("pdf: %+v", e)
	}
}

func TestSliceLayoutChartsCompare(t *testing.T) {
	s := newSession()
	sum := deadlocked(t, s)
	v := sum.Violations[0].Step
	sl := call[session.Slice](t, s, "slice", map[string]any{"run": sum.ID, "step": v})
	if sl.Step != v || len(sl.Steps) == 0 || sl.Steps[len(sl.Steps)-1] > v {
		t.Fatalf("slice of %d: %v", v, sl.Steps)
	}
	d := call[*viz.Display](t, s, "layout", map[string]any{"run": sum.ID, "from": 0, "to": sum.Steps})
	if len(d.Shapes) == 0 {
		t.Fatal("empty layout")
	}
	if e := callErr(t, s, "layout", fmt.Sprintf(`{"run":%q,"from":0,"to":%d}`, sum.ID, sum.Steps+1)); e.Field != "to" {
		t.Fatalf("layout past the end: %+v", e)
	}
	call[*viz.Display](t, s, "charts", map[string]any{"run": sum.ID, "width": 800})
	fixed := philoSpec(sum.Spec.Seed)
	fixed.Variant = "fixed"
	fs := call[scenario.Summary](t, s, "open", map[string]any{"spec": fixed})
	cmp := call[timeline.Comparison](t, s, "compare", map[string]any{"a": sum.ID, "b": fs.ID})
	b, _ := json.Marshal(cmp)
	if !strings.Contains(string(b), "no-deadlock") {
		t.Fatalf("comparison names no property: %s", b)
	}
	if e := callErr(t, s, "compare", fmt.Sprintf(`{"a":%q,"b":"rnope"}`, sum.ID)); e.Field != "b" || e.Code != session.CodeNotFound {
		t.Fatalf("compare with an unknown run: %+v", e)
	}
}

// TestCacheBounds checks both bounds of the run cache, and that a run
// evicted from it still answers (recorded again from its spec).
func TestCacheBounds(t *testing.T) {
	cache := session.NewCache(reg, 2, 0)
	s := session.New(session.Config{Registry: reg, Runs: cache})
	var ids []string
	for seed := uint64(1); seed <= 4; seed++ {
		ids = append(ids, call[scenario.Summary](t, s, "open", map[string]any{"spec": philoSpec(seed)}).ID)
	}
	if cache.Len() != 2 {
		t.Fatalf("cache holds %d runs, bound 2", cache.Len())
	}
	page := call[session.StepsPage](t, s, "steps", map[string]any{"run": ids[0], "limit": 1})
	if page.Total == 0 || cache.Len() != 2 {
		t.Fatalf("the evicted run answered %+v; cache holds %d", page, cache.Len())
	}
	tl, err := session.Record(mustCheck(t, philoSpec(1)))
	if err != nil {
		t.Fatal(err)
	}
	small := session.NewCache(reg, 10, 2*tl.Bytes()+1)
	s2 := session.New(session.Config{Registry: reg, Runs: small})
	for seed := uint64(1); seed <= 4; seed++ {
		call[scenario.Summary](t, s2, "open", map[string]any{"spec": philoSpec(seed)})
		if small.Bytes() > 2*tl.Bytes()+1 {
			t.Fatalf("cache holds %d bytes, bound %d", small.Bytes(), 2*tl.Bytes()+1)
		}
	}
	tiny := session.NewCache(reg, 10, 1)
	s3 := session.New(session.Config{Registry: reg, Runs: tiny})
	sum := call[scenario.Summary](t, s3, "open", map[string]any{"spec": philoSpec(1)})
	if tiny.Len() != 0 || sum.Steps == 0 {
		t.Fatalf("a run larger than the cache: kept %d, %d steps", tiny.Len(), sum.Steps)
	}
}

func mustCheck(t *testing.T, spec scenario.RunSpec) scenario.Normal {
	n, err := reg.Check(spec)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func TestRunLimit(t *testing.T) {
	s := session.New(session.Config{Registry: reg, Limits: session.Limits{MaxRunSteps: 10}})
	e := callErr(t, s, "open", `{"spec":{"scenario":"dining-philosophers","preset":"lock-level"}}`)
	if e.Field != "spec.maxSteps" || e.Code != session.CodeInvalid || !strings.Contains(e.Message, "defaults (from preset lock-level)") {
		t.Fatalf("over the step limit: %+v", e)
	}
	e = callErr(t, s, "open", `{"spec":{"scenario":"dining-philosophers","params":{"nope":1}}}`)
	if e.Field != "spec.params.nope" {
		t.Fatalf("unknown param: %+v", e)
	}
}

func TestErrors(t *testing.T) {
	s := newSession()
	cases := []struct{ method, args, code, field string }{
		{"nope", `{}`, session.CodeMethod, "method"},
		{"steps", `{"run":"r0"}`, session.CodeNotFound, "run"},
		{"steps", `{"run":`, session.CodeBadRequest, "args"},
		{"steps", `{"run":1}`, session.CodeBadRequest, "run"},
		{"steps", `{"run":"r0","extra":1}`, session.CodeBadRequest, "extra"},
		{"state", `{}`, session.CodeBadRequest, "run"},
		{"open", `{}`, session.CodeBadRequest, "spec"},
		{"open", `{"spec":{"scenario":"nope"}}`, session.CodeInvalid, "spec.scenario"},
		{"search", `{"scenario":"dining-philosophers","strategy":"nope"}`, session.CodeInvalid, "strategy"},
		{"search", `{"scenario":"dining-philosophers","strategy":"bfs","budget":{"states":-1}}`, session.CodeInvalid, "budget.states"},
		{"search", `{"scenario":"dining-philosophers","strategy":"bfs","budget":{"nope":1}}`, session.CodeBadRequest, "budget.nope"},
		{"play", `{"run":"r0"}`, session.CodeNotFound, "run"},
		{"cancel", `{}`, session.CodeBadRequest, "id"},
	}
	for _, c := range cases {
		e := callErr(t, s, c.method, c.args)
		if e.Code != c.code || e.Field != c.field || e.Message == "" {
			t.Errorf("%s %s: %+v, want code %s field %s", c.method, c.args, e, c.code, c.field)
		}
	}
}

// clock is a transport's clock for a test: each reading advances it.
type clock struct{ now, tick time.Duration }

func (c *clock) elapsed() time.Duration { c.now += c.tick; return c.now }

func search(t *testing.T, s *session.Session, id string, req session.SearchRequest, h session.Hooks) session.SearchResult {
	t.Helper()
	args, _ := json.Marshal(req)
	out, err := s.Call(id, "search", args)
	if err != nil {
		t.Fatal(err)
	}
	return out.(*session.Search).Run(h)
}

func TestSearchDefaultsAndCancel(t *testing.T) {
	s := newSession()
	req := session.SearchRequest{Scenario: "dining-philosophers", Preset: "lock-level", Strategy: "bfs", Budget: session.SearchBudget{States: 50_000}}
	c := &clock{tick: time.Millisecond}
	var reports int
	res := search(t, s, "a", req, session.Hooks{Elapsed: c.elapsed, Progress: func(session.SearchProgress) { reports++ }})
	if !res.Found || res.Counterexample == nil || res.Cancelled || res.TimedOut || res.Stop.Reason != check.StopFound {
		t.Fatalf("bfs on the philosophers: %+v", res)
	}
	if !res.Reductions.Sleep || !res.Reductions.Symmetry {
		t.Fatalf("bfs ran without its default reductions: %+v", res.Reductions)
	}
	req.Budget.Seconds = 1e6
	again := search(t, s, "b", req, session.Hooks{Elapsed: (&clock{tick: 60 * time.Millisecond}).elapsed})
	if again.TimedOut || again.States != res.States || again.Length != res.Length {
		t.Fatalf("the same bfs at another slicing: %d states, length %d; was %d, %d", again.States, again.Length, res.States, res.Length)
	}

	// Cancel lands between slices through the same dispatcher.
	rnd := session.SearchRequest{Scenario: "dining-philosophers", Preset: "lock-level", Variant: "fixed", Strategy: "random", Budget: session.SearchBudget{Runs: 1_000_000}}
	yields := 0
	res = search(t, s, "c", rnd, session.Hooks{Elapsed: c.elapsed, Yield: func() {
		if yields++; yields == 3 {
			if _, err := s.Call("d", "cancel", json.RawMessage(`{"id":"c"}`)); err != nil {
				t.Fatal(err)
			}
		}
	}})
	if !res.Cancelled || res.Runs == 0 || res.Runs >= 1_000_000 || res.Stop.Reason != check.StopCancel {
		t.Fatalf("cancelled search: %+v", res)
	}
	gone := call[session.Cancelled](t, s, "cancel", map[string]any{"id": "c"})
	if gone.Running {
		t.Fatal("a finished search is still running")
	}

	// The time budget is the transport's clock.
	rnd.Budget.Seconds = 1
	res = search(t, s, "e", rnd, session.Hooks{Elapsed: (&clock{tick: 100 * time.Millisecond}).elapsed})
	if !res.TimedOut || res.Cancelled || res.Stop != (check.Stop{Reason: check.StopSeconds, Limit: 1, Raise: "budget.seconds", Message: "stopped at 1s: raise budget.seconds"}) {
		t.Fatalf("search past its seconds: %+v", res)
	}
	if res.Verdict != check.VerdictNone {
		t.Fatalf("search past its seconds: verdict %q, want %q", res.Verdict, check.VerdictNone)
	}
}

// TestPlayFrames plays a run to its end and checks that the frames'
// changed fields, applied in order, give the state view of the last
// step, and that every violation is reported once.
func TestPlayFrames(t *testing.T) {
	s := newSession()
	sum := deadlocked(t, s)
	out, err := s.Call("p", "play", json.RawMessage(fmt.Sprintf(`{"run":%q,"step":0,"speed":1000}`, sum.ID)))
	if err != nil {
		t.Fatal(err)
	}
	p := out.(*session.Player)
	held := map[[2]string]string{}
	apply := func(f *session.Frame) {
		for _, c := range f.Changed {
			held[[2]string{c.Group, c.Name}] = c.Value
		}
	}
	f, err := p.First()
	if err != nil || !f.Full || f.Step != 0 {
		t.Fatalf("first frame %+v %v", f, err)
	}
	apply(f)
	var violations int
	for n := 1; !p.Stopped(); n = n%5 + 1 {
		f, err = p.Advance(n)
		if err != nil {
			t.Fatal(err)
		}
		apply(f)
		violations += len(f.Violations)
	}
	if !f.End || f.Step != sum.Steps-1 || f.Playing {
		t.Fatalf("last frame %+v of %d steps", f, sum.Steps)
	}
	if violations != len(sum.Violations) {
		t.Fatalf("frames reported %d violations, the run has %d", violations, len(sum.Violations))
	}
	st := call[session.State](t, s, "state", map[string]any{"run": sum.ID, "step": sum.Steps - 1})
	for _, g := range st.Groups {
		for _, fd := range g.Fields {
			if v := held[[2]string{g.ID, fd.Name}]; v != fd.Value {
				t.Fatalf("after the frames %s/%s = %q, the state says %q", g.ID, fd.Name, v, fd.Value)
			}
		}
	}
	out, _ = s.Call("q", "play", json.RawMessage(fmt.Sprintf(`{"run":%q,"step":0}`, sum.ID)))
	q := out.(*session.Player)
	paused := call[session.Paused](t, s, "pause", nil)
	if !paused.Stopped || paused.ID != "q" || !q.Stopped() {
		t.Fatalf("pause: %+v", paused)
	}
	if e := callErr(t, s, "play", fmt.Sprintf(`{"run":%q,"speed":-1}`, sum.ID)); e.Field != "speed" {
		t.Fatalf("negative speed: %+v", e)
	}
}

// Every field of a refused search request is reported once, by the
// check that owns it: the session's bounds (seconds), the checker's
// strategy and budget, the catalog's property.
func TestPlanReportsEachFieldOnce(t *testing.T) {
	s := newSession()
	_, err := s.Plan(session.SearchRequest{Scenario: "dining-philosophers", Strategy: "nope", Property: "nope",
		Budget: session.SearchBudget{Seconds: -1, States: -5}})
	count := map[string]int{}
	for _, fe := range scenario.AllFieldErrors(err) {
		count[fe.Field]++
	}
	want := map[string]int{"budget.seconds": 1, "strategy": 1, "budget.states": 1, "property": 1}
	if len(count) != len(want) {
		t.Fatalf("fields %v, want %v (%v)", count, want, err)
	}
	for f, n := range want {
		if count[f] != n {
			t.Fatalf("fields %v, want %v (%v)", count, want, err)
		}
	}
}

// A search request is decoded strictly once: an unknown or repeated key
// inside the budget is still named with its path.
func TestSearchRequestBudgetDecodedStrictly(t *testing.T) {
	for body, field := range map[string]string{
		`{"scenario":"dining-philosophers","strategy":"bfs","budget":{"states":1,"nope":2}}`:   "budget.nope",
		`{"scenario":"dining-philosophers","strategy":"bfs","budget":{"states":1,"states":2}}`: "budget.states",
	} {
		_, err := session.DecodeSearchRequest([]byte(body))
		var e *session.Error
		if !errors.As(err, &e) || e.Field != field || e.Code != session.CodeBadRequest {
			t.Fatalf("%s: %v, want a bad request naming %s", body, err, field)
		}
	}
}
