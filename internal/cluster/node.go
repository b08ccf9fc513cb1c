package cluster

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"runtime"

	"github.com/nats-io/nats.go"

	"github.com/racetrack-sim/racetrack/core/check"
	"github.com/racetrack-sim/racetrack/core/scenario"
)

// NodeOptions say how this process joins a cluster.
type NodeOptions struct {
	// URL is an external NATS server or cluster; empty starts the
	// embedded server under Dir.
	URL string
	Dir string
	// Listen makes the embedded server accept other machines' workers.
	Listen string
	// Auth is how this node connects to the external cluster at URL (as
	// the coordinator: its own workers connect with it too).
	Auth ClientAuth
	// Embedded configures the embedded server's users, TLS and limits
	// (its Dir and Listen are the fields above).
	Embedded EmbeddedOptions
	// Workers is the number of workers this process runs (0: one per
	// CPU; negative: none).
	Workers int
	Options
}

// Node is this process's part of a cluster: the embedded server if it
// runs one, a coordinator, and its workers, each on its own connection.
type Node struct {
	emb     *Embedded
	conn    *nats.Conn
	coord   *Coordinator
	workers []*Worker
}

// StartNode starts the embedded server (unless o.URL is given), the
// coordinator and the workers.
func StartNode(reg *scenario.Registry, o NodeOptions) (*Node, error) {
	n := &Node{}
	connect := func(name string) (*nats.Conn, error) { return Dial(o.URL, name, o.Auth) }
	connectWorker := connect
	if o.URL == "" {
		eo := o.Embedded
		eo.Dir, eo.Listen = o.Dir, o.Listen
		emb, err := StartEmbedded(eo)
		if err != nil {
			return nil, err
		}
		n.emb = emb
		connect, connectWorker = emb.Connect, emb.ConnectWorker
	}
	var err error
	if n.conn, err = connect("racetrack-coordinator"); err != nil {
		n.Close()
		return nil, err
	}
	if n.coord, err = NewCoordinator(n.conn, reg, o.Options); err != nil {
		n.Close()
		return nil, err
	}
	workers := o.Workers
	if workers == 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	o.Options.replicas = newReplicas() // one copy of a bfs search for the process
	for i := 0; i < workers; i++ {
		name := workerName(i)
		nc, err := connectWorker(name)
		if err != nil {
			n.Close()
			return nil, err
		}
		w, err := StartWorker(nc, reg, name, o.Options)
		if err != nil {
			nc.Close()
			n.Close()
			return nil, err
		}
		n.workers = append(n.workers, w)
	}
	return n, nil
}

// Search runs a search on the cluster (see Coordinator.Search).
func (n *Node) Search(ctx context.Context, cfg check.Config, progress func(check.Progress)) (check.Result, error) {
	return n.coord.Search(ctx, cfg, progress)
}

// ClientURL is where other machines' workers connect ("" when the
// embedded server listens in-process only or the cluster is external).
func (n *Node) ClientURL() string {
	if n.emb == nil {
		return ""
	}
	return n.emb.ClientURL()
}

// Embedded is the embedded server (nil on an external cluster).
func (n *Node) Embedded() *Embedded { return n.emb }

// Close stops the workers, the coordinator's connection and the
// embedded server.
func (n *Node) Close() {
	for _, w := range n.workers {
		w.Stop()
	}
	if n.conn != nil {
		n.conn.Close()
	}
	if n.emb != nil {
		n.emb.Shutdown()
	}
}

// RunWorkers joins the cluster at url with auth, runs workers workers
// and runs them until ctx ends: `racetrack worker`.
func RunWorkers(ctx context.Context, reg *scenario.Registry, url string, auth ClientAuth, workers int, opts Options) error {
	if url == "" {
		return errors.New("cluster: a worker needs the NATS URL of the cluster (-nats)")
	}
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	var ws []*Worker
	defer func() {
		for _, w := range ws {
			w.Stop()
		}
	}()
	opts.replicas = newReplicas() // one copy of a bfs search for the process
	for i := 0; i < workers; i++ {
		name := workerName(i)
		nc, err := Dial(url, name, auth)
		if err != nil {
			return err
		}
		w, err := StartWorker(nc, reg, name, opts)
		if err != nil {
			nc.Close()
			return err
		}
		ws = append(ws, w)
	}
	<-ctx.Done()
	return nil
}

// processTag tells this process's workers from another process's in
// their names (a search's coordinator counts the workers it hears from).
var processTag = fmt.Sprintf("%06x", rand.Uint32()>>8)

// workerName is the name of a process's i-th worker.
func workerName(i int) string { return fmt.Sprintf("racetrack-worker-%s-%d", processTag, i) }
