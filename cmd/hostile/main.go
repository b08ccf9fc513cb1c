// Command hostile plays an adversary against a Racetrack server on this
// machine and checks every answer against its expected outcome: cross-site
// and DNS-rebinding requests, malformed and duplicate-keyed bodies, specs
// drawn inside the published schema, the searches and runs that used to
// exhaust memory, concurrent exports and streams of a large run, a search
// flood, connections that never finish their headers (slowloris),
// requests without a token (or with a read-only one) to a server that
// requires one, a NATS attacker (no password; then a malicious worker:
// subscribing to the queue, injecting tasks, cancel floods, deleting
// streams, forged "kept 0" and "nothing found"), and (with -server)
// kill -9 twice during a search. Meanwhile it
// times /healthz every 50 ms and, with -server, reads the server's peak
// resident memory (VmHWM) to compare with its budget.
//
//	go build -o /tmp/rtserver ./cmd/server
//	go run ./cmd/hostile -server /tmp/rtserver -scale full -budget 2GiB
//
// Without -server the server runs in this process (no memory or kill
// figures); with -addr it targets a running server, which must be on a
// loopback address. Everything is bounded by the scale (small: about a
// minute on two cores; full: the sizes). The exit status is 1
// when any check fails.
package main

import (
	"flag"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/racetrack-sim/racetrack/api"
	"github.com/racetrack-sim/racetrack/internal/harness"
)

type options struct {
	scale  string
	server string // the cmd/server binary to run as a child
	addr   string // a running server
	port   int
	budget string
}

func main() {
	var o options
	flag.StringVar(&o.scale, "scale", "small", "small (CI) or full (the issue's sizes)")
	flag.StringVar(&o.server, "server", "", "path of a cmd/server binary to run as a child on a temporary store (enables the memory and kill -9 checks)")
	flag.StringVar(&o.addr, "addr", "", "a running server on a loopback address, host:port")
	flag.IntVar(&o.port, "port", 18017, "port of the child server")
	flag.StringVar(&o.budget, "budget", "", "the child's -memory-budget (default 512MiB small, 2GiB full)")
	flag.Parse()
	rep, err := run(o)
	if err != nil {
		fmt.Fprintln(os.Stderr, "hostile:", err)
		os.Exit(2)
	}
	rep.print(os.Stdout)
	if !rep.passed() {
		os.Exit(1)
	}
}

// report is what a suite run found.
type report struct {
	scale    string
	checks   []check
	health   []time.Duration
	healthKO int
	peakRSS  int64 // bytes, 0 when unknown
	budget   int64
	elapsed  time.Duration
}

func (r *report) passed() bool {
	return !slices.ContainsFunc(r.checks, func(c check) bool { return !c.OK })
}

func (r *report) print(w *os.File) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "case\texpected\tgot\t")
	for _, c := range r.checks {
		mark := "ok"
		if !c.OK {
			mark = "FAIL"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", c.Case, c.Expected, c.Got, mark)
	}
	_ = tw.Flush()
	h := slices.Clone(r.health)
	slices.Sort(h)
	if len(h) > 0 {
		fmt.Fprintf(w, "\n/healthz: %d probes, %d failed; p50 %v, p99 %v, max %v\n", len(h)+r.healthKO, r.healthKO,
			h[len(h)/2].Round(10*time.Microsecond), h[len(h)*99/100].Round(10*time.Microsecond), h[len(h)-1].Round(10*time.Microsecond))
	}
	if r.peakRSS > 0 {
		fmt.Fprintf(w, "server peak RSS %d MiB of a %d MiB budget (%.0f %%)\n", r.peakRSS>>20, r.budget>>20, 100*float64(r.peakRSS)/float64(r.budget))
	}
	fmt.Fprintf(w, "scale %s, %v\n", r.scale, r.elapsed.Round(time.Second))
}

func run(o options) (*report, error) {
	sc, ok := scales[o.scale]
	if !ok {
		return nil, fmt.Errorf("unknown -scale %q: small or full", o.scale)
	}
	if o.budget == "" {
		o.budget = map[string]string{"small": "512MiB", "full": "2GiB"}[sc.name]
	}
	start := time.Now()
	rep := &report{scale: sc.name}
	var t *target
	var err error
	switch {
	case o.addr != "":
		t, err = remote(o.addr)
	case o.server != "":
		t, err = child(o.server, o.port, o.budget)
	default:
		t, err = inProcess(o.budget)
	}
	if err != nil {
		return nil, err
	}
	defer t.stop()
	rep.budget = t.budget

	s := newSuite(t.base, sc)
	probe := startHealthProbe(t.base)
	slow := s.slowloris(sc.slow)
	s.protocol()
	s.inSchema()
	s.memory()
	s.searchFlood()
	s.traces()
	s.authAttacks()
	s.natsAttacks()
	slow()
	rep.health, rep.healthKO = probe.stop()
	if t.cmd != nil {
		rep.peakRSS = harness.PeakRSS(t.cmd.Process.Pid)
		s.record("server peak RSS (VmHWM)", "under its -memory-budget", fmt.Sprintf("%d MiB of %d MiB", rep.peakRSS>>20, rep.budget>>20), rep.peakRSS < rep.budget)
		s.crashes(t)
	}
	rep.checks = s.checks
	rep.elapsed = time.Since(start)
	return rep, nil
}

