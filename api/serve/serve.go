// Package serve runs a Racetrack server for any registry of scenarios:
// the v1 API, its WebSocket streams and the page, with the command line
// (flags, the store, listening) and the graceful shutdown on SIGINT and
// SIGTERM. cmd/server and `racetrack serve` are this package with the
// built-in catalog; a model in another module gets the same server with a
// main of a few lines (see the examples, and examples/ownmodel):
//
//	func main() {
//		serve.Main("ownmodel", serve.Config{Registry: catalog.With(ownmodel.Scenario())})
//	}
//
// The page is served from this module (package web). Its in-tab wasm
// engine must know the same scenarios as the server, so the wasm build
// is the embedder's own: a js/wasm main that calls worker.Serve with the
// same registry (package wasm/worker), built to app.wasm next to the Go
// release's wasm_exec.js, handed over as Config.Wasm or with the -wasm
// flag. Without one the page runs on the server engine only.
package serve

import (
	"context"
	"crypto/tls"
	"embed"
	"errors"
	"flag"
	"fmt"
	"io"
	iofs "io/fs"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"runtime/debug"
	"strings"
	"syscall"
	"time"

	"github.com/racetrack-sim/racetrack/api"
	"github.com/racetrack-sim/racetrack/core/scenario"
	"github.com/racetrack-sim/racetrack/internal/cluster"
	"github.com/racetrack-sim/racetrack/web"
)

// Usage is the one-line synopsis of the server's flags.
const Usage = "[-addr HOST:PORT] [-data FILE] [-allow-origin PATTERNS] [-allowed-hosts NAMES] [-memory-budget SIZE] [-max-run-steps N] [-static DIR] [-wasm DIR] [-nats URL | -nats-listen HOST:PORT] [-nats-workers N] [-nats-replicas R] [-nats-lost-after DURATION] [-nats-tls-cert FILE -nats-tls-key FILE] [-nats-worker-password-file FILE] [-nats-password-file FILE] [-nats-ca FILE] [-nats-max-disk SIZE] [-tls-cert FILE -tls-key FILE] [-token-file FILE] [-read-only-token-file FILE] [-protect-probes] [-insecure] [-session-idle DURATION]"

// Config is what a server binary fixes at build time; the command line
// sets the rest.
type Config struct {
	// Registry is the scenarios the API and the page offer (required).
	Registry *scenario.Registry
	// Wasm holds the page's in-tab engine: app.wasm and wasm_exec.js at
	// its root, app.wasm built from a js/wasm main that serves the same
	// registry (worker.Serve). Nil, or no app.wasm in it: the page runs
	// on the server engine only. The -wasm flag takes precedence.
	Wasm iofs.FS
}

// Main is the whole of a server binary's main: it runs the server with
// os.Args until SIGINT or SIGTERM and exits with status 0 (stopped, or
// -h), 2 (a bad command line) or 1 (any other error). name is the
// command's name in messages.
func Main(name string, cfg Config) {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := Run(ctx, cfg, name, os.Args[1:], os.Stderr, nil)
	stop()
	var ue *UsageError
	switch {
	case err == nil, errors.Is(err, flag.ErrHelp):
		os.Exit(0)
	case errors.As(err, &ue):
		fmt.Fprintln(os.Stderr, name+":", err)
		os.Exit(2)
	default:
		fmt.Fprintln(os.Stderr, name+":", err)
		os.Exit(1)
	}
}

