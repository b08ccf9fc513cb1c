package api

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/racetrack-sim/racetrack/core/ingest"
	"github.com/racetrack-sim/racetrack/core/session"
)

// cartLog is a ShiViz log in ShiViz's default layout: a client asks a
// server for its cart and gets it.
const cartLog = `client GET /cart
client {"client":1}
server request for cart
server {"server":1, "client":1}
server sending cart
server {"server":2, "client":1}
client cart received
client {"client":2, "server":2}
`

func traceBody(t *testing.T, l session.TraceLog) string {
	t.Helper()
	b, err := json.Marshal(l)
	require.NoError(t, err)
	return string(b)
}

// importLog posts a log and returns the answer.
func (ts *testServer) importLog(t *testing.T, l session.TraceLog) session.TraceOpened {
	t.Helper()
	res := ts.post(t, tracesPath, traceBody(t, l))
	require.Equal(t, http.StatusCreated, res.Status, "body: %s", res.Body)
	var o session.TraceOpened
	o.Opened = &ingest.Opened{}
	res.json(t, &o)
	return o
}

func TestImportedLogServesEveryViewOfARun(t *testing.T) {
	ts := newTestServer(t)
	res := ts.post(t, tracesPath, traceBody(t, session.TraceLog{Format: "shiviz", Log: cartLog}))
	require.Equal(t, http.StatusCreated, res.Status, "body: %s", res.Body)
	var o struct {
		ID                        string
		Hosts, Events, Executions int
		Runs                      []struct{ ID string }
	}
	res.json(t, &o)
	assert.Equal(t, 2, o.Hosts)
	assert.Equal(t, 4, o.Events)
	assert.Equal(t, 1, o.Executions)
	require.Len(t, o.Runs, 1)
	assert.Equal(t, o.ID, o.Runs[0].ID)
	assert.Equal(t, "/api/v1/runs/"+o.ID, res.Header.Get("Location"))
	assert.Regexp(t, `^log-[0-9a-f]{16}$`, o.ID)

	run := "/api/v1/runs/" + o.ID
	for path, says := range map[string]string{
		"":                              `"steps":4`,
		"/steps":                        "cart received",
		"/layout?from=0&to=4":           "server",
		"/diagram.svg":                  "<svg",
		"/find?step=0&kind=message":     `"found":true`,
		"/slice?step=3":                 `"steps":[0,1,2,3]`,
		"/state?step=3":                 `"step":3`,
		"/export?format=json":           "cart received",
		"/export?format=shiviz":         "cart received",
		"/forks":                        `"run":"` + o.ID + `"`,
		"/alternatives?step=1":          "[]",
		"/charts":                       "{",
		"/export?format=chrome":         "traceEvents",
		"/find?step=0&kind=message&x=1": `"found":true`,
	} {
		r := ts.get(t, run+path)
		require.Equal(t, http.StatusOK, r.Status, "GET %s: %s", path, r.Body)
		assert.Contains(t, string(r.Body), says, "GET %s", path)
	}
	r := ts.get(t, run+"/export?format=json")
	assert.Contains(t, r.Header.Get("Content-Disposition"), o.ID+".json")
	// A fork of a log has no choice to take; the log is no run to compare.
	r = ts.post(t, run+"/forks", `{"step":1,"choice":0,"option":1}`)
	assert.Equal(t, http.StatusUnprocessableEntity, r.Status, "%s", r.Body)
	r = ts.get(t, "/api/v1/compare?a="+o.ID+"&b="+o.ID)
	assert.Equal(t, "a", r.problem(t).Field)

	// After a restart the stored log is imported again.
	path := ts.path
	ts.stop()
	ts2 := startTestServer(t, path)
	r = ts2.get(t, run+"/steps")
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	assert.Contains(t, string(r.Body), "cart received")
}

