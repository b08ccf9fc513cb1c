package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/coder/websocket"

	"github.com/racetrack-sim/racetrack/api"
	"github.com/racetrack-sim/racetrack/core/catalog"
	"github.com/racetrack-sim/racetrack/internal/harness"
)

// scale sizes the suite: small fits a CI machine (2 cores) in about a
// minute; full is the issue's sizes, run by hand.
type scale struct {
	name       string
	specs      int // random in-schema specs, each as a run and a search
	parallel   int // clients at once
	bigRuns    int // concurrent large runs
	exports    int // concurrent exports of the large run
	streams    int // streams on the large run
	searches   int // search POSTs in the flood
	slow       int // connections that never finish their headers
	bfsSeconds int // how long the issue's search runs before it is cancelled
}

var scales = map[string]scale{
	"small": {name: "small", specs: 40, parallel: 4, bigRuns: 3, exports: 4, streams: 20, searches: 80, slow: 50, bfsSeconds: 3},
	"full":  {name: "full", specs: 600, parallel: 16, bigRuns: 6, exports: 8, streams: 200, searches: 2000, slow: 500, bfsSeconds: 30},
}

// check is one expected outcome and what happened.
type check struct {
	Case     string
	Expected string
	Got      string
	OK       bool
}

// suite runs the hostile cases against one server.
type suite struct {
	base   string
	host   string // the server's host:port
	sc     scale
	client *http.Client

	mu     sync.Mutex
	checks []check
	runIDs []string // acknowledged runs (201)
	done   []string // searches that finished
}

func newSuite(base string, sc scale) *suite {
	return &suite{base: base, host: strings.TrimPrefix(base, "http://"), sc: sc,
		client: &http.Client{Timeout: 5 * time.Minute, Transport: &http.Transport{MaxIdleConnsPerHost: 256}}}
}

func (s *suite) record(name, expected, got string, ok bool) {
	s.mu.Lock()
	s.checks = append(s.checks, check{Case: name, Expected: expected, Got: got, OK: ok})
	s.mu.Unlock()
}

// reply is a response read whole (or the error that cut it).
type reply struct {
	status  int
	header  http.Header
	body    []byte
	readErr error
	problem api.Problem
}

func (r *reply) isProblem() bool {
	return r.header.Get("Content-Type") == "application/problem+json" && r.problem.Status == r.status && r.problem.Detail != ""
}

// retryable is a refusal that says when to come back.
func (r *reply) retryable() bool {
	return (r.status == http.StatusTooManyRequests || r.status == http.StatusServiceUnavailable) && r.isProblem() && r.header.Get("Retry-After") != ""
}

func (r *reply) String() string {
	if r.readErr != nil {
		return fmt.Sprintf("%d, body cut: %v", r.status, r.readErr)
	}
	if r.problem.Detail != "" {
		return fmt.Sprintf("%d %s field=%q", r.status, strings.TrimPrefix(r.problem.Type, "https://racetrack.dev/problems/"), r.problem.Field)
	}
	return strconv.Itoa(r.status)
}

func (s *suite) do(method, path, body string, hdr map[string]string) *reply {
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, s.base+path, rd)
	if err != nil {
		return &reply{readErr: err}
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	for k, v := range hdr {
		if k == "Host" {
			req.Host = v
		} else if v == "" {
			req.Header.Del(k)
		} else {
			req.Header.Set(k, v)
		}
	}
	res, err := s.client.Do(req)
	if err != nil {
		return &reply{readErr: err}
	}
	defer res.Body.Close()
	r := &reply{status: res.StatusCode, header: res.Header}
	r.body, r.readErr = io.ReadAll(res.Body)
	_ = json.Unmarshal(r.body, &r.problem)
	return r
}

// expect records a check of one reply.
func (s *suite) expect(name, expected string, r *reply, ok bool) bool {
	s.record(name, expected, r.String(), ok && r.readErr == nil)
	return ok && r.readErr == nil
}

// patient sends a request again after the Retry-After of each 429/503,
// as a well-behaved client does, for at most a minute.
func (s *suite) patient(method, path, body string) *reply {
	deadline := time.Now().Add(time.Minute)
	for {
		r := s.do(method, path, body, nil)
		if !r.retryable() || time.Now().After(deadline) {
			return r
		}
		wait, _ := strconv.Atoi(r.header.Get("Retry-After"))
		time.Sleep(time.Duration(max(wait, 1)) * time.Second)
	}
}

