package api

import (
	"context"
	"encoding/json"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/racetrack-sim/racetrack/core/catalog"
	"github.com/racetrack-sim/racetrack/core/session"
)

// FuzzSpecsInsideTheSchemaOverHTTP posts specs drawn inside the published
// schema of every scenario, as runs and as searches: each is answered
// 201/202 or refused with a 422 problem naming a parameter; never a 5xx,
// and a search is never accepted only to fail later on its parameters.
func FuzzSpecsInsideTheSchemaOverHTTP(f *testing.F) {
	for seed := range uint64(40) {
		f.Add(seed)
	}
	st, err := OpenStore(filepath.Join(f.TempDir(), "inrange.db"))
	if err != nil {
		f.Fatal(err)
	}
	srv, err := New(Config{Registry: catalog.New(), Store: st, Logger: slog.New(slog.DiscardHandler), SearchQueue: 1 << 12})
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		_ = srv.Shutdown(ctx)
		_ = st.Close()
	})
	post := func(t *testing.T, path string, v any) (int, Problem) {
		b, _ := json.Marshal(v)
		req := httptest.NewRequest(http.MethodPost, path, strings.NewReader(string(b)))
		req.Header.Set("Content-Type", "application/json")
		req.Host = "127.0.0.1"
		rec := httptest.NewRecorder()
		srv.Handler().ServeHTTP(rec, req)
		var p Problem
		_ = json.Unmarshal(rec.Body.Bytes(), &p)
		return rec.Code, p
	}
	f.Fuzz(func(t *testing.T, seed uint64) {
		spec := srv.reg.Sample(rand.New(rand.NewPCG(seed, 71)))
		spec.MaxSteps = 1000
		code, p := post(t, "/api/v1/runs", spec)
		if code != http.StatusCreated && !(code == http.StatusUnprocessableEntity && strings.HasPrefix(p.Field, "params.")) {
			t.Fatalf("seed %d: POST /runs %+v answered %d %+v", seed, spec, code, p)
		}
		search := session.SearchRequest{Scenario: spec.Scenario, Preset: spec.Preset, Variant: spec.Variant, Params: spec.Params,
			Strategy: "random", Budget: session.SearchBudget{Runs: 1, Seconds: 1}}
		scode, sp := post(t, "/api/v1/searches", search)
		// The same params are refused alike; an accepted run's search may
		// still wait for memory (503) or a queue slot (429).
		refusedAlike := code == http.StatusUnprocessableEntity && scode == http.StatusUnprocessableEntity && sp.Field == p.Field
		waits := scode == http.StatusServiceUnavailable && memoryRefusal(&sp) || scode == http.StatusTooManyRequests
		if !(refusedAlike || code == http.StatusCreated && (scode == http.StatusAccepted || waits)) {
			t.Fatalf("seed %d: the run was answered %d %+v and the search with the same params %d %+v", seed, code, p, scode, sp)
		}
	})
}
