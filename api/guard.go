package api

import (
	"mime"
	"net"
	"net/http"
	"path"
	"slices"
	"strings"

	"github.com/go-chi/chi/v5"
)

// The guards below run before any handler: a request that a browser sent
// on behalf of another site, or through a DNS name the server does not
// answer to, never reaches code that does work.

// hostAllowed reports whether a Host header may reach the server. An IP
// literal is never the product of a DNS lookup, so it cannot be a DNS
// rebinding; a name must be localhost, the bind host, or match one of
// the patterns (path.Match syntax, compared without the port).
func hostAllowed(host string, patterns []string) bool {
	name := host
	if h, _, err := net.SplitHostPort(host); err == nil {
		name = h
	}
	name = strings.ToLower(strings.TrimSuffix(strings.Trim(name, "[]"), "."))
	if name == "" {
		return false
	}
	if net.ParseIP(name) != nil || name == "localhost" || strings.HasSuffix(name, ".localhost") {
		return true
	}
	for _, p := range patterns {
		if ok, _ := path.Match(strings.ToLower(p), name); ok {
			return true
		}
	}
	return false
}

// checkHost refuses a request whose Host header names the server by a DNS
// name it was not told about (421 Misdirected Request): a page on
// evil.example whose name was rebound to 127.0.0.1 gets nothing.
func (s *Server) checkHost(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !hostAllowed(r.Host, s.cfg.AllowedHosts) {
			name := r.Host
			if h, _, err := net.SplitHostPort(name); err == nil {
				name = h
			}
			writeError(w, r, newProblem(http.StatusMisdirectedRequest, "misdirected-host", "Host not served", "Host",
				"this server does not answer to host %q; start it with -allowed-hosts %s to allow it", truncate(r.Host, 80), truncate(name, 80)))
			return
		}
		next.ServeHTTP(w, r)
	})
}

// crossOrigin refuses unsafe requests (POST, DELETE, ...) that a browser
// sent from another origin (Sec-Fetch-Site, else Origin against Host), as
// net/http's CrossOriginProtection decides; origins matching the
// -allow-origin patterns are trusted. Safe methods pass: they change
// nothing (WebSockets check their Origin on their own, streamPreflight).
func (s *Server) crossOrigin(next http.Handler) http.Handler {
	cop := http.NewCrossOriginProtection()
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := cop.Check(r); err != nil && originRefused(r, s.cfg.AllowOrigins) {
			writeError(w, r, newProblem(http.StatusForbidden, "cross-origin", "Cross-origin request refused", "Origin",
				"a %s from origin %q (Sec-Fetch-Site %q) is refused: browsers may only send it from this server's own pages; start the server with -allow-origin to trust another origin",
				r.Method, truncate(r.Header.Get("Origin"), 80), truncate(r.Header.Get("Sec-Fetch-Site"), 20)))
			return
		}
		next.ServeHTTP(w, r)
	})
}

// originRefused is true unless the request's Origin matches one of the
// trusted patterns.
func originRefused(r *http.Request, patterns []string) bool {
	if r.Header.Get("Origin") == "" || len(patterns) == 0 {
		return true
	}
	return checkOrigin(r, patterns) != nil
}

// requireJSON answers 415 to a POST, PUT or PATCH whose body is not
// declared as JSON. A form or text/plain body is what a cross-site
// <form> or a "simple" fetch can send without a preflight, so refusing
// it is also a CSRF defence.
func requireJSON(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.Method {
		case http.MethodPost, http.MethodPut, http.MethodPatch:
			ct := r.Header.Get("Content-Type")
			mt, _, err := mime.ParseMediaType(ct)
			if ct == "" || err != nil || !(mt == "application/json" || strings.HasSuffix(mt, "+json")) {
				got := "no Content-Type"
				if ct != "" {
					got = "Content-Type " + truncate(ct, 60)
				}
				writeError(w, r, newProblem(http.StatusUnsupportedMediaType, "unsupported-media-type", "Unsupported media type",
					"Content-Type", "the body must be sent as application/json, got %s", got))
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}

// streamPreflight checks a WebSocket request's handshake headers, Origin
// and the stream limit before the handler looks anything up, so a
// refused page costs the server nothing (a run is not recomputed for a
// stream that is then refused).
func (s *Server) streamPreflight(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := s.checkHandshake(w, r); err != nil {
			writeError(w, r, err)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// routeMethods maps every route pattern (without a trailing slash) to
// the methods served there, for the Allow header of a 405. chi's own
// lookup cannot say it: a mounted subrouter's bare path matches every
// method.
func routeMethods(routes chi.Routes) map[string][]string {
	out := map[string][]string{}
	_ = chi.Walk(routes, func(method, route string, _ http.Handler, _ ...func(http.Handler) http.Handler) error {
		key := strings.TrimSuffix(route, "/")
		out[key] = append(out[key], method)
		return nil
	})
	return out
}

// allowedMethods lists the methods served at path, in a fixed order.
func allowedMethods(routes chi.Routes, byRoute map[string][]string, path string) []string {
	for _, m := range []string{http.MethodGet, http.MethodPost, http.MethodDelete, http.MethodPut, http.MethodPatch, http.MethodHead} {
		pattern := routes.Find(chi.NewRouteContext(), m, path)
		if pattern == "" {
			continue
		}
		var out []string
		served := byRoute[strings.TrimSuffix(pattern, "/")]
		for _, m := range []string{http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete} {
			if slices.Contains(served, m) {
				out = append(out, m)
			}
		}
		return out
	}
	return nil
}