func (s *suite) protocol() {
	spec := `{"scenario":"dining-philosophers","seed":7}`
	evil := map[string]string{"Origin": "https://evil.example", "Sec-Fetch-Site": "cross-site"}
	r := s.do("POST", "/api/v1/runs", spec, map[string]string{"Content-Type": "text/plain", "Origin": "https://evil.example", "Sec-Fetch-Site": "cross-site"})
	s.expect("cross-site text/plain POST /runs", "403 or 415 problem", r, (r.status == 403 || r.status == 415) && r.isProblem())
	r = s.do("POST", "/api/v1/runs", spec, map[string]string{"Content-Type": ""})
	s.expect("POST /runs without Content-Type", "415 problem", r, r.status == 415 && r.isProblem())
	r = s.do("POST", "/api/v1/runs", spec, evil)
	s.expect("cross-site JSON POST /runs", "403 problem (Origin)", r, r.status == 403 && r.problem.Field == "Origin")
	r = s.do("POST", "/api/v1/searches", `{"scenario":"dining-philosophers","strategy":"random"}`, evil)
	s.expect("cross-site POST /searches", "403 problem (Origin)", r, r.status == 403 && r.problem.Field == "Origin")
	r = s.do("GET", "/api/v1/scenarios", "", map[string]string{"Host": "evil.example:" + portOf(s.host)})
	s.expect("DNS rebinding: Host evil.example", "421 problem (Host)", r, r.status == 421 && r.problem.Field == "Host")
	r = s.do("POST", "/api/v1/runs", `{"scenario":"dining-philosophers","seed":1,"seed":2}`, nil)
	s.expect("duplicate JSON key", "400 naming seed", r, r.status == 400 && r.problem.Field == "seed")
	r = s.do("DELETE", "/api/v1/runs", "", nil)
	s.expect("405", "405 with Allow: POST", r, r.status == 405 && r.header.Get("Allow") == "POST")
	r = s.do("HEAD", "/healthz", "", nil)
	s.expect("HEAD /healthz", "200", r, r.status == 200)
	r = s.do("POST", "/api/v1/runs", `{"scenario":"dining-philosophers","params":{"x":"`+strings.Repeat("a", 2<<20)+`"}}`, nil)
	s.expect("body over 1 MiB", "413 problem", r, r.status == 413 && r.isProblem())
	r = s.do("POST", "/api/v1/runs", `{"scenario":`, nil)
	s.expect("malformed JSON", "400 problem", r, r.status == 400 && r.isProblem())

	created := s.do("POST", "/api/v1/runs", spec, nil)
	if !s.expect("same-origin POST /runs", "201", created, created.status == 201) {
		return
	}
	var sum struct{ ID string }
	_ = json.Unmarshal(created.body, &sum)
	s.keepRun(sum.ID)
	for _, c := range []struct {
		name string
		opts *websocket.DialOptions
		want int
	}{
		{"WebSocket from a foreign Origin", &websocket.DialOptions{HTTPHeader: http.Header{"Origin": {"https://evil.example"}}}, 403},
		{"WebSocket through a rebound DNS name", &websocket.DialOptions{Host: "evil.example:" + portOf(s.host)}, 421},
	} {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		conn, res, err := websocket.Dial(ctx, "ws://"+s.host+"/api/v1/session", c.opts)
		got := fmt.Sprint(err)
		ok := false
		if res != nil {
			got = strconv.Itoa(res.StatusCode)
			ok = res.StatusCode == c.want
		}
		if conn != nil {
			conn.CloseNow()
		}
		cancel()
		s.record(c.name, strconv.Itoa(c.want)+" before any work", got, ok)
	}
}

func portOf(host string) string { return host[strings.LastIndex(host, ":")+1:] }

func (s *suite) keepRun(id string) {
	s.mu.Lock()
	s.runIDs = append(s.runIDs, id)
	s.mu.Unlock()
}

