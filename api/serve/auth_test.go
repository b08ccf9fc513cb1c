package serve

import (
	"context"
	"crypto/tls"
	"flag"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/racetrack-sim/racetrack/internal/testcerts"
)

func resolveArgs(t *testing.T, addr string, insecure bool, args ...string) (*httpAccess, error) {
	t.Helper()
	fs := flag.NewFlagSet("t", flag.ContinueOnError)
	f := authFlags(fs)
	require.NoError(t, fs.Parse(args))
	return f.resolve(addr, insecure)
}

// Beyond loopback: no TLS is refused unless -insecure; a token is always
// required, generated when none is given. On loopback nothing changes.
func TestBeyondLoopbackNeedsTLSAndAToken(t *testing.T) {
	t.Setenv(EnvToken, "")
	t.Setenv(EnvReadOnlyToken, "")
	for _, addr := range []string{"0.0.0.0:8080", ":8080", "192.0.2.1:8080", "racetrack.example:8080"} {
		_, err := resolveArgs(t, addr, false)
		var ue *UsageError
		require.ErrorAs(t, err, &ue, addr)
		assert.Contains(t, err.Error(), "-tls-cert")
	}
	acc, err := resolveArgs(t, "0.0.0.0:8080", true)
	require.NoError(t, err)
	require.NotNil(t, acc.auth, "plain text beyond loopback still needs a token")
	assert.True(t, acc.generated)
	assert.GreaterOrEqual(t, len(acc.token), 40)

	certs, err := testcerts.Make(t.TempDir(), "127.0.0.1")
	require.NoError(t, err)
	acc, err = resolveArgs(t, "0.0.0.0:8443", false, "-tls-cert", certs.CertFile, "-tls-key", certs.KeyFile)
	require.NoError(t, err)
	require.NotNil(t, acc.tls)
	assert.True(t, acc.auth.SecureCookie)

	for _, addr := range []string{"127.0.0.1:8080", "localhost:8080", "[::1]:8080"} {
		acc, err := resolveArgs(t, addr, false)
		require.NoError(t, err, addr)
		assert.Nil(t, acc.auth, addr)
	}
	_, err = resolveArgs(t, "127.0.0.1:8080", false, "-tls-cert", certs.CertFile)
	assert.ErrorContains(t, err, "go together")
	short := filepath.Join(t.TempDir(), "short")
	require.NoError(t, os.WriteFile(short, []byte("abc\n"), 0o600))
	_, err = resolveArgs(t, "127.0.0.1:8080", false, "-token-file", short)
	assert.ErrorContains(t, err, "at least 16")
}

// A server with a certificate and a token (here on loopback, where a
// given token is enforced too) serves HTTPS, prints the login URL's
// form, refuses requests without the token and answers with it; a read-
// only token from the environment views and starts nothing.
func TestServeWithTLSAndToken(t *testing.T) {
	certs, err := testcerts.Make(t.TempDir(), "127.0.0.1")
	require.NoError(t, err)
	tokenFile := filepath.Join(t.TempDir(), "token")
	require.NoError(t, os.WriteFile(tokenFile, []byte("a-token-of-enough-length-42\n"), 0o600))
	t.Setenv(EnvReadOnlyToken, "read-only-token-of-length")
	ctx, cancel := context.WithCancel(context.Background())
	addrs := make(chan string, 1)
	done := make(chan error, 1)
	var log syncBuffer
	go func() {
		done <- Run(ctx, builtin(), "server", []string{"-addr", "127.0.0.1:0", "-data", filepath.Join(t.TempDir(), "db"),
			"-tls-cert", certs.CertFile, "-tls-key", certs.KeyFile, "-token-file", tokenFile}, &log, func(a string) { addrs <- a })
	}()
	var addr string
	select {
	case addr = <-addrs:
	case err := <-done:
		t.Fatalf("server did not start: %v\n%s", err, log.String())
	}
	defer func() { cancel(); require.NoError(t, <-done) }()
	client := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: certs.Roots}}}
	get := func(method, path, token string) int {
		req, _ := http.NewRequest(method, "https://"+addr+path, strings.NewReader(`{"scenario":"dining-philosophers","seed":1}`))
		req.Header.Set("Content-Type", "application/json")
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		res, err := client.Do(req)
		require.NoError(t, err)
		_, _ = io.Copy(io.Discard, res.Body)
		res.Body.Close()
		return res.StatusCode
	}
	assert.Equal(t, http.StatusUnauthorized, get(http.MethodGet, "/api/v1/scenarios", ""))
	assert.Equal(t, http.StatusOK, get(http.MethodGet, "/api/v1/scenarios", "a-token-of-enough-length-42"))
	assert.Equal(t, http.StatusOK, get(http.MethodGet, "/api/v1/scenarios", "read-only-token-of-length"))
	assert.Equal(t, http.StatusForbidden, get(http.MethodPost, "/api/v1/runs", "read-only-token-of-length"))
	assert.Equal(t, http.StatusCreated, get(http.MethodPost, "/api/v1/runs", "a-token-of-enough-length-42"))
	assert.Regexp(t, regexp.MustCompile(`addr=https://127\.0\.0\.1:\d+`), log.String())
	assert.NotContains(t, log.String(), "a-token-of-enough-length-42", "a given token is not printed")
	res, err := http.Get("http://" + addr + "/healthz")
	require.NoError(t, err)
	res.Body.Close()
	assert.Equal(t, http.StatusBadRequest, res.StatusCode, "plain HTTP on the TLS port")
}
