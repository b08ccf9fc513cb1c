package api

import "net/http"

// listScenarios answers with the catalog as the core writes it
// (scenario.Scenario's wire form), the same bytes the session's
// scenarios method sends.
func (s *Server) listScenarios(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, s.reg.List())
}