// inSchema posts specs drawn inside the published schema of every
// scenario, as runs and as searches, several at a time.
func (s *suite) inSchema() {
	reg := catalog.New()
	type outcome struct{ run, search *reply }
	outs := make([]outcome, s.sc.specs)
	var wg sync.WaitGroup
	sem := make(chan struct{}, s.sc.parallel)
	for i := range outs {
		spec := reg.Sample(rand.New(rand.NewPCG(uint64(i), 4242)))
		spec.MaxSteps = 2000
		body, _ := json.Marshal(spec)
		search, _ := json.Marshal(map[string]any{"scenario": spec.Scenario, "preset": spec.Preset, "variant": spec.Variant,
			"params": spec.Params, "strategy": "random", "budget": map[string]any{"runs": 2, "seconds": 1}})
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			outs[i] = outcome{run: s.do("POST", "/api/v1/runs", string(body), nil), search: s.do("POST", "/api/v1/searches", string(search), nil)}
		}()
	}
	wg.Wait()
	var created, refused, waited, bad int
	var badGot []string
	fieldOK := regexp.MustCompile(`^params\.`)
	for _, o := range outs {
		switch r := o.run; {
		case r.status == 201:
			created++
			var sum struct{ ID string }
			_ = json.Unmarshal(r.body, &sum)
			s.keepRun(sum.ID)
		case r.status == 422 && fieldOK.MatchString(r.problem.Field):
			refused++
		case r.retryable():
			waited++
		default:
			bad++
			badGot = append(badGot, "run "+r.String())
		}
		switch r := o.search; {
		case r.status == 202, r.status == 422 && fieldOK.MatchString(r.problem.Field), r.retryable():
		default:
			bad++
			badGot = append(badGot, "search "+r.String())
		}
	}
	got := fmt.Sprintf("%d run, %d refused naming params, %d asked to retry", created, refused, waited)
	if bad > 0 {
		got += fmt.Sprintf("; %d other: %s", bad, strings.Join(badGot[:min(3, len(badGot))], "; "))
	}
	s.record(fmt.Sprintf("%d random specs inside the schema (runs and searches)", s.sc.specs),
		"201/202, 422 naming params.*, or 429/503 with Retry-After; no 5xx", got, bad == 0)
	r := s.do("POST", "/api/v1/runs", `{"scenario":"tarantool-raft-relay","params":{"lateFollower":1,"lateSource":1}}`, nil)
	s.expect("issue spec: lateFollower = lateSource", "422 naming params.lateSource", r, r.status == 422 && r.problem.Field == "params.lateSource")
	r = s.do("POST", "/api/v1/searches", `{"scenario":"tarantool-raft-relay","strategy":"random","params":{"script":"gh-5445","instances":1}}`, nil)
	s.expect("issue spec as a search: gh-5445 on 1 instance", "422 naming params.* (before 202)", r, r.status == 422 && fieldOK.MatchString(r.problem.Field))
}

// memory plays the issue's memory cases: the BFS search that grew 160
// MB/s, the largest run, concurrent large runs, exports and streams of a
// large run.
func (s *suite) memory() {
	budget := s.metric("racetrack_memory_budget_bytes")
	// With fingerprints a bfs state costs tens of bytes (the issue's 5 M
	// states fit in about 0.5 GiB now), so the case that can never fit
	// asks for the most the server allows, 100 M (about 8 GiB).
	issueBFS := `{"scenario":"vitess-messager","preset":"lock-level","strategy":"bfs","params":{"clients":8,"iterations":10},"budget":{"states":100000000,"seconds":300}}`
	r := s.do("POST", "/api/v1/searches", issueBFS, nil)
	s.expect("issue's BFS, 100 M states", "422 too-large-for-memory with needBytes", r,
		r.status == 422 && strings.HasSuffix(r.problem.Type, "too-large-for-memory") && r.problem.NeedBytes > 0)
	r = s.patient("POST", "/api/v1/searches", strings.Replace(issueBFS, `"states":100000000,`, "", 1))
	bfsID := ""
	if s.expect("issue's BFS, no states budget", "202 (states lowered to what fits; after Retry-After while others hold memory)", r, r.status == 202) {
		var acc struct{ ID string }
		_ = json.Unmarshal(r.body, &acc)
		bfsID = acc.ID
	}

	huge := `{"scenario":"scylla-mv-backlog","params":{"nodes":16,"shards":64,"rf":3,"writeRate":10000,"duration":3600000},"maxTime":3600000,"maxSteps":1000000}`
	r = s.do("POST", "/api/v1/runs", huge, nil)
	okHuge := r.status == 422 && strings.HasSuffix(r.problem.Type, "too-large-for-memory") || r.status == 201 || r.retryable()
	s.expect("largest run (scylla 16x64, 1 M steps)", "422 too-large-for-memory (or 201 when it fits)", r, okHuge)
	perStep := int64(5000)
	if r.problem.NeedBytes > 0 {
		perStep = r.problem.NeedBytes / 1_000_000
	}
	steps := max(budget/int64(s.sc.bigRuns)/perStep, 1000)
	big := strings.Replace(huge, `"maxSteps":1000000`, `"maxSteps":`+strconv.FormatInt(steps, 10), 1)
	replies := atOnce(s.sc.bigRuns, func(i int) *reply {
		return s.patient("POST", "/api/v1/runs", strings.Replace(big, `"scenario"`, `"seed":`+strconv.Itoa(i+1)+`,"scenario"`, 1))
	})
	var bigID string
	var got []string
	ok := true
	for _, r := range replies {
		got = append(got, r.String())
		switch {
		case r.status == 201:
			var sum struct{ ID string }
			_ = json.Unmarshal(r.body, &sum)
			bigID = sum.ID
			s.keepRun(sum.ID)
		case r.retryable():
		default:
			ok = false
		}
	}
	s.record(fmt.Sprintf("%d large runs at once (%d steps of scylla 16x64 each)", s.sc.bigRuns, steps),
		"201, after Retry-After while memory is short; no 5xx", strings.Join(compact(got), ", "), ok && bigID != "")
	if bigID != "" {
		s.exportsAndStreams(bigID)
		s.sessionBudget(bigID)
		s.viewBudget(bigID)
	}
	if bfsID != "" {
		time.Sleep(time.Duration(s.sc.bfsSeconds) * time.Second)
		r := s.do("DELETE", "/api/v1/searches/"+bfsID, "", nil)
		var st struct{ State, Error string }
		_ = json.Unmarshal(r.body, &st)
		s.record("issue's BFS after "+strconv.Itoa(s.sc.bfsSeconds)+" s", "running or done, then cancelled (not failed)",
			st.State+" "+st.Error, r.status == 200 && (st.State == "cancelled" || st.State == "done"))
	}
}

