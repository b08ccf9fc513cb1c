package scenario

import "encoding/json"

// MarshalJSON writes the catalog entry every wire sends (REST's GET
// /api/v1/scenarios, the session's scenarios, the wasm engine): each list
// present, empty rather than null, so a client never has to tell a
// missing list from an empty one. A Param's min, max and unit are always
// present too (null or "" when the parameter has none).
func (s Scenario) MarshalJSON() ([]byte, error) {
	type entry Scenario // the same fields, without this method
	e := entry(s)
	e.Links = emptyIfNil(e.Links)
	e.Variants = emptyIfNil(e.Variants)
	e.Presets = emptyIfNil(e.Presets)
	e.Params = emptyIfNil(e.Params)
	e.Properties = emptyIfNil(e.Properties)
	return json.Marshal(e)
}

func emptyIfNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
