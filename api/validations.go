package api

import (
	"encoding/json"
	"fmt"
	"net/http"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/racetrack-sim/racetrack/core/conform"
	"github.com/racetrack-sim/racetrack/core/ingest"
	"github.com/racetrack-sim/racetrack/core/session"
)

// What a validation search holds: a state's entry in the visited set,
// and the worlds along its path (bounded by validationPathBytes: a
// search cut there ends with the verdict "budget").
const (
	validationStateBytes = 64
	validationPathBytes  = 256 << 20
)

// createValidation serves POST /api/v1/traces/{id}/validations: an
// imported execution checked against a model (session.ValidateTrace,
// conform's search). The answer holds the verdict and the aligned model
// run, stored like any run, so the page opens both side by side.
func (s *Server) createValidation(w http.ResponseWriter, r *http.Request) {
	run := chi.URLParam(r, "id")
	v, ok := decodeBody(w, r, func(body []byte) (v session.Validation, err error) { return v, decodeStrict(body, &v) })
	if !ok {
		return
	}
	checked, err := s.validate(run, v)
	if err != nil {
		writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, checked)
}

// validate checks run (an imported execution) against the model v
// names, within memory reserved first (importing the log again, and the
// search's states) and a run slot.
func (s *Server) validate(run string, v session.Validation) (session.Checked, error) {
	logID, k, ok := session.ExecutionOf(run)
	if !ok {
		return session.Checked{}, notFound("id", "no imported log with id %q: an execution of a log is log- and 16 hex digits (and -k)", truncate(run, 40))
	}
	rec, err := s.storedExecution(run, logID, k)
	if err != nil {
		return session.Checked{}, err
	}
	if v.Spec == nil {
		return session.Checked{}, invalid("spec", "spec (the model: scenario, preset, variant, parameters) is required")
	}
	n, err := s.rules.Normalize(*v.Spec)
	if err != nil {
		return session.Checked{}, session.AsError(err, "spec")
	}
	t, err := s.store.TraceLog(logID)
	if err != nil {
		return session.Checked{}, fmt.Errorf("read log %s: %w", logID, err)
	}
	states := v.MaxStates
	if states == 0 {
		states = conform.DefaultMaxStates
	}
	importBytes := ingest.Need(ingest.Format(rec.Format), len(t.Log), rec.Events, rec.Hosts)
	mem, err := s.mem.reserve(kindSearch, validationBytes(importBytes, states), memoryHint{field: "maxStates", what: "this validation"})
	if err != nil {
		return session.Checked{}, err
	}
	defer mem.release()
	select {
	case s.runSlots <- struct{}{}:
	case <-time.After(runSlotWait):
		return session.Checked{}, busy(1, "all %d run slots are busy; retry shortly", cap(s.runSlots))
	}
	verdict, err := session.ValidateTrace(n, t, k, v, importBytes, validationPathBytes)
	<-s.runSlots
	if err != nil {
		return session.Checked{}, err
	}
	out := session.Checked{Run: run, Verdict: verdict}
	if spec, ok := session.ModelSpec(n, verdict); ok {
		model, err := s.newRun(spec)
		if err != nil {
			return session.Checked{}, fmt.Errorf("record the aligned model run: %w", err)
		}
		defer model.drop()
		out.Model = &model.summary
	}
	return out, nil
}

// admitCheck reserves what a session's check holds (the log imported
// again, the search's states) before the session runs it.
func (sc *sessionConn) admitCheck(args []byte) (*grant, bool, error) {
	var a session.CheckArgs
	if json.Unmarshal(args, &a) != nil {
		return nil, false, nil // the session names what is wrong
	}
	logID, _, ok := session.ExecutionOf(a.Run)
	if !ok {
		return nil, false, nil
	}
	rec, err := sc.s.store.Trace(logID)
	if err != nil {
		return nil, false, nil // the session says it knows no such log
	}
	t, err := sc.s.store.TraceLog(logID)
	if err != nil {
		return nil, false, nil
	}
	states := a.MaxStates
	if states <= 0 || states > conform.MaxStatesLimit {
		states = conform.DefaultMaxStates // a bad value is the session's to refuse
	}
	need := validationBytes(ingest.Need(ingest.Format(rec.Format), len(t.Log), rec.Events, rec.Hosts), states)
	g, err := sc.s.mem.reserve(kindSearch, need, memoryHint{field: "maxStates", what: "this validation"})
	return g, true, err
}

// validationBytes is what a validation reserves: the log imported again,
// the search's states and its path.
func validationBytes(importBytes int64, states int) int64 {
	return importBytes + int64(states)*validationStateBytes + validationPathBytes
}
