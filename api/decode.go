package api

import (
	"errors"
	"io"
	"net/http"
	"strconv"

	"github.com/racetrack-sim/racetrack/core/scenario"
)

// readBody reads a JSON request body within the size limit (set by
// limitBody); requireJSON has checked its media type.
func readBody(r *http.Request) ([]byte, error) {
	b, err := io.ReadAll(r.Body)
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return nil, tooLarge(mbe.Limit)
		}
		return nil, badRequest("body", "the body could not be read")
	}
	return b, nil
}

// decodeBody reads a request's JSON body and decodes it; when it cannot,
// it writes the problem and returns false.
func decodeBody[T any](w http.ResponseWriter, r *http.Request, decode func([]byte) (T, error)) (T, bool) {
	body, err := readBody(r)
	var v T
	if err == nil {
		v, err = decode(body)
	}
	if err != nil {
		writeError(w, r, err)
		return v, false
	}
	return v, true
}

// decodeStrict decodes one JSON object into v with the core's strict
// decoder; any failure is a 400 that names the field.
func decodeStrict(data []byte, v any) error {
	err := scenario.DecodeStrict(data, v)
	if err == nil {
		return nil
	}
	var fe *scenario.FieldError
	if errors.As(err, &fe) {
		return badRequest(fe.Field, "%s: %s", fe.Field, fe.Msg)
	}
	return badRequest("body", "the body is not a valid JSON object")
}

// DecodeRunSpec parses a RunSpec body: a 400 problem for bad syntax.
func DecodeRunSpec(data []byte) (scenario.RunSpec, error) {
	var spec scenario.RunSpec
	if err := decodeStrict(data, &spec); err != nil {
		return scenario.RunSpec{}, err
	}
	return spec, nil
}

// queryInt reads an optional integer query parameter in [lo, hi].
func queryInt(r *http.Request, name string, def, lo, hi int) (int, error) {
	raw := r.URL.Query().Get(name)
	if raw == "" {
		return def, nil
	}
	return parseIntParam(name, raw, lo, hi)
}

// requireInt reads a required integer query parameter in [lo, hi].
func requireInt(r *http.Request, name string, lo, hi int) (int, error) {
	raw := r.URL.Query().Get(name)
	if raw == "" {
		return 0, badRequest(name, "query parameter %s is required (an integer in [%d, %d])", name, lo, hi)
	}
	return parseIntParam(name, raw, lo, hi)
}

func parseIntParam(name, raw string, lo, hi int) (int, error) {
	v, err := strconv.Atoi(raw)
	if err != nil {
		return 0, badRequest(name, "query parameter %s must be an integer, got %q", name, truncate(raw, 40))
	}
	if v < lo || v > hi {
		return 0, invalid(name, "query parameter %s is %d, outside [%d, %d]", name, v, lo, hi)
	}
	return v, nil
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
