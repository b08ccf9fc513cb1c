# Racetrack. `make run` and `make test` are the two commands; `make
# test-full` is the slow tier CI runs after make test. See README.md.
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

.PHONY: run test test-full wasm vet test-native test-go test-e2e test-race test-wasm test-wasm-explorers test-cli test-examples test-sweeps vulncheck bench bench-cluster clean

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

# Every package's tests without the race detector, the long ones skipped
# (-short: the big sweeps, the exhaustive searches of the benchmark size,
# the tests that build binaries, clone the repository or start NATS
# clusters and processes): test-e2e (the page in headless Chromium) and
# test-go (every other package), which make test runs side by side.
test-native: test-go test-e2e

test-go:
	$(GO) test -short $$($(GO) list ./... | grep -v '/e2e$$')

test-e2e:
	$(GO) test -short ./e2e

# The core's tests again, compiled to wasm and run under Node (-short), so
# native and browser builds are held to the same golden hashes. The
# explorers' tests (core/check) take minutes there: make test-full runs
# them (test-wasm-explorers).
WASMTEST   = PATH="$(WASMDIR):$$PATH" GOOS=js GOARCH=wasm $(GO) test -short
EXPLORERS := ./core/check/...
test-wasm:
	$(WASMTEST) $$($(GO) list ./core/... | grep -v '/core/check\(/\|$$\)')

test-wasm-explorers:
	$(WASMTEST) -timeout 30m $(EXPLORERS)

# racetrack verify as a CI step uses it: the buggy presets fail with the
# code of their property's kind, the fixed ones pass.
test-cli:
	bash .ci/verify

# examples/ownmodel is a module of its own: go test ./... at the root
# does not reach it.
test-examples:
	cd examples/ownmodel && $(GO) vet ./... && GOOS=js GOARCH=wasm $(GO) vet . ./cmd/wasm && $(GO) test ./... && bin=$$(mktemp -d)/ownmodel && $(GO) build -o $$bin ./cmd/ownmodel && { $$bin verify -scenario ownmodel -variant unfenced -exhaustive bfs; test $$? -eq 12; } && $$bin verify -scenario ownmodel -variant fencing -exhaustive bfs

# The developer loop (the aim: 6 min or less on a fresh clone, 2 quiet cores).
# After the wasm build, the browser tests (the longest part, which waits on
# Chromium much of its time) run beside the other parts, vet among them.
# Those run at the lowest priority (nice 19): they take what Chromium
# leaves, and the browser tests' timed waits keep their margin. Each
# part's output is printed whole when it ends. make test-native and the
# others run one part alone.
test: wasm
	@$(MAKE) --no-print-directory test-e2e & e2e=$$!; \
	nice -n 19 $(MAKE) --no-print-directory -j4 -O vet test-go test-wasm test-cli test-examples; rest=$$?; \
	wait $$e2e; e2e=$$?; \
	if [ $$e2e -ne 0 ] || [ $$rest -ne 0 ]; then echo "make test: FAILED (browser tests: exit $$e2e; the others: exit $$rest)"; exit 1; fi

# The slow tier, which CI runs after make test: every test of every
# package under the race detector, the long ones -short skips included;
# the explorers' tests under wasm; every seed of the README's rates.
# Together with make test it runs every test there is. The timeouts are
# for core/check under -race and under Node on a loaded machine (go
# test's default 10 min was not enough for either at a load of 15).
test-full: test-race test-wasm-explorers test-sweeps

test-race:
	$(GO) test -race -timeout 40m ./...

# The README's table "The bugs" over every seed, with exact counts.
test-sweeps:
	$(GO) test ./core/modeltest -run RatesHold -full

# govulncheck with a database built offline from the golang.org/x/vulndb
# module (.ci/vulncheck); CI runs it after make test and make test-full.
vulncheck:
	bash .ci/vulncheck

bench:
	$(GO) test -run '^$$' -bench . -benchmem ./core/...

# A distributed bfs against the local one on this machine (issue 30):
# CPU seconds of every process, wall time, bytes published per state.
bench-cluster:
	$(GO) test ./internal/cluster -run '^$$' -bench BFSEfficiency -benchtime 1x -timeout 60m -cluster.clients 3 -cluster.iterations 2

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
