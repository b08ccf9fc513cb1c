// Command server serves Racetrack: the v1 API, its WebSocket streams and
// the browser app.
//
//	server -addr 127.0.0.1:8080 -data ./racetrack.db
//
// It serves the page and the wasm build embedded in its binary (packages
// web and static: build the wasm first, as `make run` does), or with
// -static DIR the files of DIR. SIGINT or SIGTERM shut it
// down gracefully: requests in flight finish, streams close with a
// going-away status, running searches are kept in the store and resume
// on the next start.
package main

import (
	"context"
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
	"strings"
	"syscall"
	"time"

	"github.com/racetrack-sim/racetrack/api"
	"github.com/racetrack-sim/racetrack/core/catalog"
	"github.com/racetrack-sim/racetrack/static"
	"github.com/racetrack-sim/racetrack/web"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stderr, nil); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			os.Exit(2)
		}
		fmt.Fprintln(os.Stderr, "server:", err)
		os.Exit(1)
	}
}

// run serves until ctx ends, then shuts down gracefully. ready, if not
// nil, is called with the listening address.
func run(ctx context.Context, args []string, logOut io.Writer, ready func(addr string)) error {
	fs := flag.NewFlagSet("server", flag.ContinueOnError)
	fs.SetOutput(logOut)
	addr := fs.String("addr", "127.0.0.1:8080", "address to listen on")
	data := fs.String("data", "racetrack.db", "path of the store file (created if missing)")
	allow := fs.String("allow-origin", "", "comma-separated extra WebSocket origin host patterns, e.g. localhost:5173")
	staticDir := fs.String("static", "", "serve the browser app from this directory instead of the files built into the binary")
	if err := fs.Parse(args); err != nil {
		return err
	}

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
		Static:       staticFiles(*staticDir, logger),
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
	logger.Info("serving", "addr", "http://"+ln.Addr().String(), "data", *data)
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

func splitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// staticFiles are the page's files: a directory given on the command
// line, or the ones built into the binary.
func staticFiles(dir string, logger *slog.Logger) []iofs.FS {
	if dir != "" {
		return []iofs.FS{os.DirFS(dir)}
	}
	if !static.Built() {
		logger.Warn("this binary holds no app.wasm: the page cannot load its engine; run `make wasm`, then build the server again (make run does both)")
	}
	return []iofs.FS{web.Files, static.FS()}
}
