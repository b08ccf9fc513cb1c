package api

import (
	"io/fs"
	"net/http"
	"path"
	"strings"

	"github.com/go-chi/chi/v5"
	"github.com/go-chi/chi/v5/middleware"

	"github.com/racetrack-sim/racetrack/core/session"
)

func (s *Server) routes() http.Handler {
	r := chi.NewRouter()
	r.Use(middleware.RequestID, withLogger(s.log), recoverer, s.observe, securityHeaders,
		s.checkHost, s.authenticate, s.crossOrigin, requireJSON, limitBody(s.cfg.MaxBodyBytes, s.cfg.MaxTraceBytes))
	r.NotFound(func(w http.ResponseWriter, r *http.Request) {
		writeError(w, r, notFound("path", "no route for path %s", r.URL.Path))
	})
	var byRoute map[string][]string // filled in once every route is there
	r.MethodNotAllowed(func(w http.ResponseWriter, req *http.Request) {
		w.Header().Set("Allow", strings.Join(allowedMethods(r, byRoute, req.URL.Path), ", "))
		writeError(w, req, newProblem(http.StatusMethodNotAllowed, "method-not-allowed", "Method not allowed", "method",
			"method %s is not allowed on %s", req.Method, req.URL.Path))
	})

	r.Get("/healthz", s.healthz)
	r.Head("/healthz", s.healthz)
	r.Method(http.MethodGet, "/metrics", s.metrics.handler())
	r.Get("/api/openapi.json", serveOpenAPI)
	r.Get(problemTypePath+"{kind}", serveProblemType)

	r.Route("/api/v1", func(r chi.Router) {
		r.Use(noStore)
		r.Get("/scenarios", s.listScenarios)
		r.Get("/formats", listFormats)
		r.Post("/runs", s.createRun)
		r.Post("/traces", s.createTrace)
		r.Post("/traces/{id}/validations", s.createValidation)
		r.Route("/runs/{id}", func(r chi.Router) {
			r.Get("/", s.getRun)
			r.Get("/steps", s.getSteps)
			r.Get("/state", withStep(s, session.StateAt))
			r.Get("/alternatives", withStep(s, session.Alternatives))
			r.Get("/slice", withStep(s, session.CausalSlice))
			r.Get("/find", s.getFind)
			r.Get("/layout", s.getLayout)
			r.Get("/charts", s.getCharts)
			r.Get("/diagram.svg", s.getDiagram)
			r.Get("/export", s.getExport)
			r.Post("/forks", s.createFork)
			r.Get("/forks", s.getForks)
		})
		r.Get("/compare", s.compare)
		r.With(s.streamPreflight).Get("/session", s.sessionStream)
		r.Post("/searches", s.createSearch)
		r.Route("/searches/{id}", func(r chi.Router) {
			r.Get("/", s.getSearch)
			r.Delete("/", s.cancelSearch)
			r.With(s.streamPreflight).Get("/stream", s.searchStream)
		})
		r.NotFound(func(w http.ResponseWriter, r *http.Request) {
			writeError(w, r, notFound("path", "no API route for path %s", r.URL.Path))
		})
	})

	if len(s.cfg.Static) > 0 {
		files := staticFiles(s.cfg.Static)
		r.Method(http.MethodGet, "/*", files)
		r.Method(http.MethodHead, "/*", files)
	}
	byRoute = routeMethods(r)
	return r
}

func noStore(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "no-store")
		next.ServeHTTP(w, r)
	})
}

func (s *Server) healthz(w http.ResponseWriter, r *http.Request) {
	// distributed tells the page whether to offer distributed searches.
	writeJSON(w, http.StatusOK, map[string]any{"status": "ok", "scenarios": len(s.reg.List()), "distributed": s.cfg.Cluster != nil})
}

// staticFiles serves the browser app from the first directory that holds
// the requested file; "/static/x" is also looked up as "x", so a page may
// name its build output either way. Directory listings are never shown.
func staticFiles(fss []fs.FS) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		name := path.Clean("/" + r.URL.Path)
		if strings.HasSuffix(name, "/") || name == "/" {
			name = path.Join(name, "index.html")
		}
		candidates := []string{name}
		if rest, ok := strings.CutPrefix(name, "/static/"); ok {
			candidates = append(candidates, "/"+rest)
		}
		for _, c := range candidates {
			rel := strings.TrimPrefix(c, "/")
			for _, fsys := range fss {
				if fi, err := fs.Stat(fsys, rel); err == nil && !fi.IsDir() {
					http.ServeFileFS(w, r, fsys, rel)
					return
				}
			}
		}
		writeError(w, r, notFound("path", "no file at path %s", name))
	})
}