func TestImportedLogOfSeveralExecutions(t *testing.T) {
	ts := newTestServer(t)
	log := "=== first ===\na send\na {\"a\":1}\nb recv\nb {\"a\":1, \"b\":1}\n\n=== second ===\nb alone\nb {\"b\":1}\n"
	o := ts.importLog(t, session.TraceLog{Format: "shiviz", Delimiter: `^=== (?<trace>.*) ===$`, Log: log})
	require.Equal(t, 2, o.Executions)
	assert.Equal(t, []string{"first", "second"}, o.Labels)
	assert.Equal(t, o.ID+"-2", o.Runs[1].ID)
	r := ts.get(t, "/api/v1/runs/"+o.ID+"-2/steps")
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	assert.Contains(t, string(r.Body), "alone")
	p := ts.get(t, "/api/v1/runs/"+o.ID).problem(t)
	assert.Equal(t, http.StatusNotFound, p.Status)
	assert.Contains(t, p.Detail, o.ID+"-1, "+o.ID+"-2")
	assert.Equal(t, http.StatusNotFound, ts.get(t, "/api/v1/runs/"+o.ID+"-3").Status)
	assert.Equal(t, http.StatusNotFound, ts.get(t, "/api/v1/runs/log-0123456789abcdef").Status)
}

func TestImportRefusesNamingLineAndField(t *testing.T) {
	ts := newTestServer(t)
	backwards := cartLog + "client went back\nclient {\"client\":1, \"server\":2}\n"
	for _, c := range []struct {
		name, body, field, says string
		status, line            int
	}{
		{"a clock that goes backwards", traceBody(t, session.TraceLog{Format: "shiviz", Log: backwards}), "log", `line 9, field "clock"`, 422, 9},
		{"a receive before its send", `{"format":"ndjson","log":"{\"node\":\"a\",\"kind\":\"receive\",\"msg\":1}\n"}`, "log", `field "msg"`, 422, 1},
		{"an invalid parser", `{"format":"shiviz","parser":"(?<host>[a-z","log":"x"}`, "parser", "RE2", 422, 0},
		{"a parser without event", `{"format":"shiviz","parser":"(?<host>\\S+) (?<clock>.*)","log":"a b"}`, "parser", "event", 422, 0},
		{"an invalid delimiter", `{"format":"shiviz","delimiter":"(","log":"x"}`, "delimiter", "RE2", 422, 0},
		{"an unknown format", `{"format":"xml","log":"x"}`, "format", "one of shiviz", 422, 0},
		{"an id in the body", `{"id":"log-0123456789abcdef","log":"x"}`, "id", "unknown", 400, 0},
		{"a log that is a number", `{"log":7}`, "log", "", 400, 0},
		{"no log", `{"format":"shiviz"}`, "log", "empty", 422, 0},
	} {
		r := ts.post(t, tracesPath, c.body)
		require.Equal(t, c.status, r.Status, "%s: %s", c.name, r.Body)
		p := r.problem(t)
		assert.Equal(t, c.field, p.Field, c.name)
		assert.Equal(t, c.line, p.Line, c.name)
		assert.Contains(t, p.Detail, c.says, c.name)
	}
	assert.Zero(t, ts.mem.inUse(), "nothing is half-imported, no memory kept")
}

