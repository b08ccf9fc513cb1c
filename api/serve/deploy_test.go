package serve

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/racetrack-sim/racetrack/core/catalog"
	"github.com/racetrack-sim/racetrack/internal/cluster"
	"github.com/racetrack-sim/racetrack/internal/cluster/clustertest"
)

// The server and a worker started as deploy/compose.yaml and
// deploy/kubernetes.yaml start them (the same flags and environment; on
// 127.0.0.1 instead of 0.0.0.0), on the NATS cluster deploy/nats.conf
// configures: HTTPS only, no request without the token, and a distributed
// search with the token runs on the TLS, password-protected cluster.
func TestDeployedServer(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a cluster of three NATS servers")
	}
	d := clustertest.Start(t)
	t.Setenv(EnvToken, "deployed-token-0123456789abcdef")
	t.Setenv(cluster.EnvPassword, d.CoordinatorPassword)
	ctx, cancel := context.WithCancel(context.Background())
	addrs := make(chan string, 1)
	done := make(chan error, 1)
	var log syncBuffer
	go func() {
		done <- Run(ctx, builtin(), "racetrack serve", []string{"-addr", "127.0.0.1:0", "-data", filepath.Join(t.TempDir(), "racetrack.db"),
			"-tls-cert", d.Certs.CertFile, "-tls-key", d.Certs.KeyFile,
			"-nats", d.URLs, "-nats-replicas", "3", "-nats-ca", d.Certs.CAFile, "-nats-workers", "-1"}, &log, func(a string) { addrs <- a })
	}()
	var addr string
	select {
	case addr = <-addrs:
	case err := <-done:
		cancel()
		t.Fatalf("server did not start: %v\n%s", err, log.String())
	}
	defer func() { cancel(); require.NoError(t, <-done) }()
	workers := make(chan error, 1)
	wctx, stopWorkers := context.WithCancel(context.Background())
	go func() { workers <- cluster.RunWorkers(wctx, catalog.New(), d.URLs, d.WorkerAuth, 2, cluster.Options{}) }()
	defer func() { stopWorkers(); require.NoError(t, <-workers) }()

	client := &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: d.Certs.Roots}}}
	call := func(method, path, body, token string) (int, []byte) {
		req, _ := http.NewRequest(method, "https://"+addr+path, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		res, err := client.Do(req)
		require.NoError(t, err)
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res.StatusCode, b
	}
	search := `{"scenario":"dining-philosophers","preset":"lock-level","strategy":"bfs","params":{"philosophers":3},"distributed":true}`
	status, _ := call(http.MethodPost, "/api/v1/searches", search, "")
	assert.Equal(t, http.StatusUnauthorized, status, "a search without the token")
	status, body := call(http.MethodPost, "/api/v1/searches", search, "deployed-token-0123456789abcdef")
	require.Equal(t, http.StatusAccepted, status, "%s", body)
	var started struct{ ID string }
	require.NoError(t, json.Unmarshal(body, &started))
	deadline := time.Now().Add(2 * time.Minute)
	for {
		_, body = call(http.MethodGet, "/api/v1/searches/"+started.ID, "", "deployed-token-0123456789abcdef")
		var st struct {
			State  string
			Error  string
			Result *struct{ Found bool }
		}
		require.NoError(t, json.Unmarshal(body, &st))
		if st.State != "queued" && st.State != "running" {
			require.Equal(t, "done", st.State, "%s", body)
			require.NotNil(t, st.Result)
			assert.True(t, st.Result.Found, "the buggy philosophers deadlock")
			break
		}
		require.True(t, time.Now().Before(deadline), "the search did not end: %s", body)
		time.Sleep(100 * time.Millisecond)
	}
	assert.NotContains(t, log.String(), d.CoordinatorPassword, "the NATS password is not logged")
}
