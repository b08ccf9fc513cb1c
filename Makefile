# Racetrack. `make run` and `make test` are the two commands; see README.md.
# Builds use Go 1.27.3, the release without the standard-library
# vulnerabilities govulncheck finds in 1.26.8 (make vulncheck); the go
# command fetches it from the module proxy once (about 76 MB).
GOTOOLCHAIN ?= go1.27.3
export GOTOOLCHAIN
GO        ?= go
GOROOT    := $(shell GOTOOLCHAIN=$(GOTOOLCHAIN) $(GO) env GOROOT)
WASMDIR   := $(GOROOT)/lib/wasm
ADDR      ?= 127.0.0.1:8080
GOSRC     := $(shell find core wasm -name '*.go' 2>/dev/null) go.mod

.PHONY: run test wasm vet test-native test-wasm test-cli test-examples vulncheck bench clean

wasm: static/app.wasm static/wasm_exec.js

static/app.wasm: $(GOSRC)
	GOOS=js GOARCH=wasm $(GO) build -trimpath -ldflags='-s -w' -o $@ ./wasm

static/wasm_exec.js: $(WASMDIR)/wasm_exec.js
	cp $< $@

run: wasm
	$(GO) run ./cmd/server -addr $(ADDR)

vet:
	@files=$$("$$($(GO) env GOROOT)/bin/gofmt" -l . examples); if [ -n "$$files" ]; then echo "gofmt would change:"; echo "$$files"; exit 1; fi
	$(GO) vet ./...
	GOOS=js GOARCH=wasm $(GO) vet ./core/... ./wasm/...

test-native:
	$(GO) test -race ./...

# The core's tests again, compiled to wasm and run under Node, so native
# and browser builds are held to the same golden hashes.
test-wasm:
	PATH="$(WASMDIR):$$PATH" GOOS=js GOARCH=wasm $(GO) test -short ./core/...

# racetrack verify as a CI step uses it: the buggy presets fail with the
# code of their property's kind, the fixed ones pass.
test-cli:
	bash .ci/verify

# examples/ownmodel is a module of its own: go test ./... at the root
# does not reach it.
test-examples:
	cd examples/ownmodel && $(GO) vet ./... && GOOS=js GOARCH=wasm $(GO) vet . ./cmd/wasm && $(GO) test ./... && bin=$$(mktemp -d)/ownmodel && $(GO) build -o $$bin ./cmd/ownmodel && { $$bin verify -scenario ownmodel -variant unfenced -exhaustive bfs; test $$? -eq 12; } && $$bin verify -scenario ownmodel -variant fencing -exhaustive bfs

test: wasm vet test-native test-wasm test-cli test-examples

# govulncheck with a database built offline from the golang.org/x/vulndb
# module (.ci/vulncheck); CI runs it after make test.
vulncheck:
	bash .ci/vulncheck

bench:
	$(GO) test -run '^$$' -bench . -benchmem ./core/...

clean:
	rm -f static/app.wasm static/wasm_exec.js

# dist/: the browser app as plain static files (the wasm engine only), for
# any static file host: index.html, style.css, js/, worker.js, app.wasm and
# wasm_exec.js. Browsers do not run ES modules or workers from file://, so
# serve it (e.g. python3 -m http.server -d dist).
.PHONY: dist
dist: wasm
	rm -rf dist
	mkdir -p dist
	cp -R web/. dist/
	rm -f dist/*.go dist/README.md
	cp static/app.wasm static/wasm_exec.js dist/
	printf '{"engine": "wasm"}\n' > dist/engine.json
