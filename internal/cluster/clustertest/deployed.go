// Package clustertest starts the NATS cluster of deploy/compose.yaml and
// deploy/kubernetes.yaml here, without docker: three nats-servers in this
// process configured by deploy/nats.conf itself (TLS for clients and
// routes, Racetrack's account and users), on 127.0.0.1, with a CA and
// certificates made for the test.
package clustertest

import (
	"fmt"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"

	"github.com/racetrack-sim/racetrack/internal/cluster"
	"github.com/racetrack-sim/racetrack/internal/testcerts"
)

// Deployed is a running cluster and what its clients need.
type Deployed struct {
	Servers []*server.Server
	// URLs is the client URL list, as -nats takes it.
	URLs string
	// Certs are the CA (CAFile: -nats-ca) and the servers' certificate.
	Certs                          *testcerts.Set
	CoordinatorAuth, WorkerAuth    cluster.ClientAuth
	CoordinatorPassword, WorkerPwd string
}

// ConfigPath is deploy/nats.conf.
func ConfigPath() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "..", "deploy", "nats.conf")
}

func freePorts(t testing.TB, n int) []int {
	t.Helper()
	var ports []int
	var ls []net.Listener
	for i := 0; i < n; i++ {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		ls = append(ls, l)
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	for _, l := range ls {
		l.Close()
	}
	return ports
}

// Start runs three servers from deploy/nats.conf, its certificate paths
// and store directory pointed at the test's, its passwords in the
// environment as the deploy files set them; each server gets its name,
// ports and routes as the deploy files give them on the command line.
func Start(t testing.TB) *Deployed {
	t.Helper()
	dir := t.TempDir()
	certs, err := testcerts.Make(dir, "127.0.0.1", "localhost")
	if err != nil {
		t.Fatal(err)
	}
	conf, err := os.ReadFile(ConfigPath())
	if err != nil {
		t.Fatal(err)
	}
	d := &Deployed{Certs: certs, CoordinatorPassword: cluster.NewPassword(), WorkerPwd: cluster.NewPassword()}
	t.Setenv("RT_NATS_COORDINATOR_PASSWORD", d.CoordinatorPassword)
	t.Setenv("RT_NATS_WORKER_PASSWORD", d.WorkerPwd)
	text := strings.NewReplacer(
		"/etc/racetrack/tls/tls.crt", certs.CertFile,
		"/etc/racetrack/tls/tls.key", certs.KeyFile,
		"/etc/racetrack/tls/ca.crt", certs.CAFile,
	).Replace(string(conf))
	ports := freePorts(t, 6)
	var routes []*url.URL
	for i := 0; i < 3; i++ {
		routes = append(routes, &url.URL{Scheme: "nats", Host: fmt.Sprintf("127.0.0.1:%d", ports[3+i])})
	}
	var clients []string
	for i := 0; i < 3; i++ {
		store := filepath.Join(dir, fmt.Sprint("data", i))
		path := filepath.Join(dir, fmt.Sprintf("nats-%d.conf", i+1))
		if err := os.WriteFile(path, []byte(strings.Replace(text, "store_dir: /data", "store_dir: \""+store+"\"", 1)), 0o600); err != nil {
			t.Fatal(err)
		}
		so, err := server.ProcessConfigFile(path)
		if err != nil {
			t.Fatalf("deploy/nats.conf: %v", err)
		}
		so.ServerName = fmt.Sprintf("nats-%d", i+1)
		so.Host, so.Port = "127.0.0.1", ports[i]
		so.Cluster.Host, so.Cluster.Port = "127.0.0.1", ports[3+i]
		so.Routes = routes
		so.NoSigs, so.NoLog = true, true
		s, err := server.NewServer(so)
		if err != nil {
			t.Fatal(err)
		}
		go s.Start()
		t.Cleanup(s.Shutdown)
		d.Servers = append(d.Servers, s)
		clients = append(clients, fmt.Sprintf("nats://127.0.0.1:%d", ports[i]))
	}
	for _, s := range d.Servers {
		if !s.ReadyForConnections(20 * time.Second) {
			t.Fatalf("NATS server %s not ready", s.Name())
		}
	}
	deadline := time.Now().Add(30 * time.Second)
	for !leader(d.Servers) {
		if time.Now().After(deadline) {
			t.Fatal("no JetStream meta leader after 30s")
		}
		time.Sleep(100 * time.Millisecond)
	}
	d.URLs = strings.Join(clients, ",")
	d.CoordinatorAuth = cluster.ClientAuth{User: cluster.CoordinatorUser, Password: d.CoordinatorPassword, CAFile: certs.CAFile}
	d.WorkerAuth = cluster.ClientAuth{User: cluster.WorkerUser, Password: d.WorkerPwd, CAFile: certs.CAFile}
	return d
}

func leader(servers []*server.Server) bool {
	for _, s := range servers {
		if s.JetStreamIsLeader() {
			return true
		}
	}
	return false
}
