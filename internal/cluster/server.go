package cluster

import (
	"crypto/tls"
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
	srv  *server.Server
	auth EmbeddedAuth
}

// EmbeddedAuth are the passwords of the cluster account's two users
// (see AccountConfig).
type EmbeddedAuth struct {
	Coordinator, Worker string
}

// EmbeddedOptions configure an embedded server.
type EmbeddedOptions struct {
	// Dir is where JetStream stores its streams (created if missing).
	Dir string
	// Listen is a host:port to accept clients on (other machines' workers);
	// empty means in-process connections only.
	Listen string
	// Auth are the users' passwords; empty ones are generated.
	Auth EmbeddedAuth
	// TLS is the server's certificate for Listen; required off loopback
	// unless Insecure.
	TLS      *tls.Config
	Insecure bool
	// Limits bound the account's JetStream storage.
	Limits JetStreamLimits
}

// StartEmbedded starts an embedded NATS server with JetStream under
// opts.Dir and waits until it accepts connections. Every client, even
// in-process, authenticates as the coordinator or a worker.
func StartEmbedded(opts EmbeddedOptions) (*Embedded, error) {
	if opts.Dir == "" {
		return nil, errors.New("cluster: the embedded NATS server needs a directory for JetStream")
	}
	if err := os.MkdirAll(opts.Dir, 0o755); err != nil {
		return nil, fmt.Errorf("cluster: JetStream directory: %w", err)
	}
	for _, p := range []struct{ field, pw string }{{"coordinator password", opts.Auth.Coordinator}, {"worker password", opts.Auth.Worker}} {
		if p.pw != "" {
			if err := CheckPassword(p.field, p.pw); err != nil {
				return nil, err
			}
		}
	}
	if opts.Auth.Coordinator == "" {
		opts.Auth.Coordinator = NewPassword()
	}
	if opts.Auth.Worker == "" {
		opts.Auth.Worker = NewPassword()
	}
	limits := opts.Limits.withDefaults()
	so := &server.Options{}
	if err := so.ProcessConfigString(AccountConfig(opts.Auth.Coordinator, opts.Auth.Worker, limits)); err != nil {
		return nil, fmt.Errorf("cluster: embedded NATS accounts: %w", err)
	}
	so.ServerName = "racetrack"
	so.JetStream, so.StoreDir = true, opts.Dir
	so.JetStreamMaxMemory, so.JetStreamMaxStore = limits.Memory, limits.Store
	so.DontListen = opts.Listen == ""
	so.NoSigs, so.NoLog = true, true
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
		if opts.TLS == nil && !opts.Insecure && !IsLoopback(host) {
			return nil, fmt.Errorf("cluster: -nats-listen %q is reachable from other machines: give the NATS server a certificate (-nats-tls-cert, -nats-tls-key) or accept plain text with -insecure", opts.Listen)
		}
		so.Host, so.Port = host, p
		if opts.TLS != nil {
			so.TLSConfig, so.TLS, so.TLSVerify = opts.TLS, true, false
			so.TLSTimeout = 5
		}
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
	return &Embedded{srv: srv, auth: opts.Auth}, nil
}

// IsLoopback reports whether host names only this machine.
func IsLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// Auth are the users' passwords (generated ones included).
func (e *Embedded) Auth() EmbeddedAuth { return e.auth }

// WorkerAuth is what a worker on another machine connects with.
func (e *Embedded) WorkerAuth() ClientAuth {
	return ClientAuth{User: WorkerUser, Password: e.auth.Worker}
}

// CoordinatorAuth is what a coordinator connects with.
func (e *Embedded) CoordinatorAuth() ClientAuth {
	return ClientAuth{User: CoordinatorUser, Password: e.auth.Coordinator}
}

// Connect opens a new in-process client connection as the coordinator.
func (e *Embedded) Connect(name string) (*nats.Conn, error) {
	return e.ConnectAs(name, e.CoordinatorAuth())
}

// ConnectWorker opens a new in-process connection as a worker (one per
// worker, so that a worker's connection can fail alone), with a
// worker's permissions.
func (e *Embedded) ConnectWorker(name string) (*nats.Conn, error) {
	return e.ConnectAs(name, e.WorkerAuth())
}

// ConnectAs opens an in-process connection with auth.
func (e *Embedded) ConnectAs(name string, auth ClientAuth) (*nats.Conn, error) {
	return nats.Connect("", append(connOptions(name, auth), nats.InProcessServer(e.srv))...)
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
// list of URLs) with auth.
func Dial(url, name string, auth ClientAuth) (*nats.Conn, error) {
	nc, err := nats.Connect(url, connOptions(name, auth)...)
	if err != nil {
		return nil, fmt.Errorf("cluster: connect to NATS at %s: %w", url, err)
	}
	return nc, nil
}
