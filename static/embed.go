// Package static holds the build output the page loads — app.wasm and
// wasm_exec.js, written here by `make wasm` — so that cmd/server can serve
// them from its own binary. Build the wasm before the server.
package static

import (
	"embed"
	"io/fs"
	"strings"
)

// The pattern takes whatever `make wasm` left here; it matches at least
// this file, so the package builds before the first `make wasm`.
//
//go:embed *
var files embed.FS

// FS is the build output (this package's Go source is not part of it).
func FS() fs.FS { return buildOutput{files} }

// Built reports whether app.wasm was embedded.
func Built() bool {
	_, err := fs.Stat(files, "app.wasm")
	return err == nil
}

type buildOutput struct{ fsys fs.FS }

func (b buildOutput) Open(name string) (fs.File, error) {
	if strings.HasSuffix(name, ".go") {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
	}
	return b.fsys.Open(name)
}

// Wasm is the build output to serve as the page's in-tab engine, or nil
// when this binary was built without it (no `make wasm` first).
func Wasm() fs.FS {
	if !Built() {
		return nil
	}
	return FS()
}
