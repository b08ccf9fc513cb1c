// Command loadtest drives a Racetrack server on this machine with N
// concurrent session WebSockets (/api/v1/session) stepping through runs
// plus REST traffic, and reports errors, step latency (p50, p99: from
// sending a state request for the next step to decoding its reply, what
// one step of the page costs over the socket) and peak memory.
//
//	go run ./cmd/loadtest -sockets 500 -duration 30s
//
// Without -addr it starts the server on 127.0.0.1 with a temporary store
// in a child process (-inprocess: in this one), so that the load
// generator and the server are apart as a server and its browsers are.
// With -addr it targets a running server, which must be on the loopback
// interface. Peak memory is the server's, from its /metrics. Everything is
// bounded: at most 5000 sockets and 5 minutes, and every loop stops at the
// deadline.
package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"os/exec"
	"runtime"
	"runtime/pprof"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/coder/websocket"

	"github.com/racetrack-sim/racetrack/core/session"
	"github.com/racetrack-sim/racetrack/internal/harness"
)

type options struct {
	addr     string
	streams  int
	duration time.Duration
	rest     int
	restRate float64
	speed    int
	runs     int
	ramp     time.Duration
	profile  string
	heap     string
	inProc   bool
}

func main() {
	var o options
	flag.StringVar(&o.addr, "addr", "", "server to load (loopback only); empty: start one in this process")
	flag.IntVar(&o.streams, "sockets", 500, "concurrent session sockets (at most 5000)")
	flag.DurationVar(&o.duration, "duration", 30*time.Second, "how long to hold the load (at most 5m)")
	flag.IntVar(&o.rest, "rest", 8, "concurrent REST clients")
	flag.Float64Var(&o.restRate, "rest-rate", 100, "REST requests per second, all clients together (at most 5000)")
	flag.IntVar(&o.speed, "speed", 20, "steps per second each socket asks for")
	flag.IntVar(&o.runs, "runs", 16, "distinct runs the sockets step through")
	flag.DurationVar(&o.ramp, "ramp", 3*time.Second, "time over which the sockets connect")
	flag.StringVar(&o.profile, "cpuprofile", "", "write a CPU profile of this process (client and in-process server) to this file")
	flag.StringVar(&o.heap, "memprofile", "", "write a heap profile at the end of the load to this file")
	flag.BoolVar(&o.inProc, "inprocess", false, "run the server in this process instead of a child process")
	serve := flag.Bool("serve", false, "internal: be the child server process")
	flag.Parse()
	if *serve {
		if err := serveChild(); err != nil {
			fmt.Fprintln(os.Stderr, "loadtest server:", err)
			os.Exit(1)
		}
		return
	}
	if err := run(o); err != nil {
		fmt.Fprintln(os.Stderr, "loadtest:", err)
		os.Exit(1)
	}
}

func run(o options) error {
	if o.streams < 0 || o.streams > 5000 || o.duration <= 0 || o.duration > 5*time.Minute || o.rest < 0 || o.rest > 256 || o.runs < 1 ||
		!(o.restRate > 0 && o.restRate <= 5000) {
		return errors.New("bounds: 0 <= sockets <= 5000, 0 < duration <= 5m, 0 <= rest <= 256, 0 < rest-rate <= 5000, runs >= 1")
	}
	base, stop, err := target(o.addr, o.inProc)
	if err != nil {
		return err
	}
	defer stop()

	if o.profile != "" {
		f, err := os.Create(o.profile)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
	}
	mem := startMemorySampler(base, o.addr == "" && o.inProc)
	specs, ids, err := createRuns(base, o.runs)
	if err != nil {
		return err
	}
	fmt.Printf("load: %d session sockets stepping at %d steps/s, %d REST clients at %.0f requests/s, %s, against %s (GOMAXPROCS=%d)\n",
		o.streams, o.speed, o.rest, o.restRate, o.duration, base, runtime.GOMAXPROCS(0))

	load0, cpu0, wall0 := loadAverage(), cpuTime(), time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), o.duration+o.ramp)
	defer cancel()
	st := &stats{restLat: map[string][]time.Duration{}}
	var wg sync.WaitGroup
	for i := range o.streams {
		wg.Add(1)
		go func() {
			defer wg.Done()
			delay := time.Duration(int64(o.ramp) * int64(i) / int64(max(o.streams, 1)))
			select {
			case <-time.After(delay):
			case <-ctx.Done():
				return
			}
			stepper(ctx, base, specs[i%len(specs)], o.speed, st)
		}()
	}
	for range o.rest {
		wg.Add(1)
		go func() {
			defer wg.Done()
			restClient(ctx, base, ids, time.Duration(float64(o.rest)/o.restRate*float64(time.Second)), st)
		}()
	}
	if o.heap != "" {
		<-ctx.Done()
		if err := writeHeapProfile(o.heap); err != nil {
			return err
		}
	}
	wg.Wait()
	report(st, mem.stop())
	fmt.Printf("this process used %.2f cores; load average %s at the start, %s at the end (the machine is shared)\n",
		(cpuTime()-cpu0).Seconds()/time.Since(wall0).Seconds(), load0, loadAverage())
	if st.errors.Load() > 0 {
		return fmt.Errorf("%d errors", st.errors.Load())
	}
	return nil
}