func (s *suite) exportsAndStreams(id string) {
	replies := atOnce(s.sc.exports, func(int) *reply { return s.do("GET", "/api/v1/runs/"+id+"/export?format=json", "", nil) })
	ok := true
	var got []string
	for _, r := range replies {
		switch {
		case r.status == 200 && r.readErr == nil && json.Valid(r.body):
			got = append(got, fmt.Sprintf("200 %d MB", len(r.body)>>20))
		case r.retryable():
			got = append(got, r.String())
		default:
			ok = false
			got = append(got, r.String())
		}
	}
	s.record(fmt.Sprintf("%d JSON exports of a large run at once", s.sc.exports),
		"200 with a whole, valid body, or 429/503 with Retry-After; never a cut 200", strings.Join(compact(got), ", "), ok)

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var run struct{ Spec json.RawMessage }
	_ = json.Unmarshal(s.do("GET", "/api/v1/runs/"+id, "", nil).body, &run)
	play := fmt.Sprintf(`{"id":1,"method":"open","args":{"spec":%s}}`, run.Spec)
	var conns []*websocket.Conn
	counts := map[string]int{}
	ok = true
	for range s.sc.streams {
		c, res, err := websocket.Dial(ctx, "ws://"+s.host+"/api/v1/session", nil)
		switch {
		case err == nil:
			counts["101"]++
			conns = append(conns, c)
		case res != nil && (res.StatusCode == 429 || res.StatusCode == 503):
			counts[strconv.Itoa(res.StatusCode)]++
		default:
			ok = false
			counts[fmt.Sprint(err)]++
		}
	}
	for _, c := range conns {
		c.SetReadLimit(-1)
		err := c.Write(ctx, websocket.MessageText, []byte(play))
		if err == nil {
			_, _, err = c.Read(ctx)
		}
		if err != nil {
			ok = false
			counts["read error"]++
		}
	}
	for _, c := range conns {
		c.Close(websocket.StatusNormalClosure, "")
	}
	s.record(fmt.Sprintf("%d session sockets opening a large run", s.sc.streams), "101 (and an answer), or 429/503", fmt.Sprint(counts), ok)
}

func compact(xs []string) []string {
	n := map[string]int{}
	var order []string
	for _, x := range xs {
		if n[x] == 0 {
			order = append(order, x)
		}
		n[x]++
	}
	out := make([]string, len(order))
	for i, x := range order {
		out[i] = fmt.Sprintf("%d× %s", n[x], x)
	}
	return out
}

