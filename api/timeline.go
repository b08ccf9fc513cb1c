package api

import (
	"net/http"
)

// maxStepsPage bounds GET /runs/{id}/steps.
const maxStepsPage = 1000

type stepsPage struct {
	From  int `json:"from"`
	Total int `json:"total"`
	Steps any `json:"steps"`
}

func (s *Server) getSteps(w http.ResponseWriter, r *http.Request) {
	rec, ok := s.runFromPath(w, r)
	if !ok {
		return
	}
	n := rec.tl.Len()
	from, err := queryInt(r, "from", 0, 0, n)
	if err != nil {
		writeError(w, r, err)
		return
	}
	limit, err := queryInt(r, "limit", 100, 1, maxStepsPage)
	if err != nil {
		writeError(w, r, err)
		return
	}
	steps, err := rec.tl.Steps(from, limit)
	if err != nil {
		writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, stepsPage{From: from, Total: n, Steps: steps})
}

// stepParam reads a required step index of rec's timeline.
func stepParam(r *http.Request, rec *recording, name string) (int, error) {
	n := rec.tl.Len()
	if n == 0 {
		return 0, invalid(name, "run %s has no steps", rec.id)
	}
	return requireInt(r, name, 0, n-1)
}

func (s *Server) getState(w http.ResponseWriter, r *http.Request) {
	rec, ok := s.runFromPath(w, r)
	if !ok {
		return
	}
	step, err := stepParam(r, rec, "step")
	if err != nil {
		writeError(w, r, err)
		return
	}
	sv, err := rec.tl.StateAt(step)
	if err != nil {
		writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, sv)
}