// target returns the base URL to load: addr (which must be a loopback
// address), or a server of our own, in a child process (as a real
// deployment would be: apart from its clients) or in this one.
func target(addr string, inProc bool) (string, func(), error) {
	switch {
	case addr != "":
		base, err := harness.Loopback(addr)
		return base, func() {}, err
	case inProc:
		srv, err := harness.StartInProcess(nil)
		if err != nil {
			return "", nil, err
		}
		return srv.URL, srv.Stop, nil
	}
	return startChild()
}

// serveChild is the child process: it serves until its stdin closes (the
// parent ended, whatever way), having printed its URL.
func serveChild() error {
	srv, err := harness.StartInProcess(nil)
	if err != nil {
		return err
	}
	defer srv.Stop()
	fmt.Println(srv.URL)
	_, _ = io.Copy(io.Discard, os.Stdin)
	return nil
}

// startChild runs this program as the server in a child process and
// returns its URL; stop ends it through its stdin and waits.
func startChild() (string, func(), error) {
	exe, err := os.Executable()
	if err != nil {
		return "", nil, err
	}
	cmd := exec.Command(exe, "-serve")
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return "", nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return "", nil, err
	}
	if err := cmd.Start(); err != nil {
		return "", nil, err
	}
	stop := func() {
		_ = stdin.Close()
		_ = cmd.Wait()
	}
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		stop()
		return "", nil, fmt.Errorf("server child: %w", err)
	}
	return strings.TrimSpace(line), stop, nil
}

var client = &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: 64}}

// createRuns makes the runs the sockets step through: long philosopher
// tables. It returns their specs and ids.
func createRuns(base string, n int) ([]string, []string, error) {
	var specs, ids []string
	for seed := 1; seed <= n; seed++ {
		body := fmt.Sprintf(`{"scenario":"dining-philosophers","seed":%d,"params":{"philosophers":12,"meals":100}}`, seed)
		var sum struct{ ID string }
		if err := postJSON(base+"/api/v1/runs", body, http.StatusCreated, &sum); err != nil {
			return nil, nil, err
		}
		specs, ids = append(specs, body), append(ids, sum.ID)
	}
	return specs, ids, nil
}

func postJSON(url, body string, want int, out any) error {
	res, err := client.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		return err
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		return err
	}
	if res.StatusCode != want {
		return fmt.Errorf("POST %s: %d %s", url, res.StatusCode, b)
	}
	if out != nil {
		return json.Unmarshal(b, out)
	}
	return nil
}

type stats struct {
	errors    atomic.Int64
	frames    atomic.Int64
	restOK    atomic.Int64
	streamsUp atomic.Int64

	mu       sync.Mutex
	frameLat []time.Duration
	restLat  map[string][]time.Duration // by route
	samples  []string
}

func (s *stats) fail(format string, args ...any) {
	if s.errors.Add(1) <= 5 {
		s.mu.Lock()
		s.samples = append(s.samples, fmt.Sprintf(format, args...))
		s.mu.Unlock()
	}
}

func (s *stats) addFrames(lat []time.Duration) {
	s.mu.Lock()
	s.frameLat = append(s.frameLat, lat...)
	s.mu.Unlock()
}