// Run parses args (name is the command as the user typed it, for the
// usage text), serves cfg's registry until ctx ends, then shuts down
// gracefully. ready, if not nil, is called with the listening address.
// A -h is flag.ErrHelp; a bad flag or a stray argument is a *UsageError.
func Run(ctx context.Context, cfg Config, name string, args []string, logOut io.Writer, ready func(addr string)) error {
	if cfg.Registry == nil {
		return errors.New("serve: Config.Registry is required")
	}
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(logOut)
	addr := fs.String("addr", "127.0.0.1:8080", "address to listen on")
	data := fs.String("data", "racetrack.db", "path of the store file (created if missing)")
	allow := fs.String("allow-origin", "", "comma-separated extra WebSocket origin host patterns, e.g. localhost:5173")
	hosts := fs.String("allowed-hosts", "", "comma-separated DNS names (patterns) the server answers to besides IP literals, localhost and the -addr host, e.g. racetrack.example.org")
	memFlag := fs.String("memory-budget", "", "memory the server may use, e.g. 4GiB (default: a quarter of the machine's or the cgroup's memory); work that does not fit is refused")
	staticDir := fs.String("static", "", "serve the browser app from this directory instead of the files built into the binary")
	maxRunSteps := fs.Int("max-run-steps", 0, "the most steps a run may take (0: enough for every preset's defaults); below a preset's default it is an error")
	wasmDir := fs.String("wasm", "", "serve the in-tab engine (app.wasm, wasm_exec.js) from this directory instead of the one built into the binary")
	natsURL := fs.String("nats", "", "run distributed searches on this NATS cluster (URLs, comma-separated) instead of the embedded one")
	natsListen := fs.String("nats-listen", "", "let workers on other machines join the embedded NATS server at HOST:PORT (default: in-process only)")
	natsWorkers := fs.Int("nats-workers", 0, "search workers this server runs for the cluster (0: one per CPU; -1: none)")
	natsReplicas := fs.Int("nats-replicas", 1, "replicas of the JetStream streams the server creates (3 on a NATS cluster of three)")
	natsLostAfter := fs.Duration("nats-lost-after", 30*time.Second, "how long a distributed search waits for an unreachable NATS cluster before it fails with the reason")
	sessionIdle := fs.Duration("session-idle", 5*time.Minute, "close a session WebSocket that sent no request and had none running for this long")
	nf := natsFlags(fs)
	af := authFlags(fs)
	insecure := fs.Bool("insecure", false, "serve plain text (HTTP, NATS) on an address other machines reach; without it such an address needs -tls-cert/-tls-key (and -nats-tls-cert/-nats-tls-key for -nats-listen)")
	fs.Usage = func() {
		out := fs.Output()
		_, _ = io.WriteString(out, "usage: "+name+" "+Usage+"\n\nServes the v1 API, its session WebSocket and search streams, and the page.\n\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return &UsageError{Msg: err.Error()}
	}
	if fs.NArg() > 0 {
		return &UsageError{Msg: "unexpected argument " + quote(fs.Arg(0))}
	}
	wasm := cfg.Wasm
	if *wasmDir != "" {
		if _, err := os.Stat(filepath.Join(*wasmDir, "app.wasm")); err != nil {
			return &UsageError{Msg: "-wasm " + quote(*wasmDir) + ": no app.wasm there"}
		}
		wasm = os.DirFS(*wasmDir)
	}
	access, err := af.resolve(*addr, *insecure)
	if err != nil {
		return err
	}
	budget, err := memoryBudget(*memFlag)
	if err != nil {
		return &UsageError{Msg: "-memory-budget: " + err.Error()}
	}
	debug.SetMemoryLimit(int64(float64(budget) * gcShare))

	logger := slog.New(slog.NewTextHandler(logOut, nil))
	var files []iofs.FS
	if *staticDir != "" {
		files = []iofs.FS{os.DirFS(*staticDir)}
	} else {
		if !HasWasm(wasm) {
			logger.Info("no app.wasm to serve: the page runs on the server engine only (build the wasm engine and pass it with -wasm DIR, or `make wasm` and build again)")
		}
		files = Files(wasm)
	}
	store, err := api.OpenStore(*data)
	if err != nil {
		return err
	}
	defer store.Close()

	if *natsURL != "" && *natsListen != "" {
		return &UsageError{Msg: "-nats and -nats-listen exclude each other: -nats-listen is for the embedded server"}
	}
	if *sessionIdle < time.Second || *sessionIdle > 24*time.Hour {
		return &UsageError{Msg: "-session-idle must be between 1s and 24h"}
	}
	if *natsReplicas < 1 || *natsReplicas > 5 {
		return &UsageError{Msg: "-nats-replicas must be between 1 and 5"}
	}
	if *natsLostAfter < time.Second || *natsLostAfter > 24*time.Hour {
		return &UsageError{Msg: "-nats-lost-after must be between 1s and 24h"}
	}
	nodeOpts := cluster.NodeOptions{URL: *natsURL, Dir: *data + ".jetstream", Listen: *natsListen, Workers: *natsWorkers,
		Options: cluster.Options{Replicas: *natsReplicas, LostAfter: *natsLostAfter}}
	if err := nf.apply(&nodeOpts, budget, *insecure); err != nil {
		return err
	}
	node, err := cluster.StartNode(cfg.Registry, nodeOpts)
	if err != nil {
		return err
	}
	defer node.Close()
	if u := node.ClientURL(); u != "" {
		nf.announce(logger, node)
	}

	srv, err := api.New(api.Config{
		Registry:     cfg.Registry,
		Store:        store,
		Logger:       logger,
		AllowOrigins: splitList(*allow),
		AllowedHosts: append(splitList(*hosts), bindHost(*addr)...),
		MemoryBudget: int64(float64(budget) * workShare),
		HeapLimit:    int64(float64(budget) * heapShare),
		Static:       files,
		MaxRunSteps:  *maxRunSteps,
		Cluster:      node,
		Auth:         access.auth,
		SessionIdle:  *sessionIdle,
	})
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		_ = srv.Shutdown(context.Background())
		return err
	}
	scheme := "http://"
	if access.tls != nil {
		ln, scheme = tls.NewListener(ln, access.tls), "https://"
	}
	hs := &http.Server{
		Handler:           srv.Handler(),
		ReadHeaderTimeout: 5 * time.Second,
		ReadTimeout:       30 * time.Second,
		WriteTimeout:      2 * time.Minute,
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    64 << 10,
		ErrorLog:          slog.NewLogLogger(logger.Handler(), slog.LevelWarn),
	}
	logger.Info("serving", "addr", scheme+ln.Addr().String(), "data", *data, "memoryBudget", budget)
	access.announce(logger, ln.Addr().String())
	serveErr := make(chan error, 1)
	go func() { serveErr <- hs.Serve(ln) }()
	if ready != nil {
		ready(ln.Addr().String())
	}

	select {
	case err := <-serveErr:
		_ = srv.Shutdown(context.Background())
		return err
	case <-ctx.Done():
	}
	logger.Info("shutting down")
	sctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	streamsDone := make(chan error, 1)
	go func() { streamsDone <- srv.Shutdown(sctx) }()
	err = hs.Shutdown(sctx)
	if serr := <-streamsDone; err == nil {
		err = serr
	}
	if e := <-serveErr; !errors.Is(e, http.ErrServerClosed) && err == nil {
		err = e
	}
	return err
}

