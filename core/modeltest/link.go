package modeltest

import (
	"encoding/base64"
	"strconv"

	"github.com/racetrack-sim/racetrack/core/scenario"
)

// BaseURL is where ShareLink points: the page that `make run` serves.
var BaseURL = "http://127.0.0.1:8080/"

// ShareLink is the page's share link (web/js/share.js) for spec at step:
// the fragment carries the spec as "j" plus its JSON in unpadded base64url
// (the uncompressed form decodeSpec accepts) and the 0-based step.
func ShareLink(spec scenario.RunSpec, step int) string {
	run := "j" + base64.RawURLEncoding.EncodeToString(spec.CanonicalJSON())
	return BaseURL + "#run=" + run + "&step=" + strconv.Itoa(step)
}

// Replay is the spec as the JSON a user pastes into
// `go run ./cmd/racetrack -spec` or POSTs to /api/v1/runs.
func Replay(spec scenario.RunSpec) string { return string(spec.CanonicalJSON()) }

// describe is the replay instructions of a step of spec.
func describe(spec scenario.RunSpec, step int) string {
	return "replay: go run ./cmd/racetrack -spec '" + Replay(spec) + "'\n  open:   " + ShareLink(spec, step)
}
