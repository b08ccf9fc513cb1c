package ingest

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
)

// ndjsonKeys are the keys an NDJSON trace event may have.
var ndjsonKeys = map[string]bool{"node": true, "thread": true, "kind": true, "msg": true, "to": true, "obj": true,
	"label": true, "t": true, "fields": true}

// Detect tells a log's format from its first bytes: a JSON object whose
// first key is a trace event's is the NDJSON trace format, any other JSON
// object is Racetrack's JSON export of a run (whose first key is "id"),
// and anything else a ShiViz log.
func Detect(data []byte) Format {
	data = bytes.TrimLeft(data, " \t\r\n")
	if len(data) == 0 || data[0] != '{' {
		return FormatShiViz
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	if _, err := dec.Token(); err != nil {
		return FormatShiViz
	}
	key, err := dec.Token()
	if name, ok := key.(string); err == nil && ok && ndjsonKeys[name] {
		return FormatNDJSON
	}
	return FormatJSON
}

// LogID names an import: "log-" and a hash of the format, the ShiViz
// expressions and the bytes, so that the same log imported the same way
// gets the same id on every server and in the browser.
func LogID(format Format, opt Options, data []byte) string {
	h := sha256.New()
	for _, s := range []string{string(format), opt.Parser, opt.Delimiter} {
		h.Write([]byte(s))
		h.Write([]byte{0})
	}
	h.Write(data)
	return "log-" + hex.EncodeToString(h.Sum(nil)[:8])
}
