package api

import (
	_ "embed"
	"net/http"
)

// openAPIDocument describes every route, including the WebSocket
// protocols. TestOpenAPICoversRoutes fails when a route is missing.
//
//go:embed openapi.json
var openAPIDocument []byte

func serveOpenAPI(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(openAPIDocument)
}
