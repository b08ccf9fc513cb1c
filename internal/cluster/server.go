package cluster

import (
	"errors"
	"fmt"
	"net"
	"os"
	"strconv"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
)

// Embedded is a NATS server with JetStream running in this process.
type Embedded struct {
	srv *server.Server
}

// EmbeddedOptions configure an embedded server.
type EmbeddedOptions struct {
	// Dir is where JetStream stores its streams (created if missing).
	Dir string
	// Listen is a host:port to accept clients on (other machines' workers);
	// empty means in-process connections only.
	Listen string
}

// StartEmbedded starts an embedded NATS server with JetStream under
// opts.Dir and waits until it accepts connections.
func StartEmbedded(opts EmbeddedOptions) (*Embedded, error) {
	if opts.Dir == "" {
		return nil, errors.New("cluster: the embedded NATS server needs a directory for JetStream")
	}
	if err := os.MkdirAll(opts.Dir, 0o755); err != nil {
		return nil, fmt.Errorf("cluster: JetStream directory: %w", err)
	}
	so := &server.Options{
		ServerName: "racetrack",
		JetStream:  true,
		StoreDir:   opts.Dir,
		DontListen: opts.Listen == "",
		NoSigs:     true,
		NoLog:      true,
	}
	if opts.Listen != "" {
		host, port, err := net.SplitHostPort(opts.Listen)
		if err != nil {
			return nil, fmt.Errorf("cluster: -nats-listen %q: %w", opts.Listen, err)
		}
		p, err := strconv.Atoi(port)
		if err != nil || p < 0 || p > 65535 {
			return nil, fmt.Errorf("cluster: -nats-listen %q: port %q is not a port number", opts.Listen, port)
		}
		if p == 0 {
			p = server.RANDOM_PORT // nats-server reads 0 as its default, 4222
		}
		so.Host, so.Port = host, p
	}
	srv, err := server.NewServer(so)
	if err != nil {
		return nil, fmt.Errorf("cluster: embedded NATS: %w", err)
	}
	srv.Start()
	if !srv.ReadyForConnections(10 * time.Second) {
		srv.Shutdown()
		return nil, errors.New("cluster: the embedded NATS server did not start within 10s")
	}
	return &Embedded{srv: srv}, nil
}

// Connect opens a new in-process client connection (one per worker, so
// that a worker's connection can fail alone).
func (e *Embedded) Connect(name string) (*nats.Conn, error) {
	return nats.Connect("", append(connOptions(name), nats.InProcessServer(e.srv))...)
}

// ClientURL is the address other machines connect to ("" when the server
// listens in-process only).
func (e *Embedded) ClientURL() string {
	if e.srv.Addr() == nil {
		return ""
	}
	return e.srv.ClientURL()
}

// Shutdown stops the server and waits until it is down.
func (e *Embedded) Shutdown() {
	e.srv.Shutdown()
	e.srv.WaitForShutdown()
}

// Dial connects to an external NATS server or cluster (a comma-separated
// list of URLs).
func Dial(url, name string) (*nats.Conn, error) {
	nc, err := nats.Connect(url, connOptions(name)...)
	if err != nil {
		return nil, fmt.Errorf("cluster: connect to NATS at %s: %w", url, err)
	}
	return nc, nil
}

// connOptions retry a lost connection for ever: a search notices a
// cluster that stays away (see Coordinator), a worker just waits.
func connOptions(name string) []nats.Option {
	return []nats.Option{
		nats.Name(name),
		nats.MaxReconnects(-1),
		nats.ReconnectWait(250 * time.Millisecond),
		nats.RetryOnFailedConnect(false),
	}
}