// target is the server under test.
type target struct {
	base   string
	budget int64 // the -memory-budget, when this program set it
	cmd    *exec.Cmd
	args   []string
	stop   func()
}

func remote(addr string) (*target, error) {
	base, err := harness.Loopback(addr)
	if err != nil {
		return nil, err
	}
	return &target{base: base, stop: func() {}}, nil
}

// inProcess serves the API from this process on a temporary store.
func inProcess(budget string) (*target, error) {
	b, err := harness.ParseSize(budget)
	if err != nil {
		return nil, err
	}
	srv, err := harness.StartInProcess(func(c *api.Config) {
		c.MemoryBudget, c.HeapLimit = b*6/10, b*3/4 // as cmd/server splits -memory-budget
	})
	if err != nil {
		return nil, err
	}
	return &target{base: srv.URL, budget: b, stop: srv.Stop}, nil
}

// child runs the server binary on a temporary store.
func child(bin string, port int, budget string) (*target, error) {
	b, err := harness.ParseSize(budget)
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "racetrack-hostile-")
	if err != nil {
		return nil, err
	}
	addr := "127.0.0.1:" + strconv.Itoa(port)
	t := &target{base: "http://" + addr, budget: b, args: []string{"-addr", addr, "-data", filepath.Join(dir, "hostile.db"), "-memory-budget", budget}}
	if err := t.start(bin); err != nil {
		_ = os.RemoveAll(dir)
		return nil, err
	}
	t.stop = func() {
		_ = t.cmd.Process.Signal(os.Interrupt)
		_ = t.cmd.Wait()
		_ = os.RemoveAll(dir)
	}
	return t, nil
}

func (t *target) start(bin string) error {
	t.cmd = exec.Command(bin, t.args...)
	t.cmd.Stderr = nil
	if err := t.cmd.Start(); err != nil {
		return err
	}
	if err := harness.WaitHealthy(t.base, 30*time.Second); err != nil {
		_ = t.cmd.Process.Kill()
		_ = t.cmd.Wait()
		return err
	}
	return nil
}

// crashes kills the child with SIGKILL twice while a search runs: after
// each restart nothing acknowledged is lost; the search is resumed once,
// then failed rather than resumed again (no crash loop).
func (s *suite) crashes(t *target) {
	long := `{"scenario":"dining-philosophers","variant":"fixed","strategy":"random","budget":{"runs":1000000,"seconds":120}}`
	r := s.do("POST", "/api/v1/searches", long, nil)
	if !s.expect("a long search before kill -9", "202", r, r.status == 202) {
		return
	}
	id := strings.TrimSuffix(strings.TrimPrefix(string(r.body), `{"id":"`), "\"}\n")
	time.Sleep(500 * time.Millisecond)
	for round := 1; round <= 2; round++ {
		_ = t.cmd.Process.Kill()
		_ = t.cmd.Wait()
		if err := t.start(t.cmd.Path); err != nil {
			s.record(fmt.Sprintf("restart after kill -9 #%d", round), "the server comes up", err.Error(), false)
			return
		}
		s.survivors(fmt.Sprintf("after kill -9 #%d", round))
		r := s.do("GET", "/api/v1/searches/"+id, "", nil)
		got := string(r.body)
		if round == 1 {
			s.record("the search after the first crash", `resumed once ("resumed":1)`, truncate(got, 120), strings.Contains(got, `"resumed":1`))
		} else {
			s.record("the search after the second crash", "failed, not resumed again", truncate(got, 120),
				strings.Contains(got, `"state":"failed"`) && strings.Contains(got, "not resumed again"))
		}
	}
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// healthProbe times GET /healthz every 50 ms.
type healthProbe struct {
	mu     sync.Mutex
	lat    []time.Duration
	failed int
	done   chan struct{}
	wg     sync.WaitGroup
}

func startHealthProbe(base string) *healthProbe {
	p := &healthProbe{done: make(chan struct{})}
	client := &http.Client{Timeout: 10 * time.Second}
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		t := time.NewTicker(50 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-p.done:
				return
			case <-t.C:
			}
			t0 := time.Now()
			res, err := client.Get(base + "/healthz")
			d := time.Since(t0)
			p.mu.Lock()
			if err != nil || res.StatusCode != 200 {
				p.failed++
			} else {
				p.lat = append(p.lat, d)
			}
			p.mu.Unlock()
			if err == nil {
				res.Body.Close()
			}
		}
	}()
	return p
}

func (p *healthProbe) stop() ([]time.Duration, int) {
	close(p.done)
	p.wg.Wait()
	return p.lat, p.failed
}