// searchFlood posts many long searches at once: the queue fills, the
// rest are refused with Retry-After; every accepted one can be read and
// cancelled.
func (s *suite) searchFlood() {
	long := `{"scenario":"dining-philosophers","variant":"fixed","strategy":"random","budget":{"runs":1000000,"seconds":120}}`
	ids := make([]string, s.sc.searches)
	codes := make([]int, s.sc.searches)
	bad := make([]string, s.sc.searches)
	var wg sync.WaitGroup
	sem := make(chan struct{}, s.sc.parallel*4)
	for i := range ids {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			r := s.do("POST", "/api/v1/searches", long, nil)
			codes[i] = r.status
			switch {
			case r.status == 202:
				var acc struct{ ID string }
				_ = json.Unmarshal(r.body, &acc)
				ids[i] = acc.ID
			case r.retryable():
			default:
				bad[i] = r.String()
			}
		}()
	}
	wg.Wait()
	count := map[int]int{}
	for _, c := range codes {
		count[c]++
	}
	bad = slices.DeleteFunc(bad, func(x string) bool { return x == "" })
	s.record(fmt.Sprintf("%d long searches at once", s.sc.searches), "202 until the queue is full, then 429/503 with Retry-After",
		fmt.Sprint(count), len(bad) == 0 && count[202] > 0)
	cancelled, wrong := 0, 0
	for _, id := range ids {
		if id == "" {
			continue
		}
		r := s.do("DELETE", "/api/v1/searches/"+id, "", nil)
		var st struct{ State string }
		_ = json.Unmarshal(r.body, &st)
		if r.status == 200 && (st.State == "cancelled" || st.State == "done") {
			cancelled++
			s.mu.Lock()
			s.done = append(s.done, id)
			s.mu.Unlock()
		} else {
			wrong++
		}
	}
	s.record("cancel every accepted search", "200 cancelled", fmt.Sprintf("%d cancelled, %d not", cancelled, wrong), wrong == 0)
}

// slowloris opens n connections that send a request's headers and never
// finish them: the server must close each once its header timeout (5 s)
// passes, while it goes on serving everyone else. It returns at once and
// records its check when wait is called.
func (s *suite) slowloris(n int) (wait func()) {
	var conns []net.Conn
	for range n {
		c, err := net.DialTimeout("tcp", s.host, 5*time.Second)
		if err != nil {
			break
		}
		_, _ = io.WriteString(c, "GET /healthz HTTP/1.1\r\nHost: "+s.host+"\r\nX-Slow: ")
		conns = append(conns, c)
	}
	return func() {
		closed := 0
		for _, c := range conns {
			_ = c.SetReadDeadline(time.Now().Add(10 * time.Second))
			if _, err := c.Read(make([]byte, 1)); err != nil && !isTimeout(err) {
				closed++
			}
			_ = c.Close()
		}
		s.record(fmt.Sprintf("%d connections that never finish their headers", n), "all closed by the server (header timeout)",
			fmt.Sprintf("%d of %d opened, %d closed by the server", len(conns), n, closed), len(conns) == n && closed == n)
	}
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// survivors checks, after a restart, that every acknowledged run and
// every finished search is still there.
func (s *suite) survivors(when string) {
	lost := 0
	for _, id := range s.runIDs {
		if r := s.do("GET", "/api/v1/runs/"+id, "", nil); r.status != 200 && !r.retryable() {
			lost++
		}
	}
	for _, id := range s.done {
		r := s.do("GET", "/api/v1/searches/"+id, "", nil)
		var st struct{ State string }
		_ = json.Unmarshal(r.body, &st)
		if r.status != 200 || (st.State != "cancelled" && st.State != "done") {
			lost++
		}
	}
	s.record(when, "every acknowledged run and finished search resolves",
		fmt.Sprintf("%d runs, %d searches, %d lost", len(s.runIDs), len(s.done), lost), lost == 0)
}

// metric reads one unlabelled value from the server's /metrics.
func (s *suite) metric(name string) int64 {
	v, _ := harness.ScrapeMetric(s.client, s.base, name)
	return int64(v)
}

// atOnce sends n requests at once (send(i) sends the i-th) and returns
// their replies in order.
func atOnce(n int, send func(i int) *reply) []*reply {
	replies := make([]*reply, n)
	var wg sync.WaitGroup
	for i := range replies {
		wg.Add(1)
		go func() {
			defer wg.Done()
			replies[i] = send(i)
		}()
	}
	wg.Wait()
	return replies
}

// concurrently sends n requests at once and counts their outcomes; ok is
// whether every reply is one good accepts.
func (s *suite) concurrently(n int, send func() *reply, good func(*reply) bool) (map[string]int, bool) {
	counts, ok := map[string]int{}, true
	for _, r := range atOnce(n, func(int) *reply { return send() }) {
		counts[r.String()]++
		ok = ok && good(r)
	}
	return counts, ok
}
