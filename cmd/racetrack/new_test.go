package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/racetrack-sim/racetrack/cmd/racetrack/cli"
)

// racetrack runs one command line of the racetrack program in process
// and returns its exit code, standard output and standard error.
func racetrack(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code := racetrackProgram.Run(context.Background(), args, &out, &errOut)
	return code, out.String(), errOut.String()
}

// TestNewModelIsTheExample: the module `racetrack new model` writes is
// examples/ownmodel with another name, so the example's tests (make
// test-examples, e2e's TestOwnModel) hold the skeleton too.
func TestNewModelIsTheExample(t *testing.T) {
	files, err := renderSkeleton(skeletonData{Name: "ownmodel", Module: "github.com/racetrack-sim/racetrack/examples/ownmodel", Version: "v0.0.0"})
	require.NoError(t, err)
	for _, p := range []string{"model.go", "model_test.go", "cmd/server/main.go", "cmd/wasm/main.go", "cmd/ownmodel/main.go"} {
		want, err := os.ReadFile(filepath.Join("..", "..", "examples", "ownmodel", filepath.FromSlash(p)))
		require.NoError(t, err)
		assert.Equal(t, string(want), string(files[p]), "skeleton/%s.tmpl is not examples/ownmodel/%s with its name", p, p)
	}
	assert.Contains(t, string(files["go.mod"]), "module github.com/racetrack-sim/racetrack/examples/ownmodel\n")
	assert.NotContains(t, string(files["go.mod"]), "replace", "no replace unless asked")
}

// TestNewModelBuildsAndPasses writes a module under another name and
// module path against this checkout, then builds its two mains and
// passes its tests (the module cache is shared and go.sum is the
// example's, so no network is needed once the cache holds them).
func TestNewModelBuildsAndPasses(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a module")
	}
	dir := filepath.Join(t.TempDir(), "lease")
	code, out, errOut := racetrack(t, "new", "model", "lease", "-module", "example.com/lease", "-dir", dir, "-replace", "../..")
	require.Equal(t, cli.ExitHolds, code, "%s%s", out, errOut)
	assert.Contains(t, out, "go mod tidy")
	sum, err := os.ReadFile("../../examples/ownmodel/go.sum")
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "go.sum"), sum, 0o644))
	modcache := strings.TrimSpace(string(goOut(t, "", nil, "env", "GOMODCACHE")))
	env := []string{"GOMODCACHE=" + modcache, "GOFLAGS=-mod=mod", "GOWORK=off"}
	test := string(goOut(t, dir, env, "test", "-count=1", "./..."))
	assert.Contains(t, test, "ok  \texample.com/lease\t")
	goOut(t, dir, env, "build", "-o", os.DevNull, "./cmd/server")
	goOut(t, dir, append(env, "GOOS=js", "GOARCH=wasm"), "build", "-o", os.DevNull, "./cmd/wasm")
	// The module's own command line verifies its model with racetrack's
	// exit codes: the unfenced variant's stale write is a safety
	// violation, the fencing variant holds on every schedule.
	verifyExitCodes(t, dir, env, "lease", map[string]int{"unfenced": cli.ExitSafety, "fencing": cli.ExitHolds})
	src, err := os.ReadFile(filepath.Join(dir, "model.go"))
	require.NoError(t, err)
	assert.Contains(t, string(src), "package lease\n")
	assert.Contains(t, string(src), `ID:      "lease",`)

	code, out, _ = racetrack(t, "new", "model", "other", "-dir", filepath.Join(t.TempDir(), "other"))
	require.Equal(t, cli.ExitHolds, code)
	assert.Contains(t, out, "development build", "a test binary is not a released module: it says how to build the module")

	code, _, errOut = racetrack(t, "new", "model", "lease", "-dir", dir)
	assert.Equal(t, cli.ExitUsage, code)
	assert.Contains(t, errOut, "not empty")
}

