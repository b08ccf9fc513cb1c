package api

import (
	"crypto/sha256"
	"crypto/subtle"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// Token is a secret that opens the server to whoever holds it.
type Token struct {
	Secret string
	// ReadOnly tokens view runs, searches and exports and start nothing:
	// only GET and HEAD, and no session socket (a session runs specs).
	ReadOnly bool
}

// Auth is how a server reachable from other machines authenticates its
// clients (Config.Auth; nil: no authentication, for loopback).
type Auth struct {
	Tokens []Token
	// ProtectProbes puts /metrics and /healthz behind a token too; by
	// default they stay open, as Prometheus and orchestrators expect.
	ProtectProbes bool
	// SecureCookie marks the login cookie Secure (the server is on TLS).
	SecureCookie bool
}

// AuthCookie is the cookie the login URL sets for the page.
const AuthCookie = "racetrack_token"

// TokenParam is the query parameter of the login URL (and of a share
// link with a token): the server sets the cookie and redirects to the
// same URL without it, so the token does not stay in the address bar.
const TokenParam = "token"

func init() {
	problemTypes["unauthorized"] = problemType{http.StatusUnauthorized, "Authentication required",
		"This server is reachable from other machines and needs a token: send it as Authorization: Bearer TOKEN (REST and the session WebSocket), or open the login URL the server printed at startup (/login?token=TOKEN) to get a cookie for the page."}
	problemTypes["read-only"] = problemType{http.StatusForbidden, "Read-only token",
		"The token given views runs, searches and exports but starts nothing: no POST, DELETE or session socket. Ask the operator for a full token."}
}

// digests are the tokens' SHA-256 digests: comparing digests of equal
// length in constant time says nothing about a token's length or prefix.
type tokenDigest struct {
	sum      [32]byte
	readOnly bool
}

func digestTokens(ts []Token) []tokenDigest {
	out := make([]tokenDigest, len(ts))
	for i, t := range ts {
		out[i] = tokenDigest{sum: sha256.Sum256([]byte(t.Secret)), readOnly: t.ReadOnly}
	}
	return out
}

// match finds the token secret is (every token is compared, in constant
// time).
func match(ds []tokenDigest, secret string) (tokenDigest, bool) {
	if secret == "" {
		return tokenDigest{}, false
	}
	sum := sha256.Sum256([]byte(secret))
	var found tokenDigest
	ok := 0
	for _, d := range ds {
		if subtle.ConstantTimeCompare(sum[:], d.sum[:]) == 1 {
			found, ok = d, 1
		}
	}
	return found, ok == 1
}

// presented is the token a request carries: the bearer header, else the
// cookie.
func presented(r *http.Request) string {
	if h := r.Header.Get("Authorization"); h != "" {
		if t, ok := strings.CutPrefix(h, "Bearer "); ok {
			return strings.TrimSpace(t)
		}
		return ""
	}
	if c, err := r.Cookie(AuthCookie); err == nil {
		return c.Value
	}
	return ""
}

// authenticate refuses requests without a valid token (Config.Auth), and
// the requests a read-only token may not make.
func (s *Server) authenticate(next http.Handler) http.Handler {
	a := s.cfg.Auth
	if a == nil {
		return next
	}
	tokens := digestTokens(a.Tokens)
	refused := prometheus.NewCounter(prometheus.CounterOpts{
		Name: "racetrack_auth_refused_total", Help: "Requests refused for a missing or wrong token.",
	})
	s.metrics.reg.MustRegister(refused)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !a.ProtectProbes && (r.URL.Path == "/healthz" || r.URL.Path == "/metrics") {
			next.ServeHTTP(w, r)
			return
		}
		if q := r.URL.Query(); q.Has(TokenParam) && (r.Method == http.MethodGet || r.Method == http.MethodHead) {
			s.login(w, r, tokens, q.Get(TokenParam), refused)
			return
		}
		t, ok := match(tokens, presented(r))
		if !ok {
			refused.Inc()
			w.Header().Set("WWW-Authenticate", `Bearer realm="racetrack"`)
			if wantsPage(r) {
				w.Header().Set("Content-Type", "text/html; charset=utf-8")
				w.WriteHeader(http.StatusUnauthorized)
				_, _ = w.Write([]byte(loginPage))
				return
			}
			writeError(w, r, newProblem(http.StatusUnauthorized, "unauthorized", "Authentication required", "token",
				"this server needs a token: Authorization: Bearer TOKEN, or open the login URL printed at startup"))
			return
		}
		if t.readOnly && !readOnlyAllows(r) {
			writeError(w, r, newProblem(http.StatusForbidden, "read-only", "Read-only token", "token",
				"a read-only token views runs, searches and exports; %s %s starts or changes something", r.Method, r.URL.Path))
			return
		}
		next.ServeHTTP(w, r)
	})
}

// login checks a token given in the URL, sets the cookie and redirects
// to the same URL without the token.
func (s *Server) login(w http.ResponseWriter, r *http.Request, tokens []tokenDigest, secret string, refused prometheus.Counter) {
	if _, ok := match(tokens, secret); !ok {
		refused.Inc()
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.WriteHeader(http.StatusUnauthorized)
		_, _ = w.Write([]byte(loginPage))
		return
	}
	http.SetCookie(w, &http.Cookie{Name: AuthCookie, Value: secret, Path: "/", HttpOnly: true,
		Secure: s.cfg.Auth.SecureCookie, SameSite: http.SameSiteStrictMode, MaxAge: int((30 * 24 * time.Hour).Seconds())})
	u := *r.URL
	q := u.Query()
	q.Del(TokenParam)
	u.RawQuery = q.Encode()
	if u.Path == "/login" {
		u.Path = "/"
	}
	http.Redirect(w, r, (&url.URL{Path: u.Path, RawQuery: u.RawQuery, Fragment: u.Fragment}).String(), http.StatusSeeOther)
}

// readOnlyAllows: views, not work.
func readOnlyAllows(r *http.Request) bool {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		return false
	}
	return r.URL.Path != "/api/v1/session"
}

// wantsPage: a browser navigating (not the API, not a script).
func wantsPage(r *http.Request) bool {
	return !strings.HasPrefix(r.URL.Path, "/api/") && strings.Contains(r.Header.Get("Accept"), "text/html")
}

const loginPage = `<!doctype html><meta charset="utf-8"><title>Racetrack: log in</title>
<p>This Racetrack server needs a token. Open the login URL it printed at startup
(<code>/login?token=…</code>), or ask its operator for one.</p>`
