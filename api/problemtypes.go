package api

import (
	"html/template"
	"net/http"

	"github.com/go-chi/chi/v5"
)

// problemTypePath is where the server describes its problem types: a
// problem's type is problemTypePath+kind, a URI reference (RFC 9457
// §3.1.1) that resolves against the server that sent it.
const problemTypePath = "/problems/"

type problemType struct {
	Status int
	Title  string
	About  string
}

// problemTypes describes every kind of problem the server sends.
var problemTypes = map[string]problemType{
	"bad-request": {http.StatusBadRequest, "Bad request",
		"The body or a query parameter cannot be parsed: malformed or truncated JSON, an unknown field, a value of the wrong type, data after the JSON object, a query parameter that is not an integer or is missing. field names the first field at fault; errors lists every one."},
	"invalid": {http.StatusUnprocessableEntity, "Invalid value",
		"The request parses, but a value is not acceptable: out of its range, an unknown scenario, preset, variant, property or strategy, a schedule that does not fit the run, a budget above this server's limits. Every rejected field is listed in errors (field and detail), the first also in field."},
	"not-found": {http.StatusNotFound, "Not found",
		"No run or search has this id, or no route or file has this path. Run ids are r followed by 20 hex digits, search ids s followed by 16."},
	"gone": {http.StatusGone, "Gone",
		"The run id was issued by this server, but its stored spec can no longer be run here (for example a scenario was changed or removed)."},
	"too-large": {http.StatusRequestEntityTooLarge, "Request body too large",
		"The body exceeds this server's limit (1 MiB unless configured otherwise)."},
	"unsupported-media-type": {http.StatusUnsupportedMediaType, "Unsupported media type",
		"A POST's body must be declared JSON: send Content-Type application/json. No Content-Type, text/plain or a form (what a cross-site page can send without asking) is refused."},
	"cross-origin": {http.StatusForbidden, "Cross-origin request refused",
		"An unsafe request (POST, DELETE) that a browser sent from a page of another origin (Sec-Fetch-Site, else Origin against Host). Start the server with -allow-origin to trust an origin."},
	"misdirected-host": {http.StatusMisdirectedRequest, "Host not served",
		"The Host header names this server by a DNS name it does not answer to (a DNS rebinding attack looks like this). IP literals, localhost and the -addr host always work; -allowed-hosts adds names."},
	"memory-busy": {http.StatusServiceUnavailable, "Not enough free memory",
		"The work was estimated to need more memory than this server's budget has free now (needBytes, freeBytes). Retry after the number of seconds in the Retry-After header, or ask for less (the field names what to lower)."},
	"too-large-for-memory": {http.StatusUnprocessableEntity, "Too large for the memory budget",
		"The work was estimated to need more memory than this server's whole budget (needBytes): it can never run here. Lower the field named, or use a server with a larger -memory-budget."},
	"insufficient-storage": {http.StatusInsufficientStorage, "Insufficient storage",
		"The server's store could not record the run or search: its disk or quota is full. Nothing was kept; retry once space is freed."},
	"store-unavailable": {http.StatusServiceUnavailable, "Store unavailable",
		"The server's store refuses writes (a read-only file system or an I/O error). Nothing was kept."},
	"method-not-allowed": {http.StatusMethodNotAllowed, "Method not allowed",
		"The path exists, but not for this method; /api/openapi.json lists the methods of every path."},
	"busy": {http.StatusTooManyRequests, "Too many requests",
		"Every run slot is busy, the search queue is full, or too many streams are open. Retry after the number of seconds in the Retry-After header."},
	"upgrade-required": {http.StatusUpgradeRequired, "Upgrade required",
		"A stream route answers WebSocket upgrades only: connect with a WebSocket client."},
	"forbidden-origin": {http.StatusForbidden, "Forbidden origin",
		"The WebSocket request came from a page of another origin that this server does not allow (see its -allow-origin flag)."},
	"internal": {http.StatusInternalServerError, "Internal error",
		"The server failed to handle the request. The detail quotes a request id; the error itself is in the server's log under that id."},
}

var problemPage = template.Must(template.New("problem").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>{{.Title}} — Racetrack problem type</title></head>
<body><h1>{{.Title}}</h1>
<p>HTTP status {{.Status}}. Problem type <code>{{.Type}}</code> of the Racetrack API (RFC 9457 problem details, <code>application/problem+json</code>).</p>
<p>{{.About}}</p>
<p>Members: <code>type</code>, <code>title</code>, <code>status</code>, <code>detail</code>, <code>instance</code> (the request path), <code>field</code> and <code>errors</code> (for a request field at fault), <code>requestId</code>. The API: <a href="/api/openapi.json">/api/openapi.json</a>.</p>
</body></html>
`))

// serveProblemType describes one problem type to whoever follows its URI.
func serveProblemType(w http.ResponseWriter, r *http.Request) {
	kind := chi.URLParam(r, "kind")
	pt, ok := problemTypes[kind]
	if !ok {
		writeError(w, r, notFound("kind", "no problem type %q", truncate(kind, 40)))
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "public, max-age=86400")
	_ = problemPage.Execute(w, struct {
		problemType
		Type string
	}{pt, problemTypePath + kind})
}
