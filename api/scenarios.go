package api

import (
	"net/http"

	"github.com/racetrack-sim/racetrack/core/scenario"
)

// scenarioJSON is the catalog entry of GET /api/v1/scenarios.
type scenarioJSON struct {
	ID         string                  `json:"id"`
	Title      string                  `json:"title"`
	Summary    string                  `json:"summary"`
	Story      string                  `json:"story"`
	Links      []scenario.Link         `json:"links"`
	Variants   []scenario.Variant      `json:"variants"`
	Presets    []scenario.Preset       `json:"presets"`
	Params     []paramJSON             `json:"params"`
	Properties []scenario.PropertyInfo `json:"properties"`
}

type paramJSON struct {
	Name    string   `json:"name"`
	Type    string   `json:"type"`
	Default any      `json:"default"`
	Min     *float64 `json:"min"`
	Max     *float64 `json:"max"`
	Enum    []string `json:"enum,omitempty"`
	Unit    string   `json:"unit"`
	Help    string   `json:"help"`
}

func catalogJSON(reg *scenario.Registry) []scenarioJSON {
	out := make([]scenarioJSON, 0, len(reg.List()))
	for _, sc := range reg.List() {
		e := scenarioJSON{ID: sc.ID, Title: sc.Title, Summary: sc.Summary, Story: sc.Story,
			Links: nonNil(sc.Links), Variants: nonNil(sc.Variants), Presets: nonNil(sc.Presets),
			Params: []paramJSON{}, Properties: nonNil(sc.Properties)}
		for _, p := range sc.Params {
			e.Params = append(e.Params, paramJSON{Name: p.Name, Type: string(p.Type), Default: p.Default,
				Min: p.Min, Max: p.Max, Enum: p.Enum, Unit: p.Unit, Help: p.Help})
		}
		out = append(out, e)
	}
	return out
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

func (s *Server) listScenarios(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, catalogJSON(s.reg))
}