// UsageError is a command line the server does not accept.
type UsageError struct{ Msg string }

func (e *UsageError) Error() string { return e.Msg }

func quote(s string) string { return `"` + s + `"` }

func splitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// bindHost is the host name of the listen address, when it is a name:
// the server always answers to the name it was told to listen on.
func bindHost(addr string) []string {
	host, _, err := net.SplitHostPort(addr)
	if err != nil || host == "" || net.ParseIP(host) != nil {
		return nil
	}
	return []string{host}
}

// noWasm holds the engine.json served when there is no wasm build:
// "engine": "server" makes the page use the server without probing for
// app.wasm, and "wasm": false says the in-tab engine cannot load here.
//
//go:embed nowasm/engine.json
var noWasm embed.FS

// HasWasm reports whether wasm holds an app.wasm to serve.
func HasWasm(wasm iofs.FS) bool {
	if wasm == nil {
		return false
	}
	_, err := iofs.Stat(wasm, "app.wasm")
	return err == nil
}

// Files are the page's files in the order the server searches them: the
// page of package web, then the wasm build. Without a wasm build
// (HasWasm false), engine.json says so ahead of web's, so the page runs
// on the server engine instead of failing to load app.wasm.
func Files(wasm iofs.FS) []iofs.FS {
	if !HasWasm(wasm) {
		sub, err := iofs.Sub(noWasm, "nowasm")
		if err != nil {
			panic(err) // the embedded directory is part of this package
		}
		return []iofs.FS{sub, web.Files}
	}
	return []iofs.FS{web.Files, wasm}
}