// A log's memory is reserved before it is parsed: a log that can never
// fit is 422 with what it needs, one that must wait 503, one above the
// body limit 413; none of them leaves memory reserved.
func TestImportIsBudgeted(t *testing.T) {
	ts := newTestServer(t, func(c *Config) { c.MemoryBudget = 8 << 20; c.MaxTraceBytes = 4 << 20 })
	var b strings.Builder
	for i := 1; b.Len() < 1<<20; i++ {
		fmt.Fprintf(&b, "a e%d\na {\"a\":%d}\n", i, i)
	}
	r := ts.post(t, tracesPath, traceBody(t, session.TraceLog{Format: "shiviz", Log: b.String()}))
	require.Equal(t, http.StatusUnprocessableEntity, r.Status, "%s", r.Body)
	p := r.problem(t)
	assert.Equal(t, "log", p.Field)
	assert.Greater(t, p.NeedBytes, int64(8<<20))
	assert.Contains(t, p.Type, "too-large-for-memory")

	hog, err := ts.mem.reserve(kindSearch, 7<<20, memoryHint{})
	require.NoError(t, err)
	r = ts.post(t, tracesPath, traceBody(t, session.TraceLog{Format: "shiviz", Log: strings.Repeat(cartLog, 1) + strings.Repeat(" ", 50<<10)}))
	require.Equal(t, http.StatusServiceUnavailable, r.Status, "%s", r.Body)
	assert.Positive(t, r.problem(t).NeedBytes)
	assert.NotEmpty(t, r.Header.Get("Retry-After"))
	hog.release()

	r = ts.post(t, tracesPath, `{"log":"`+strings.Repeat("x", 5<<20)+`"}`)
	require.Equal(t, http.StatusRequestEntityTooLarge, r.Status, "%s", r.Body)
	assert.Positive(t, r.problem(t).NeedBytes)
	assert.Zero(t, ts.mem.inUse())

	// What fits is imported; its runs hold their memory while cached.
	o := ts.importLog(t, session.TraceLog{Log: cartLog})
	rec, ok := ts.timelines.peek(o.ID)
	require.True(t, ok)
	rec.drop()
	assert.Equal(t, rec.size, ts.mem.inUse())
}

// Other routes keep their body limit: only the import takes large bodies.
func TestOnlyTheImportTakesLargeBodies(t *testing.T) {
	ts := newTestServer(t)
	r := ts.post(t, "/api/v1/runs", `{"scenario":"dining-philosophers","x":"`+strings.Repeat("x", 2<<20)+`"}`)
	assert.Equal(t, http.StatusRequestEntityTooLarge, r.Status)
	var b strings.Builder
	for i := 1; b.Len() < 2<<20; i++ {
		fmt.Fprintf(&b, "a e%d\na {\"a\":%d}\n", i, i)
	}
	o := ts.importLog(t, session.TraceLog{Format: "shiviz", Log: b.String()})
	assert.Greater(t, o.Events, 40_000)
}

func TestImportNeedsAFullToken(t *testing.T) {
	ts := newTestServer(t, withAuth(false))
	body := traceBody(t, session.TraceLog{Log: cartLog})
	assert.Equal(t, http.StatusUnauthorized, authReq(t, http.MethodPost, ts.URL+tracesPath, "", nil, body).StatusCode)
	assert.Equal(t, http.StatusForbidden, authReq(t, http.MethodPost, ts.URL+tracesPath, readOnlyToken, nil, body).StatusCode)
	assert.Equal(t, http.StatusCreated, authReq(t, http.MethodPost, ts.URL+tracesPath, fullToken, nil, body).StatusCode)
}

// The session socket opens a log imported over REST by its id (the
// page's "#trace=ID"), and imports one itself.
func TestSessionOpensAStoredLog(t *testing.T) {
	ts := newTestServer(t)
	o := ts.importLog(t, session.TraceLog{Log: cartLog})
	sc := dialSession(t, ts)
	got := sc.call("openTrace", `{"id":"`+o.ID+`"}`)
	require.Nil(t, got.Error, "%+v", got.Error)
	assert.Contains(t, string(got.Result), `"events":4`)
	got = sc.call("steps", `{"run":"`+o.ID+`"}`)
	require.Nil(t, got.Error, "%+v", got.Error)
	assert.Contains(t, string(got.Result), "cart received")
	got = sc.call("openTrace", `{"id":"log-0123456789abcdef"}`)
	require.NotNil(t, got.Error)
	assert.Equal(t, "id", got.Error.Field)
	got = sc.call("openTrace", `{"log":"a x\na {\"a\":1}\n"}`)
	require.Nil(t, got.Error, "%+v", got.Error)
	assert.Contains(t, string(got.Result), `"events":1`)
	// A check over the socket: the cart log is no philosophers' run.
	got = sc.call("check", `{"run":"`+o.ID+`","spec":{"scenario":"dining-philosophers","params":{"timed":false}},"mapping":"identity"}`)
	require.NotNil(t, got.Error)
	assert.Equal(t, "log", got.Error.Field, "%+v", got.Error)
	assert.Positive(t, got.Error.Line, "%+v", got.Error)

	// A model's own run checked over the socket conforms and opens the
	// aligned model run in the session.
	run := ts.createRun(t, `{"scenario":"dining-philosophers","seed":4,"params":{"timed":false}}`)
	own := ts.importLog(t, session.TraceLog{Format: "json", Log: string(ts.get(t, "/api/v1/runs/"+run.ID+"/export?format=json").Body)})
	got = sc.call("openTrace", `{"id":"`+own.ID+`"}`)
	require.Nil(t, got.Error, "%+v", got.Error)
	got = sc.call("check", `{"run":"`+own.ID+`","spec":{"scenario":"dining-philosophers","seed":4,"params":{"timed":false}},"mapping":"identity"}`)
	require.Nil(t, got.Error, "%+v", got.Error)
	var checked session.Checked
	require.NoError(t, json.Unmarshal(got.Result, &checked))
	require.True(t, checked.Verdict.Conforms)
	require.NotNil(t, checked.Model)
	got = sc.call("steps", `{"run":"`+checked.Model.ID+`"}`)
	require.Nil(t, got.Error, "%+v", got.Error)
}