// reply is a session message as the load generator reads it.
type reply struct {
	ID     int             `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  *session.Error  `json:"error"`
}

// stepper is one page's session: it opens a run over the socket and steps
// through it at speed steps per second (a state request per step, the
// next step at a time, and a step filter now and then), until ctx ends.
func stepper(ctx context.Context, base, spec string, speed int, st *stats) {
	url := "ws" + strings.TrimPrefix(base, "http") + "/api/v1/session"
	c, res, err := websocket.Dial(ctx, url, nil)
	if res != nil && res.Body != nil {
		res.Body.Close()
	}
	if err != nil {
		if ctx.Err() == nil {
			st.fail("dial: %v", err)
		}
		return
	}
	defer c.CloseNow()
	c.SetReadLimit(1 << 22)
	st.streamsUp.Add(1)
	rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 7))
	lat := make([]time.Duration, 0, 1024)
	defer func() { st.addFrames(lat) }()
	id := 0
	call := func(method, args string) (json.RawMessage, bool) {
		id++
		if err := c.Write(ctx, websocket.MessageText, []byte(fmt.Sprintf(`{"id":%d,"method":%q,"args":%s}`, id, method, args))); err != nil {
			if ctx.Err() == nil {
				st.fail("write: %v", err)
			}
			return nil, false
		}
		for {
			_, b, err := c.Read(ctx)
			if err != nil {
				if ctx.Err() == nil {
					st.fail("read: %v", err)
				}
				return nil, false
			}
			var r reply
			if err := json.Unmarshal(b, &r); err != nil {
				st.fail("decode: %v", err)
				return nil, false
			}
			if r.ID != id {
				continue
			}
			if r.Error != nil {
				st.fail("%s: %s %s: %s", method, r.Error.Code, r.Error.Field, r.Error.Message)
				return nil, false
			}
			return r.Result, true
		}
	}
	out, ok := call("open", `{"spec":`+spec+`}`)
	if !ok {
		return
	}
	var sum struct {
		ID    string
		Steps int
	}
	if err := json.Unmarshal(out, &sum); err != nil || sum.Steps == 0 {
		st.fail("open: %v (%d steps)", err, sum.Steps)
		return
	}
	step := rng.IntN(sum.Steps)
	tick := time.NewTicker(time.Second / time.Duration(max(speed, 1)))
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		step = (step + 1) % sum.Steps
		t0 := time.Now()
		if rng.IntN(50) == 0 {
			if _, ok := call("find", fmt.Sprintf(`{"run":%q,"step":%d,"kind":"lock"}`, sum.ID, step)); !ok {
				return
			}
		} else if _, ok := call("state", fmt.Sprintf(`{"run":%q,"step":%d}`, sum.ID, step)); !ok {
			return
		}
		lat = append(lat, time.Since(t0))
		st.frames.Add(1)
	}
}

// restClient mixes the REST routes a page uses, one request per interval
// on average, until ctx ends.
func restClient(ctx context.Context, base string, ids []string, interval time.Duration, st *stats) {
	rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 11))
	lat := map[string][]time.Duration{}
	defer func() {
		st.mu.Lock()
		for route, l := range lat {
			st.restLat[route] = append(st.restLat[route], l...)
		}
		st.mu.Unlock()
	}()
	for ctx.Err() == nil {
		id := ids[rng.IntN(len(ids))]
		var method, path, body, route string
		want := http.StatusOK
		switch rng.IntN(6) {
		case 0:
			method, path, route = "GET", "/api/v1/runs/"+id, "GET /runs/{id}"
		case 1:
			method, path, route = "GET", fmt.Sprintf("/api/v1/runs/%s/steps?from=%d&limit=50", id, rng.IntN(5000)), "GET /runs/{id}/steps"
		case 2:
			method, path, route = "GET", fmt.Sprintf("/api/v1/runs/%s/state?step=%d", id, rng.IntN(5000)), "GET /runs/{id}/state"
		case 3:
			method, path, route = "GET", "/api/v1/scenarios", "GET /scenarios"
		case 4:
			method, path, route, want = "POST", "/api/v1/runs", "POST /runs", http.StatusCreated
			body = fmt.Sprintf(`{"scenario":"dining-philosophers","seed":%d}`, rng.IntN(1_000_000))
		default:
			method, path, route = "GET", "/healthz", "GET /healthz"
		}
		t0 := time.Now()
		req, err := http.NewRequestWithContext(ctx, method, base+path, bytes.NewReader([]byte(body)))
		if err != nil {
			st.fail("request: %v", err)
			return
		}
		if body != "" {
			req.Header.Set("Content-Type", "application/json")
		}
		res, err := client.Do(req)
		if err != nil {
			if ctx.Err() == nil {
				st.fail("%s %s: %v", method, path, err)
			}
			return
		}
		_, _ = io.Copy(io.Discard, res.Body)
		res.Body.Close()
		if res.StatusCode != want {
			st.fail("%s %s: status %d", method, path, res.StatusCode)
		} else {
			st.restOK.Add(1)
			lat[route] = append(lat[route], time.Since(t0))
		}
		select {
		case <-ctx.Done():
		case <-time.After(time.Duration(float64(interval) * (0.5 + rng.Float64()))):
		}
	}
}

// memorySampler tracks peak memory: of this process (in-process server)
// or of the target server as its /metrics reports it.
type memorySampler struct {
	done     chan struct{}
	finished chan struct{}
	peakHeap uint64
	peakRSS  uint64
	remote   bool
}

func startMemorySampler(base string, local bool) *memorySampler {
	m := &memorySampler{done: make(chan struct{}), finished: make(chan struct{}), remote: !local}
	go func() {
		defer close(m.finished)
		t := time.NewTicker(250 * time.Millisecond)
		defer t.Stop()
		for {
			if local {
				var ms runtime.MemStats
				runtime.ReadMemStats(&ms)
				m.peakHeap = max(m.peakHeap, ms.HeapAlloc)
			} else if v, ok := harness.ScrapeMetric(client, base, "process_resident_memory_bytes"); ok {
				m.peakRSS = max(m.peakRSS, uint64(v))
			}
			select {
			case <-m.done:
				return
			case <-t.C:
			}
		}
	}()
	return m
}

func (m *memorySampler) stop() *memorySampler {
	close(m.done)
	<-m.finished
	if !m.remote {
		m.peakRSS = uint64(harness.PeakRSS(0))
	}
	return m
}

// cpuTime is the CPU time this process has used (user and system).
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// loadAverage is the machine's one-minute load average.
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	return strings.Fields(string(b))[0]
}

func writeHeapProfile(path string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer f.Close()
	return pprof.Lookup("heap").WriteTo(f, 0)
}

func percentile(d []time.Duration, p float64) time.Duration {
	if len(d) == 0 {
		return 0
	}
	return d[min(len(d)-1, int(p*float64(len(d))))]
}

func report(st *stats, mem *memorySampler) {
	slices.Sort(st.frameLat)
	var all []time.Duration
	routes := make([]string, 0, len(st.restLat))
	for route, l := range st.restLat {
		slices.Sort(l)
		all = append(all, l...)
		routes = append(routes, route)
	}
	slices.Sort(all)
	slices.Sort(routes)
	fmt.Printf("sockets connected: %d\n", st.streamsUp.Load())
	fmt.Printf("errors: %d\n", st.errors.Load())
	for _, s := range st.samples {
		fmt.Printf("  e.g. %s\n", s)
	}
	fmt.Printf("steps: %d\n", st.frames.Load())
	fmt.Printf("step latency: p50 %s  p99 %s  max %s\n", percentile(st.frameLat, .50).Round(10*time.Microsecond),
		percentile(st.frameLat, .99).Round(10*time.Microsecond), percentile(st.frameLat, 1).Round(10*time.Microsecond))
	fmt.Printf("REST requests ok: %d, latency p50 %s  p99 %s\n", st.restOK.Load(), percentile(all, .50).Round(10*time.Microsecond),
		percentile(all, .99).Round(10*time.Microsecond))
	for _, route := range routes {
		l := st.restLat[route]
		fmt.Printf("  %-22s %5d  p50 %s  p99 %s\n", route, len(l), percentile(l, .50).Round(10*time.Microsecond), percentile(l, .99).Round(10*time.Microsecond))
	}
	if mem.remote {
		fmt.Printf("server peak RSS: %.1f MiB\n", float64(mem.peakRSS)/(1<<20))
	} else {
		fmt.Printf("peak memory (client and server in one process): RSS %.1f MiB, Go heap %.1f MiB\n",
			float64(mem.peakRSS)/(1<<20), float64(mem.peakHeap)/(1<<20))
	}
}