// TestNewActorsModelBuildsAndPasses: -template actors writes the
// message-passing skeleton (actors with handler tables, the threads'
// mains and go.mod), whose tests pass: bfs finds the double application
// and verifies the deduplicating variant.
func TestNewActorsModelBuildsAndPasses(t *testing.T) {
	files, err := renderSkeleton(skeletonData{Name: "retry", Module: "example.com/retry", Version: "v0.0.0", Template: templateActors})
	require.NoError(t, err)
	threads, err := renderSkeleton(skeletonData{Name: "retry", Module: "example.com/retry", Version: "v0.0.0"})
	require.NoError(t, err)
	assert.ElementsMatch(t, keys(threads), keys(files), "both templates write the same files")
	assert.Contains(t, string(files["model.go"]), "sim.Handlers[*Service]")
	assert.NotContains(t, string(threads["model.go"]), "sim.Handlers")
	assert.Equal(t, string(threads["cmd/server/main.go"]), string(files["cmd/server/main.go"]))
	if testing.Short() {
		t.Skip("builds a module")
	}
	dir := filepath.Join(t.TempDir(), "retry")
	code, out, errOut := racetrack(t, "new", "model", "retry", "-template", "actors", "-module", "example.com/retry", "-dir", dir, "-replace", "../..")
	require.Equal(t, cli.ExitHolds, code, "%s%s", out, errOut)
	sum, err := os.ReadFile("../../examples/ownmodel/go.sum")
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "go.sum"), sum, 0o644))
	modcache := strings.TrimSpace(string(goOut(t, "", nil, "env", "GOMODCACHE")))
	env := []string{"GOMODCACHE=" + modcache, "GOFLAGS=-mod=mod", "GOWORK=off"}
	// Its own command line verifies it with racetrack's exit codes.
	verifyExitCodes(t, dir, env, "retry", map[string]int{"apply-always": cli.ExitSafety, "dedup": cli.ExitHolds})
	test := string(goOut(t, dir, env, "test", "-count=1", "-v", "./..."))
	for _, name := range []string{"TestRetryAppliesTwice", "TestDedupHolds", "TestConforms"} {
		assert.Contains(t, test, "--- PASS: "+name+" ", "the skeleton's %s", name)
	}
	assert.Contains(t, test, "ok  \texample.com/retry\t")
	goOut(t, dir, env, "build", "-o", os.DevNull, "./cmd/server")
	goOut(t, dir, append(env, "GOOS=js", "GOARCH=wasm"), "build", "-o", os.DevNull, "./cmd/wasm")
}

// verifyExitCodes builds the module's cmd/NAME and checks the exit code of
// its exhaustive verify of each variant.
func verifyExitCodes(t *testing.T, dir string, env []string, name string, want map[string]int) {
	t.Helper()
	bin := filepath.Join(t.TempDir(), name)
	goOut(t, dir, env, "build", "-o", bin, "./cmd/"+name)
	for variant, code := range want {
		cmd := exec.Command(bin, "verify", "-scenario", name, "-variant", variant, "-exhaustive", "bfs")
		out, _ := cmd.CombinedOutput()
		assert.Equal(t, code, cmd.ProcessState.ExitCode(), "%s verify -variant %s:\n%s", name, variant, out)
	}
}

func keys(m map[string][]byte) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

func TestNewModelBadInput(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"new"}, "racetrack new model NAME"},
		{[]string{"new", "model"}, "NAME is missing"},
		{[]string{"new", "model", "Lease"}, `NAME "Lease"`},
		{[]string{"new", "model", "my-model"}, `NAME "my-model"`},
		{[]string{"new", "model", "lease", "-module", "a b"}, `-module "a b"`},
		{[]string{"new", "model", "lease", "-module", "/abs"}, `-module "/abs"`},
		{[]string{"new", "model", "lease", "-replace", "/nonexistent"}, "no go.mod"},
		{[]string{"new", "model", "lease", "stray"}, "unexpected argument"},
		{[]string{"new", "model", "lease", "-template", "actor"}, `-template "actor": want threads or actors`},
	} {
		code, _, errOut := racetrack(t, c.args...)
		assert.Equal(t, cli.ExitUsage, code, "%q", c.args)
		assert.Contains(t, errOut, c.want, "%q", c.args)
	}
}

// goOut runs the go command in dir and returns its output.
func goOut(t *testing.T, dir string, env []string, args ...string) []byte {
	t.Helper()
	cmd := exec.Command("go", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "go %s:\n%s", strings.Join(args, " "), out)
	return out
}
