package serve

import (
	"crypto/rand"
	"crypto/tls"
	"encoding/base64"
	"flag"
	"log/slog"
	"net"
	"net/url"

	"github.com/racetrack-sim/racetrack/api"
	"github.com/racetrack-sim/racetrack/internal/cluster"
)

// Environment variables of the HTTP tokens (when no file gives them).
const (
	EnvToken         = "RACETRACK_TOKEN"
	EnvReadOnlyToken = "RACETRACK_READ_ONLY_TOKEN"
)

// httpAuthFlags are the flags of the HTTP server's TLS and tokens.
type httpAuthFlags struct {
	cert, key, tokenFile, readOnlyFile *string
	protectProbes                      *bool
}

func authFlags(fs *flag.FlagSet) *httpAuthFlags {
	return &httpAuthFlags{
		cert:          fs.String("tls-cert", "", "PEM certificate to serve HTTPS with; required on an address other machines reach unless -insecure"),
		key:           fs.String("tls-key", "", "PEM key of -tls-cert"),
		tokenFile:     fs.String("token-file", "", "file holding the access token (default: $"+EnvToken+", else generated and printed with a login URL when -addr is not loopback)"),
		readOnlyFile:  fs.String("read-only-token-file", "", "file holding a read-only token: views runs, searches and exports, starts nothing (default: $"+EnvReadOnlyToken+")"),
		protectProbes: fs.Bool("protect-probes", false, "require the token for /metrics and /healthz too (default: open, as Prometheus and orchestrators expect)"),
	}
}

// httpAccess is what the flags decided: the auth of the API (nil on
// loopback without a token) and the TLS configuration (nil: plain).
type httpAccess struct {
	auth      *api.Auth
	tls       *tls.Config
	token     string // the full token
	generated bool
	loopback  bool
}

func newToken() string {
	b := make([]byte, 32)
	_, _ = rand.Read(b) // crypto/rand.Read never fails (Go 1.24+)
	return base64.RawURLEncoding.EncodeToString(b)
}

// resolve reads the tokens and the certificate for addr: loopback needs
// neither; any other address needs a token (generated if none is given)
// and TLS unless insecure.
func (f *httpAuthFlags) resolve(addr string, insecure bool) (*httpAccess, error) {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, &UsageError{Msg: "-addr " + quote(addr) + ": " + err.Error()}
	}
	acc := &httpAccess{loopback: cluster.IsLoopback(host)}
	if (*f.cert == "") != (*f.key == "") {
		return nil, &UsageError{Msg: "-tls-cert and -tls-key go together"}
	}
	if *f.cert != "" {
		pair, err := tls.LoadX509KeyPair(*f.cert, *f.key)
		if err != nil {
			return nil, &UsageError{Msg: "-tls-cert/-tls-key: " + err.Error()}
		}
		acc.tls = &tls.Config{Certificates: []tls.Certificate{pair}, MinVersion: tls.VersionTLS12}
	}
	if !acc.loopback && acc.tls == nil && !insecure {
		return nil, &UsageError{Msg: "-addr " + quote(addr) + " is reachable from other machines: serve it with TLS (-tls-cert, -tls-key) or accept plain text (tokens readable on the wire) with -insecure"}
	}
	if acc.token, err = readSecret("-token-file", *f.tokenFile, EnvToken); err != nil {
		return nil, err
	}
	readOnly, err := readSecret("-read-only-token-file", *f.readOnlyFile, EnvReadOnlyToken)
	if err != nil {
		return nil, err
	}
	for _, t := range []struct{ flag, v string }{{"-token-file", acc.token}, {"-read-only-token-file", readOnly}} {
		if t.v != "" && len(t.v) < 16 {
			return nil, &UsageError{Msg: t.flag + ": a token has at least 16 characters"}
		}
	}
	if acc.token != "" && acc.token == readOnly {
		return nil, &UsageError{Msg: "-read-only-token-file: the read-only token is the full token"}
	}
	if acc.loopback && acc.token == "" && readOnly == "" {
		return acc, nil // loopback: unchanged, no token
	}
	if acc.token == "" {
		acc.token, acc.generated = newToken(), true
	}
	acc.auth = &api.Auth{Tokens: []api.Token{{Secret: acc.token}}, ProtectProbes: *f.protectProbes, SecureCookie: acc.tls != nil}
	if readOnly != "" {
		acc.auth.Tokens = append(acc.auth.Tokens, api.Token{Secret: readOnly, ReadOnly: true})
	}
	return acc, nil
}

// announce logs the address, a warning when it is beyond loopback, and
// the login URL with a generated token (as Jupyter prints its own).
func (acc *httpAccess) announce(logger *slog.Logger, listen string) {
	scheme := "http"
	if acc.tls != nil {
		scheme = "https"
	}
	if !acc.loopback {
		logger.Warn("listening beyond loopback: every request needs the token", "addr", listen, "tls", acc.tls != nil)
	}
	if acc.auth == nil {
		return
	}
	if acc.generated {
		u := url.URL{Scheme: scheme, Host: listen, Path: "/login", RawQuery: api.TokenParam + "=" + url.QueryEscape(acc.token)}
		logger.Info("open the page with this login URL (a generated token; REST and WebSocket clients send Authorization: Bearer TOKEN)", "url", u.String())
		return
	}
	logger.Info("the page's login URL is /login?token=TOKEN with the token given")
}
