// Package serve is the server's command line and startup, shared by
// cmd/server and `racetrack serve`: flags, the store, the page's files,
// listening, and the graceful shutdown on SIGINT/SIGTERM.
package serve

import (
	"context"
	"embed"
	"errors"
	"flag"
	"io"
	iofs "io/fs"
	"log/slog"
	"net"
	"net/http"
	"os"
	"runtime/debug"
	"strings"
	"time"

	"github.com/racetrack-sim/racetrack/api"
	"github.com/racetrack-sim/racetrack/core/catalog"
	"github.com/racetrack-sim/racetrack/static"
	"github.com/racetrack-sim/racetrack/web"
)

// Usage is the one-line synopsis of the server's flags.
const Usage = "[-addr HOST:PORT] [-data FILE] [-allow-origin PATTERNS] [-allowed-hosts NAMES] [-memory-budget SIZE] [-static DIR]"

// Run parses args (name is the command as the user typed it, for the
// usage text), serves until ctx ends, then shuts down gracefully. ready,
// if not nil, is called with the listening address. A -h is
// flag.ErrHelp; stray arguments are an error.
func Run(ctx context.Context, name string, args []string, logOut io.Writer, ready func(addr string)) error {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(logOut)
	addr := fs.String("addr", "127.0.0.1:8080", "address to listen on")
	data := fs.String("data", "racetrack.db", "path of the store file (created if missing)")
	allow := fs.String("allow-origin", "", "comma-separated extra WebSocket origin host patterns, e.g. localhost:5173")
	hosts := fs.String("allowed-hosts", "", "comma-separated DNS names (patterns) the server answers to besides IP literals, localhost and the -addr host, e.g. racetrack.example.org")
	memFlag := fs.String("memory-budget", "", "memory the server may use, e.g. 4GiB (default: a quarter of the machine's or the cgroup's memory); work that does not fit is refused")
	staticDir := fs.String("static", "", "serve the browser app from this directory instead of the files built into the binary")
	maxRunSteps := fs.Int("max-run-steps", 0, "the most steps a run may take (0: enough for every preset's defaults); below a preset's default it is an error")
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

	budget, err := memoryBudget(*memFlag)
	if err != nil {
		return &UsageError{Msg: "-memory-budget: " + err.Error()}
	}
	debug.SetMemoryLimit(int64(float64(budget) * gcShare))

	logger := slog.New(slog.NewTextHandler(logOut, nil))
	store, err := api.OpenStore(*data)
	if err != nil {
		return err
	}
	defer store.Close()

	srv, err := api.New(api.Config{
		Registry:     catalog.New(),
		Store:        store,
		Logger:       logger,
		AllowOrigins: splitList(*allow),
		AllowedHosts: append(splitList(*hosts), bindHost(*addr)...),
		MemoryBudget: int64(float64(budget) * workShare),
		HeapLimit:    int64(float64(budget) * heapShare),
		Static:       Files(*staticDir, static.Built(), logger),
		MaxRunSteps:  *maxRunSteps,
	})
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		_ = srv.Shutdown(context.Background())
		return err
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
	logger.Info("serving", "addr", "http://"+ln.Addr().String(), "data", *data, "memoryBudget", budget)
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

// noWasm holds the engine.json served by a binary that carries no wasm
// build (a plain `go install`): "engine": "server" makes the page use the
// server without probing for app.wasm, and "wasm": false says the in-tab
// engine cannot load here.
//
//go:embed nowasm/engine.json
var noWasm embed.FS

// Files are the page's files: a directory given on the command line, or
// the ones built into the binary. When the binary holds no wasm build,
// engine.json says so (nowasm/engine.json) ahead of web/engine.json, so the
// page runs on the server engine instead of failing to load app.wasm.
func Files(dir string, wasmBuilt bool, logger *slog.Logger) []iofs.FS {
	if dir != "" {
		return []iofs.FS{os.DirFS(dir)}
	}
	if !wasmBuilt {
		logger.Info("this binary holds no app.wasm: the page runs on the server engine only (`make wasm`, then build again, to embed the in-tab engine)")
		sub, err := iofs.Sub(noWasm, "nowasm")
		if err != nil {
			panic(err) // the embedded directory is part of this package
		}
		return []iofs.FS{sub, web.Files, static.FS()}
	}
	return []iofs.FS{web.Files, static.FS()}
}