// A model's own run, exported and imported as a log, is checked against
// the model: it conforms, and the aligned model run is a stored run.
func TestValidationOfAnImportedLog(t *testing.T) {
	ts := newTestServer(t)
	run := ts.createRun(t, `{"scenario":"dining-philosophers","seed":4,"params":{"timed":false}}`)
	ex := ts.get(t, "/api/v1/runs/"+run.ID+"/export?format=json")
	require.Equal(t, http.StatusOK, ex.Status)
	o := ts.importLog(t, session.TraceLog{Format: "json", Log: string(ex.Body)})
	spec, err := json.Marshal(run.Spec)
	require.NoError(t, err)
	r := ts.post(t, tracesPath+"/"+o.ID+"/validations", `{"spec":`+string(spec)+`,"mapping":"identity"}`)
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	var got session.Checked
	r.json(t, &got)
	require.True(t, got.Verdict.Conforms, "%+v", got.Verdict)
	assert.Equal(t, o.Events, got.Verdict.Matched)
	require.NotNil(t, got.Model)
	steps := ts.get(t, "/api/v1/runs/"+got.Model.ID+"/steps")
	assert.Equal(t, http.StatusOK, steps.Status, "%s", steps.Body)
	// The validation's and the page's reservations are given back just
	// after their answers are sent.
	if !assert.Eventually(t, func() bool { return ts.mem.inUse() == cachedBytes(ts) }, 10*time.Second, time.Millisecond) {
		assert.Zero(t, ts.mem.inUse()-cachedBytes(ts), "the validation gave its memory back")
	}

	for body, field := range map[string]string{
		`{"spec":{"scenario":"nope"}}`:                   "spec.scenario",
		`{"spec":` + string(spec) + `,"mapping":"nope"}`: "mapping",
		`{"spec":` + string(spec) + `,"maxStates":-1}`:   "maxStates",
		`{"mapping":"identity"}`:                         "spec",
		`{"spec":` + string(spec) + `,"x":1}`:            "x",
	} {
		p := ts.post(t, tracesPath+"/"+o.ID+"/validations", body).problem(t)
		assert.Equal(t, field, p.Field, body)
	}
	assert.Equal(t, http.StatusNotFound, ts.post(t, tracesPath+"/log-0123456789abcdef/validations", `{"spec":`+string(spec)+`}`).Status)
	assert.Equal(t, http.StatusNotFound, ts.post(t, tracesPath+"/"+run.ID+"/validations", `{"spec":`+string(spec)+`}`).Status)
}

// cachedBytes is the memory the timeline cache holds.
func cachedBytes(ts *testServer) int64 {
	ts.timelines.mu.Lock()
	defer ts.timelines.mu.Unlock()
	return ts.timelines.bytes
}
