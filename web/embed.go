// Package web holds the browser app's source files (HTML, CSS, ES
// modules) so that cmd/server can serve them from its own binary.
package web

import "embed"

// Files are the page's files, at their paths under web/.
//
//go:embed index.html style.css worker.js upload.js engine.json js
var Files embed.FS
