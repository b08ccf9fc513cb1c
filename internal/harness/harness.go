// Package harness is what the load and hostile commands (cmd/loadtest,
// cmd/hostile) share: a Racetrack server of their own on 127.0.0.1 (in
// this process or a child), the check that a target they were given is
// on this machine, the peak resident memory of a process (VmHWM), and
// values read from a server's /metrics.
package harness

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/racetrack-sim/racetrack/api"
	"github.com/racetrack-sim/racetrack/core/catalog"
)

// Loopback returns the base URL of addr (host:port, or http://host:port)
// when every address it names is on this machine: these tools attack or
// load only their own machine's servers.
func Loopback(addr string) (string, error) {
	addr = strings.TrimPrefix(addr, "http://")
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return "", err
	}
	ips, err := net.LookupIP(host)
	if err != nil || len(ips) == 0 {
		return "", fmt.Errorf("resolve %s: %v", host, err)
	}
	if slices.ContainsFunc(ips, func(ip net.IP) bool { return !ip.IsLoopback() }) {
		return "", fmt.Errorf("%s is not a loopback address; this tool only targets servers on this machine", addr)
	}
	return "http://" + addr, nil
}

// Server is a Racetrack server on 127.0.0.1 with a temporary store.
type Server struct {
	URL  string
	API  *api.Server
	Stop func()
}

// StartInProcess serves the built-in catalog from this process on a
// temporary store. config, if not nil, adjusts the api.Config first.
func StartInProcess(config func(*api.Config)) (*Server, error) {
	dir, err := os.MkdirTemp("", "racetrack-harness-")
	if err != nil {
		return nil, err
	}
	store, err := api.OpenStore(filepath.Join(dir, "racetrack.db"))
	if err != nil {
		_ = os.RemoveAll(dir)
		return nil, err
	}
	cfg := api.Config{Registry: catalog.New(), Store: store, Logger: slog.New(slog.DiscardHandler)}
	if config != nil {
		config(&cfg)
	}
	srv, err := api.New(cfg)
	if err != nil {
		_ = store.Close()
		_ = os.RemoveAll(dir)
		return nil, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		_ = srv.Shutdown(context.Background())
		_ = store.Close()
		_ = os.RemoveAll(dir)
		return nil, err
	}
	hs := &http.Server{Handler: srv.Handler(), ReadHeaderTimeout: 5 * time.Second, WriteTimeout: 2 * time.Minute}
	go func() { _ = hs.Serve(ln) }()
	return &Server{URL: "http://" + ln.Addr().String(), API: srv, Stop: func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		_ = hs.Shutdown(ctx)
		_ = srv.Shutdown(ctx)
		_ = store.Close()
		_ = os.RemoveAll(dir)
	}}, nil
}

// WaitHealthy polls base/healthz until it answers 200 or timeout passes.
func WaitHealthy(base string, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		if res, err := http.Get(base + "/healthz"); err == nil {
			res.Body.Close()
			if res.StatusCode == http.StatusOK {
				return nil
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	return fmt.Errorf("the server at %s did not come up within %v", base, timeout)
}

// PeakRSS is a process's peak resident set size (VmHWM), 0 when it
// cannot be read; pid 0 is this process.
func PeakRSS(pid int) int64 {
	path := "/proc/self/status"
	if pid != 0 {
		path = "/proc/" + strconv.Itoa(pid) + "/status"
	}
	f, err := os.Open(path)
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "VmHWM:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			return kb << 10
		}
	}
	return 0
}

// Metric reads one unlabelled value from a /metrics body.
func Metric(body []byte, name string) (float64, bool) {
	m := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(name) + ` (\S+)$`).FindSubmatch(body)
	if m == nil {
		return 0, false
	}
	v, err := strconv.ParseFloat(string(m[1]), 64)
	return v, err == nil
}

// ScrapeMetric reads one unlabelled value from base/metrics.
func ScrapeMetric(client *http.Client, base, name string) (float64, bool) {
	res, err := client.Get(base + "/metrics")
	if err != nil {
		return 0, false
	}
	defer res.Body.Close()
	b, err := io.ReadAll(io.LimitReader(res.Body, 16<<20))
	if err != nil {
		return 0, false
	}
	return Metric(b, name)
}

// ParseSize reads 512MiB, 2GiB or a number of bytes.
func ParseSize(s string) (int64, error) {
	for _, u := range []struct {
		suffix string
		mult   int64
	}{{"GiB", 1 << 30}, {"MiB", 1 << 20}} {
		if n, ok := strings.CutSuffix(s, u.suffix); ok {
			v, err := strconv.ParseInt(n, 10, 64)
			return v * u.mult, err
		}
	}
	return strconv.ParseInt(s, 10, 64)
}
